#include "engine/simulate.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/text/normalize.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "engine/llm_setup.h"
#include "engine/target_request.h"
#include "fs/output_paths.h"
#include "io/writers/results_jsonl_writer.h"
#include "judges/llm/call_source.h"
#include "judges/llm/request_json.h"
#include "judges/registry.h"
#include "runtime/clock.h"
#include "targets/golden_rows.h"
#include "targets/reply_mapping.h"
#include "targets/target_runner.h"

namespace tala {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// What counts as success: an answer that supports the success statement this well (its claims'
// graded support, as tala diagnose's default --threshold reads "right"), or, without a statement,
// one that reads as addressing the goal this well (the middle of the offline relevance scale).
constexpr double kSuccessShare = 0.7;
constexpr double kSuccessRelevance = 0.5;
constexpr const char* kGiveUp = "Never mind, thank you.";

struct Scenario {
  targets::GoldenRow golden;  // the scenario's row (its fields are carried over)
  std::string goal, opening, success;
  std::vector<std::string> facts;
  int max_turns = 6;
};

// The text of a scenario's field, "" when absent or null.
std::string TextOf(const ordered_json& row, const char* name) {
  auto it = row.find(name);
  return it != row.end() && it->is_string() ? it->get<std::string>() : "";
}

Result<std::vector<Scenario>> ReadScenarios(const std::string& path) {
  auto check = [&](const ordered_json& row, int64_t line) -> Status {
    auto error = [&](const char* field, const std::string& what) {
      return DataError({path, line, 0, field}, what);
    };
    for (const char* name : {"goal", "opening", "success"}) {
      auto it = row.find(name);
      if (it == row.end() || it->is_null()) {
        if (std::string_view(name) == "goal") {
          return error(name, "missing: what the simulated user wants");
        }
        continue;
      }
      if (!it->is_string() || it->get<std::string>().empty()) {
        return error(name, "expected a non-empty string");
      }
    }
    if (auto facts = row.find("facts"); facts != row.end() && !facts->is_null()) {
      bool texts = facts->is_array();
      for (size_t i = 0; texts && i < facts->size(); ++i) texts = (*facts)[i].is_string();
      if (!texts) return error("facts", "expected a list of strings");
    }
    if (auto turns = row.find("max_turns"); turns != row.end() && !turns->is_null()) {
      if (!turns->is_number_integer() || turns->get<int64_t>() < 1 || turns->get<int64_t>() > 50) {
        return error("max_turns", "expected a whole number from 1 to 50");
      }
    }
    return OkStatus();
  };
  TALA_ASSIGN_OR_RETURN(std::vector<targets::GoldenRow> rows,
                        targets::ReadObjectRows(path, "scenario", check));
  std::vector<Scenario> out;
  for (targets::GoldenRow& g : rows) {
    Scenario s;
    s.goal = TextOf(g.row, "goal");
    s.opening = TextOf(g.row, "opening");
    if (s.opening.empty()) s.opening = s.goal;
    s.success = TextOf(g.row, "success");
    if (auto facts = g.row.find("facts"); facts != g.row.end() && facts->is_array()) {
      for (const auto& f : *facts) s.facts.push_back(f.get<std::string>());
    }
    if (auto turns = g.row.find("max_turns"); turns != g.row.end() && turns->is_number()) {
      s.max_turns = turns->get<int>();
    }
    s.golden = std::move(g);
    out.push_back(std::move(s));
  }
  return out;
}

std::set<std::string> ContentWords(const std::string& text) {
  std::set<std::string> out;
  for (const text::Token& t : text::Tokenize(text)) {
    if (!t.number && !text::IsStopWord(t.text) && t.text.size() > 2) out.insert(t.text);
  }
  return out;
}

// One simulated conversation.
struct Chat {
  const Scenario* scenario = nullptr;
  TargetDialogue dialogue;
  std::string pending;  // the user's next message; "" when ended
  std::set<size_t> facts_said;
  int turns = 0;
  bool awaiting_user = false;  // an LLM user is to say what comes next
  bool gives_up = false;       // the message pending is the LLM user's closing one
  std::string ended, why;
  double latency_ms = 0;
};

// The offline user's reading of `answer`: does it give what counts as success? With a
// `success` statement, when the answer states it (the share of its claims found in the answer,
// as tala diagnose reads "right"); with none, when it reads as addressing the goal (the
// relevance reading: weaker, it takes an answer about the goal's words for one).
Result<bool> Succeeds(Judge& judge, const Scenario& s, const std::string& answer) {
  if (!s.success.empty()) {
    // The statement checked against the answer as faithfulness checks a claim against its
    // passages (the strict reading: a value or a name the answer lacks fails it), without the
    // goal, whose words would count as stated.
    Sample check;
    check.user_input = "";
    check.response = s.success;
    check.retrieved_contexts = std::vector<std::string>{answer};
    TALA_ASSIGN_OR_RETURN(
        Verdicts v,
        judge.Answer({check, static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims), {}}));
    if (!v.response_claims || v.response_claims->empty()) return false;
    double support = 0;
    for (const ClaimVerdict& c : *v.response_claims) {
      support += c.support_score.value_or(c.supported.value_or(false) ? 1.0 : 0.0);
    }
    return support >= kSuccessShare * static_cast<double>(v.response_claims->size());
  }
  Sample pair;
  pair.user_input = s.goal;
  pair.response = answer;
  TALA_ASSIGN_OR_RETURN(
      Verdicts v, judge.Answer({pair, static_cast<TaskSet>(JudgeTask::kGenerateQuestions), {}}));
  if (!v.generated_questions || v.generated_questions->empty()) {
    auto why = v.missing_reasons.find(JudgeTaskVerdictName(JudgeTask::kGenerateQuestions));
    return Status(ErrorCode::kInternal, why != v.missing_reasons.end()
                                            ? why->second
                                            : "the offline relevance reading gave nothing");
  }
  const GeneratedQuestion& q = v.generated_questions->front();
  return !q.noncommittal && q.cosine.value_or(0) >= kSuccessRelevance;
}

