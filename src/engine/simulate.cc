#include "engine/simulate.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/text/normalize.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "engine/target_request.h"
#include "fs/output_paths.h"
#include "io/writers/results_jsonl_writer.h"
#include "judges/registry.h"
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

}  // namespace

Result<RunReport> RunSimulation(const RunOptions& o, RunReport& report) {
  auto began = std::chrono::steady_clock::now();
  std::optional<json> tmpl;
  if (!o.target.body.empty()) {
    tmpl = json::parse(o.target.body, nullptr, false);
    if (tmpl->is_discarded()) return InvalidArgument("the target body template is not JSON");
  }
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
    auto first = TargetRequest(turn_row(chats[i]), o.target, tmpl ? &*tmpl : nullptr);
    if (!first) return first.error();
  }
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
      TALA_ASSIGN_OR_RETURN(std::string r,
                            TargetRequest(turn_row(chats[i]), o.target, tmpl ? &*tmpl : nullptr));
      active.push_back(i);
      requests.push_back(std::move(r));
    }
    if (active.empty()) break;
    Status move_error;
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
      if (said == kGiveUp) {
        c.ended = "give_up";
        c.why = fmt::format("after {} turns the user had nothing more to add", c.turns - 1);
        c.pending.clear();
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
  }
  // Each conversation that ended is a dataset row, in scenario order; one cut short by a stop
  // is not written.
  std::map<std::string, int64_t> ends;
  for (const Chat& c : chats) {
    if (c.ended.empty()) continue;
    ordered_json row = c.scenario->golden.row;
    for (const char* f : {"response", "retrieved_contexts", "retrieved_context_ids", "latency_ms",
                          "target_error", "messages", "user_input", "simulation"}) {
      row.erase(f);
    }
    row["user_input"] = c.dialogue.transcript;
    row["latency_ms"] = std::round(c.latency_ms * 10) / 10;
    row["simulation"] = {{"ended", c.ended}, {"turns", c.turns}, {"why", c.why}};
    if (c.ended == "target_error") {
      row["target_error"] = "row " + c.scenario->golden.id + ", " + c.why;
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
  for (const char* kind : {"success", "limit", "give_up", "target_error"}) {
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