// The user's next move after the answer `answer`: sets chat.pending, or chat.ended.
Status NextMove(Judge& judge, Chat& chat, const std::string& answer) {
  const Scenario& s = *chat.scenario;
  TALA_ASSIGN_OR_RETURN(bool met, Succeeds(judge, s, answer));
  chat.pending.clear();
  if (met) {
    chat.ended = "success";
    chat.why = fmt::format("turn {} answers what the user wanted", chat.turns);
    return OkStatus();
  }
  if (chat.turns >= s.max_turns) {
    chat.ended = "limit";
    chat.why = fmt::format("{} turns without an answer to the goal", chat.turns);
    return OkStatus();
  }
  // A question of the assistant: the fact that shares most words with it, said once.
  if (answer.find('?') != std::string::npos) {
    const std::set<std::string> asked = ContentWords(answer);
    size_t best = s.facts.size(), best_shared = 0;
    for (size_t i = 0; i < s.facts.size(); ++i) {
      if (chat.facts_said.count(i)) continue;
      size_t shared = 0;
      for (const std::string& w : ContentWords(s.facts[i])) shared += asked.count(w);
      if (best == s.facts.size() || shared > best_shared) {
        best = i;
        best_shared = shared;
      }
    }
    if (best < s.facts.size()) {
      chat.facts_said.insert(best);
      chat.pending = s.facts[best];
      return OkStatus();
    }
  }
  // Ask again, saying one more thing about itself.
  for (size_t i = 0; i < s.facts.size(); ++i) {
    if (chat.facts_said.count(i)) continue;
    chat.facts_said.insert(i);
    chat.pending = s.facts[i] + " " + s.goal;
    return OkStatus();
  }
  chat.pending = kGiveUp;  // sent, and the conversation ends after its answer
  return OkStatus();
}

// An LLM judge playing the user: one call after each answer, its reply the user's next message
// or the end of the conversation.
class UserTurnSource : public judges::llm::CallSource {
 public:
  UserTurnSource(size_t chat, const Scenario& s, const ordered_json& history) : chat_(chat) {
    ordered_json facts = ordered_json::array();
    for (const std::string& f : s.facts) facts.push_back(f);
    judges::llm::Request request = {{"scenario",
                                     {{"goal", s.goal},
                                      {"persona", s.golden.row.value("persona", "")},
                                      {"facts", facts},
                                      {"success", s.success}}},
                                    {"conversation", history}};
    nlohmann::json status = {{"type", "string"}, {"enum", {"success", "continue", "give_up"}}};
    call_ = judges::llm::ChatCall(
        judges::llm::CallKind::kSimulateUser, "simulate_user", 0, judges::llm::Encode(request),
        judges::llm::ObjectSchema(
            {{"status", status}, {"message", judges::llm::JsonType("string")}}));
  }
  std::vector<judges::llm::ModelCall> TakeReady() override {
    if (handed_out_ || done_) return {};
    handed_out_ = true;
    return {call_};
  }
  Status AcceptChat(const judges::llm::ModelCall&, std::string_view text) override {
    nlohmann::json reply = nlohmann::json::parse(text, nullptr, false);
    if (!reply.is_object()) return Status(ErrorCode::kBadReply, "the reply is not a JSON object");
    const std::string status = reply.value("status", "");
    if (status != "success" && status != "continue" && status != "give_up") {
      return Status(ErrorCode::kBadReply,
                    "\"status\" must be \"success\", \"continue\" or \"give_up\"");
    }
    std::string message = reply.contains("message") && reply["message"].is_string()
                              ? reply["message"].get<std::string>()
                              : "";
    if (status != "success" && message.find_first_not_of(" \t\r\n") == std::string::npos) {
      return Status(ErrorCode::kBadReply, "\"message\" is empty; the user must say something");
    }
    status_ = status;
    message_ = std::move(message);
    done_ = true;
    return OkStatus();
  }
  Status AcceptEmbeddings(const judges::llm::ModelCall&,
                          const std::vector<std::vector<double>>&) override {
    return Status(ErrorCode::kInternal, "a simulated user asks for no embeddings");
  }
  void Fail(const judges::llm::ModelCall&, const std::string& reason) override {
    failed_ = reason;
    done_ = true;
  }
  bool done() const override { return done_; }

  size_t chat_;
  std::string status_, message_, failed_;

 private:
  judges::llm::ModelCall call_;
  bool handed_out_ = false, done_ = false;
};

// --dry-run: a simulation's calls at most (every scenario to its max_turns, the user judge after
// each answer) and, with an LLM user judge, its tokens: each call's request as the run would
// build it, the user's messages its opening and each answer kAssumedAnswer characters long.
RunReport& PlanSimulation(const std::vector<Scenario>& scenarios, const LlmSetup* llm,
                          RunReport& report) {
  constexpr size_t kAssumedAnswer = 400;  // characters: a RAG answer of two or three sentences
  constexpr int64_t kUserReplyTokens = 40;
  report.dry_run = true;
  runtime::CallCounts user;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& sc = scenarios[i];
    report.planned_target_calls += sc.max_turns;
    if (llm == nullptr) continue;
    ordered_json history = ordered_json::array();
    for (int t = 0; t < sc.max_turns; ++t) {
      history.push_back({{"role", "user"}, {"content", sc.opening}});
      history.push_back({{"role", "assistant"}, {"content", std::string(kAssumedAnswer, 'x')}});
      UserTurnSource source(i, sc, history);
      for (const judges::llm::ModelCall& call : source.TakeReady()) {
        ++user.calls;
        user.prompt_tokens += EstimatePromptTokens(call, *llm);
        user.completion_tokens += kUserReplyTokens;
      }
    }
  }
  report.planned_user_calls = user.calls;
  report.planned_user_prompt_tokens = user.prompt_tokens;
  report.planned_user_completion_tokens = user.completion_tokens;
  if (llm != nullptr && llm->price) report.planned_user_cost_usd = runtime::Cost(user, *llm->price);
  report.planned_note =
      "upper bounds: a conversation that succeeds or gives up early makes fewer calls" +
      std::string(llm != nullptr ? "; the user judge's tokens assume answers of about 400 "
                                   "characters and replies of 40 tokens"
                                 : "; the offline user makes no judge call");
  return report;
}

}  // namespace

Result<RunReport> RunSimulation(const RunOptions& o, RunReport& report) {
  auto began = std::chrono::steady_clock::now();
  TALA_ASSIGN_OR_RETURN(const std::optional<json> tmpl, BodyTemplate(o.target));
  if (o.resume) return InvalidArgument("--resume does not apply to --simulate: run it again");
  TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct({{"--simulate", o.simulate}}, {{"--out", o.out}}));
  TALA_ASSIGN_OR_RETURN(std::vector<Scenario> scenarios, ReadScenarios(o.simulate));
  report.rows_read = static_cast<int64_t>(scenarios.size());
  TALA_ASSIGN_OR_RETURN(std::unique_ptr<Judge> user_judge, judges::CreateJudge("offline"));
  std::vector<Chat> chats(scenarios.size());
  auto turn_row = [&](const Chat& c) { return c.dialogue.TurnRow(c.scenario->golden, c.pending); };
  for (size_t i = 0; i < scenarios.size(); ++i) {
    chats[i].scenario = &scenarios[i];
    chats[i].pending = scenarios[i].opening;
    // Every first request rendered before the first call: a template error stops nothing midway.
    auto first = TargetRequest(turn_row(chats[i]), o.target, tmpl);
    if (!first) return first.error();
  }
  std::optional<LlmSetup> llm;
  std::unique_ptr<runtime::JudgeRunner> user_runner;
  if (o.user_judge != "offline") {
    if (!IsLlmJudge(o.user_judge)) {
      return InvalidArgument("--user-judge " + o.user_judge +
                             ": expected offline, openai:MODEL or anthropic:MODEL");
    }
    std::vector<std::string> warnings;
    TALA_ASSIGN_OR_RETURN(llm, SetUpLlm(o.user_judge, o.user_llm, &warnings));
    TALA_ASSIGN_OR_RETURN(
        user_runner, runtime::JudgeRunner::Create(llm->backends, llm->runtime, llm->cache.get(),
                                                  runtime::SystemClock()));
  }
  if (o.dry_run) return PlanSimulation(scenarios, llm ? &*llm : nullptr, report);
  TALA_ASSIGN_OR_RETURN(auto target,
                        targets::CreateTarget(o.target, o.max_in_flight, o.max_restarts));
  TALA_ASSIGN_OR_RETURN(
      io::ResultsJsonlWriter out,
      io::ResultsJsonlWriter::Open(o.out, io::ResultsJsonlWriter::Mode::kTruncate));
  const targets::RunnerOptions ro = RunnerOptionsOf(o);
  targets::RunnerCounts counts;
  int64_t ended = 0;
  auto progress = [&] {
    if (o.progress) o.progress(TargetProgress(counts, ended, report.rows_read, 0));
  };
  Status status;
  while (status.ok()) {
    std::vector<size_t> active;
    std::vector<std::string> requests;
    for (size_t i = 0; i < chats.size(); ++i) {
      if (!chats[i].ended.empty() || chats[i].pending.empty()) continue;
      TALA_ASSIGN_OR_RETURN(std::string r, TargetRequest(turn_row(chats[i]), o.target, tmpl));
      active.push_back(i);
      requests.push_back(std::move(r));
    }
    if (active.empty()) break;
    auto finish = [&](int64_t seq, const targets::CallOutcome& outcome) -> Status {
      Chat& c = chats[active[static_cast<size_t>(seq)]];
      const std::string said = c.pending;
      ++c.turns;
      ++report.user_turns;
      c.latency_ms += outcome.latency_ms;
      Result<targets::TargetAnswer> answer =
          outcome.reply ? targets::ReadReply(outcome.reply->body, o.target, true)
                        : Result<targets::TargetAnswer>(outcome.reply.error());
      c.dialogue.Add(said, answer ? &*answer : nullptr);
      if (!answer) {
        c.ended = "target_error";
        c.why = fmt::format("turn {}: {}", c.turns, answer.error().message());
        c.pending.clear();
        ++ended;
        return OkStatus();
      }
      CountUsage(report, *answer);
      if (said == kGiveUp || c.gives_up) {
        c.ended = "give_up";
        c.why = fmt::format("the user gave up after {} turns", c.turns - 1);
        c.pending.clear();
      } else if (user_runner) {
        c.pending.clear();  // the LLM user's next move comes after this round
        c.awaiting_user = true;
      } else if (Status s = NextMove(*user_judge, c, answer->response); !s.ok()) {
        return s;  // the offline reading failed (its encoder cannot be read): stop, say why
      }
      if (!c.ended.empty()) ++ended;
      progress();
      return OkStatus();
    };
    size_t cursor = 0;
    auto next = [&]() -> std::optional<targets::TargetCall> {
      if (cursor >= active.size()) return std::nullopt;
      const size_t seq = cursor++;
      return targets::TargetCall{chats[active[seq]].scenario->golden.id, requests[seq]};
    };
    status = targets::RunCalls(*target, ro, next, finish, o.stop, counts, progress);
    if (!status.ok() || !user_runner) continue;
    // The LLM user's turn, for every conversation whose answer came back: one call each.
    std::vector<size_t> waiting;
    for (size_t i = 0; i < chats.size(); ++i) {
      if (chats[i].awaiting_user) waiting.push_back(i);
    }
    size_t taken = 0;
    auto next_user = [&]() -> std::unique_ptr<judges::llm::CallSource> {
      if (taken >= waiting.size()) return nullptr;
      const size_t i = waiting[taken++];
      return std::make_unique<UserTurnSource>(i, *chats[i].scenario, chats[i].dialogue.history);
    };
    auto user_done = [&](std::unique_ptr<judges::llm::CallSource> source) -> Status {
      auto& turn = static_cast<UserTurnSource&>(*source);
      Chat& c = chats[turn.chat_];
      c.awaiting_user = false;
      if (!turn.failed_.empty()) {
        c.ended = "user_error";
        c.why = fmt::format("after turn {}, the user judge failed: {}", c.turns, turn.failed_);
      } else if (turn.status_ == "success") {
        c.ended = "success";
        c.why = fmt::format("turn {} gives what the user wanted (the user judge)", c.turns);
      } else if (c.turns >= c.scenario->max_turns) {
        c.ended = "limit";
        c.why = fmt::format("{} turns without an answer to the goal", c.turns);
      } else {
        // A give-up is said to the assistant, and ends the conversation after its answer.
        c.pending = turn.message_;
        c.gives_up = turn.status_ == "give_up";
      }
      if (!c.ended.empty()) ++ended;
      return OkStatus();
    };
    status = user_runner->RunSources(next_user, user_done, o.stop, {});
  }
  if (user_runner) {
    const runtime::CallCounts& t = user_runner->accounting().total;
    report.user_calls = t.calls + t.cache_hits;
    report.user_cache_hits = t.cache_hits;
    report.user_prompt_tokens = t.prompt_tokens;
    report.user_completion_tokens = t.completion_tokens;
  }
  // Each conversation that ended is a dataset row, in scenario order; one cut short by a stop
  // is not written.
  std::map<std::string, int64_t> ends;
  for (const Chat& c : chats) {
    if (c.ended.empty()) continue;
    ordered_json row = c.dialogue.Row(c.scenario->golden.row, c.latency_ms);
    row.erase("simulation");
    row["simulation"] = {{"ended", c.ended}, {"turns", c.turns}, {"why", c.why}};
    if (c.ended == "target_error") {
      row["target_error"] = "row " + c.scenario->golden.id + ", " + c.why;
      ++report.rows_failed;
    } else if (c.ended == "user_error") {
      row["simulation_error"] = "row " + c.scenario->golden.id + ", " + c.why;
      ++report.rows_failed;
    } else {
      if (c.dialogue.transcript.size() >= 2) {
        row["response"] = c.dialogue.transcript.back()["content"];
      }
      ++report.rows_answered;
    }
    ++ends[c.ended];
    TALA_RETURN_IF_ERROR(out.WriteLine(row.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  for (const char* kind : {"success", "limit", "give_up", "target_error", "user_error"}) {
    if (ends.count(kind)) report.simulation_ends.emplace_back(kind, ends[kind]);
  }
  report.calls = counts.calls;
  report.retries = counts.retries;
  report.peak_in_flight = counts.peak_in_flight;
  report.restarts = target->restarts();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  progress();
  if (!status.ok()) return status;
  return report;
}

}  // namespace tala
