#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "engine/simulate.h"
#include "engine/target_request.h"
#include "fs/output_paths.h"
#include "io/writers/results_jsonl_writer.h"
#include "runtime/cache.h"
#include "tala/run.h"
#include "targets/golden_rows.h"
#include "targets/reply_mapping.h"
#include "targets/request_template.h"
#include "targets/target_runner.h"

namespace tala {

namespace {
using nlohmann::json;
using nlohmann::ordered_json;
using targets::GoldenRow;

bool IsHttp(const std::string& target) { return target.rfind("http", 0) == 0; }

}  // namespace

Result<std::optional<json>> BodyTemplate(const TargetSpec& spec) {
  if (spec.body.empty()) return std::optional<json>();
  json parsed = json::parse(spec.body, nullptr, false);
  if (parsed.is_discarded()) return InvalidArgument("the target body template is not JSON");
  return std::optional<json>(std::move(parsed));
}

Result<std::string> TargetRequest(const GoldenRow& g, const TargetSpec& spec,
                                  const std::optional<json>& tmpl) {
  const auto given = g.row.find(targets::kGivenContexts);
  if (!tmpl) {
    if (!IsHttp(spec.target)) {
      if (given == g.row.end()) return g.row.dump(-1, ' ', false, json::error_handler_t::replace);
      ordered_json line = g.row;
      line.erase(targets::kGivenContexts);
      line["contexts"] = *given;
      return line.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    ordered_json body = {{"question", g.row["user_input"]}};
    if (given != g.row.end()) body["contexts"] = *given;
    if (auto messages = g.row.find("messages"); messages != g.row.end()) {
      body["messages"] = *messages;  // a conversation's turn: what was said before it
    }
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  TALA_ASSIGN_OR_RETURN(std::string body, targets::RenderRequest(*tmpl, g.row));
  if (IsHttp(spec.target)) return body;
  ordered_json object = ordered_json::parse(body);
  if (object.is_object() && !object.contains("id")) {
    object["id"] = g.row["id"];
    return object.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return body;
}

targets::RunnerOptions RunnerOptionsOf(const RunOptions& o) {
  targets::RunnerOptions ro;
  ro.max_in_flight = o.max_in_flight;
  ro.timeout = std::chrono::milliseconds(o.timeout_ms);
  ro.retry.max_retries = o.max_retries;
  ro.retry.base_delay = std::chrono::milliseconds(200);
  ro.requests_per_minute = o.requests_per_minute;
  return ro;
}

Progress TargetProgress(const targets::RunnerCounts& counts, int64_t done, int64_t total,
                        int64_t cache_hits) {
  Progress p;
  p.rows_done = done;
  p.rows_total = total;
  p.in_flight = counts.in_flight;
  p.failed_calls = counts.failed_calls;
  p.retries = counts.retries;
  p.cache_hits = cache_hits;
  return p;
}

void CountUsage(RunReport& report, const targets::TargetAnswer& answer) {
  report.prompt_tokens += answer.prompt_tokens.value_or(0);
  report.completion_tokens += answer.completion_tokens.value_or(0);
  report.cost_usd += answer.cost_usd.value_or(0);
}

GoldenRow TargetDialogue::TurnRow(const GoldenRow& golden, const std::string& message) const {
  GoldenRow turn = golden;
  turn.row["user_input"] = message;
  ordered_json messages = history;
  messages.push_back({{"role", "user"}, {"content", message}});
  turn.row["messages"] = std::move(messages);
  return turn;
}

ordered_json TargetDialogue::Row(ordered_json row, double latency_ms) const {
  for (const char* f : {"response", "retrieved_contexts", "retrieved_context_ids", "latency_ms",
                        "target_error", "messages"}) {
    row.erase(f);
  }
  row["user_input"] = transcript;
  row["latency_ms"] = std::round(latency_ms * 10) / 10;
  return row;
}

void TargetDialogue::Add(const std::string& message, const targets::TargetAnswer* answer,
                         const ordered_json& reference) {
  transcript.push_back({{"type", "human"}, {"content", message}});
  if (answer == nullptr) return;
  ordered_json ai = {{"type", "ai"}, {"content", answer->response}};
  ai["retrieved_contexts"] = answer->contexts;
  if (answer->context_ids) ai["retrieved_context_ids"] = *answer->context_ids;
  if (!reference.is_null()) ai["reference"] = reference;
  transcript.push_back(std::move(ai));
  history.push_back({{"role", "user"}, {"content", message}});
  history.push_back({{"role", "assistant"}, {"content", answer->response}});
}

namespace {

// Keeps each distinct failure reason (the first five) with the rows it hit.
void CountReason(RunReport& r, const std::string& reason) {
  for (auto& [text, rows] : r.error_reasons) {
    if (text == reason) return void(++rows);
  }
  if (r.error_reasons.size() < 5) r.error_reasons.emplace_back(reason, 1);
}

// The dataset row: the golden row with the target's answer, or the error that stopped it.
std::string DatasetRow(const GoldenRow& g, const TargetSpec& spec, const targets::CallOutcome& o,
                       RunReport& report, std::string* cacheable) {
  ordered_json out = g.row;
  for (const char* f :
       {"response", "retrieved_contexts", "retrieved_context_ids", "latency_ms", "target_error",
        "target_stderr", "target_usage", "target_contexts", targets::kGivenContexts}) {
    out.erase(f);
  }
  const auto given = g.row.find(targets::kGivenContexts);
  Result<targets::TargetAnswer> answer = Status(ErrorCode::kInternal, "");
  if (o.reply) {
    answer = targets::ReadReply(o.reply->body, spec, /*contexts_required=*/given == g.row.end());
  } else {
    answer = o.reply.error();
  }
  out["latency_ms"] = std::round(o.latency_ms * 10) / 10;
  if (answer) {
    out["response"] = answer->response;
    if (given == g.row.end()) {
      out["retrieved_contexts"] = answer->contexts;
      if (answer->context_ids) out["retrieved_context_ids"] = *answer->context_ids;
    } else {
      // The answer was made from the passages given: they are its contexts. What the target
      // says it used is kept, so a target that retrieved anyway can be told (tala diagnose).
      out["retrieved_contexts"] = *given;
      if (answer->contexts_given) out["target_contexts"] = answer->contexts;
    }
    ordered_json usage = ordered_json::object();
    if (answer->prompt_tokens) usage["prompt_tokens"] = *answer->prompt_tokens;
    if (answer->completion_tokens) usage["completion_tokens"] = *answer->completion_tokens;
    if (answer->cost_usd) usage["cost_usd"] = *answer->cost_usd;
    if (!usage.empty()) out["target_usage"] = usage;
    CountUsage(report, *answer);
    ++report.rows_answered;
    if (cacheable != nullptr && o.reply) *cacheable = o.reply->body;
  } else {
    std::string why = answer.error().message();
    if (o.attempts > 1) why += fmt::format(" (after {} attempts)", o.attempts);
    out["target_error"] = "row " + g.id + ": " + why;
    CountReason(report, answer.error().message());
    ++report.rows_failed;
  }
  if (o.reply && !o.reply->stderr_text.empty()) out["target_stderr"] = o.reply->stderr_text;
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

void Percentiles(std::vector<double> v, RunReport& r) {
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  r.latency_mean_ms = sum / static_cast<double>(v.size());
  r.latency_p50_ms = at(0.5);
  r.latency_p95_ms = at(0.95);
  r.latency_max_ms = v.back();
}

// A golden conversation to play turn by turn: user_input a list of messages of the user, with
// ai messages absent or without content (placeholders that may carry the turn's reference).
bool IsScript(const ordered_json& row) {
  const auto input = row.find("user_input");
  if (input == row.end() || !input->is_array() || input->empty()) return false;
  bool human = false;
  for (const auto& m : *input) {
    if (!m.is_object()) return false;
    const std::string type = m.value("type", "");
    if (type == "human") {
      human = true;
    } else if (type != "ai" || (m.contains("content") && m["content"].is_string() &&
                                !m["content"].get<std::string>().empty())) {
      return false;
    }
  }
  return human;
}

// One turn of a script: one message of the user, and the reference the ai placeholder after it
// carries (null when none).
struct ScriptTurn {
  std::string question;
  ordered_json reference;
};

std::vector<ScriptTurn> TurnsOf(const ordered_json& user_input) {
  std::vector<ScriptTurn> turns;
  for (const auto& m : user_input) {
    if (m.value("type", "") == "human") {
      turns.push_back({m.value("content", ""), nullptr});
    } else if (!turns.empty() && m.contains("reference")) {
      turns.back().reference = m["reference"];
    }
  }
  return turns;
}

// Where a played conversation stands.
struct Play {
  size_t golden = 0;
  std::vector<ScriptTurn> turns;
  TargetDialogue dialogue;
  double latency_ms = 0;
  std::string error;
};

}  // namespace

Result<RunReport> RunTarget(const RunOptions& o, RunReport* partial) {
  RunReport scratch;
  RunReport& report = partial != nullptr ? *partial : scratch;
  report = RunReport{};
  report.out = o.out;
  auto began = std::chrono::steady_clock::now();
  if (o.out.empty() || o.out == "-") {
    return InvalidArgument("--out must name a file: rows are written as they finish");
  }
  if (o.max_in_flight < 1) return InvalidArgument("--max-in-flight must be at least 1");
  if (!o.simulate.empty()) return RunSimulation(o, report);
  TALA_ASSIGN_OR_RETURN(const std::optional<json> tmpl, BodyTemplate(o.target));
  const std::string cache_path = o.cache == "off" ? "" : o.cache;
  TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct(
      {{"GOLDEN", o.golden}}, {{"--out", o.out}, {"--target-cache", cache_path}}));
  TALA_ASSIGN_OR_RETURN(std::vector<GoldenRow> golden, targets::ReadGolden(o.golden));
  report.rows_read = static_cast<int64_t>(golden.size());
  // Conversations to play turn by turn, or single questions. In a file that holds both (tala
  // testset's golden sets keep a session's questions with the ones asked alone), a single
  // question is played as a conversation of one turn.
  size_t scripts = 0;
  for (const GoldenRow& g : golden) scripts += IsScript(g.row) ? 1 : 0;
  if (scripts > 0 && scripts < golden.size()) {
    for (GoldenRow& g : golden) {
      if (IsScript(g.row)) continue;
      const auto question = g.row.find("user_input");
      if (question == g.row.end() || !question->is_string()) {
        return DataError({o.golden, g.line, 0, "user_input"},
                         "expected the question (a string) or the user's messages (a list of "
                         "{\"type\": \"human\", \"content\"} objects)");
      }
      *question = ordered_json::array({{{"type", "human"}, {"content", *question}}});
    }
    scripts = golden.size();
  }
  // Every request is rendered before the first call, so a template error stops nothing midway
  // (a conversation's first turn stands for its others: they fill the same placeholders).
  std::vector<std::string> requests;
  int64_t calls = 0;  // what a run would call: a row's one, or each turn of a conversation
  for (const GoldenRow& g : golden) {
    GoldenRow first = g;
    if (scripts > 0) {
      const std::vector<ScriptTurn> turns = TurnsOf(g.row["user_input"]);
      first = TargetDialogue().TurnRow(g, turns[0].question);
      calls += static_cast<int64_t>(turns.size());
    } else {
      ++calls;
    }
    TALA_ASSIGN_OR_RETURN(std::string r, TargetRequest(first, o.target, tmpl));
    requests.push_back(std::move(r));
  }
  if (o.dry_run) {
    // Every row checked and its request rendered above.
    report.dry_run = true;
    report.planned_target_calls = calls;
    return report;
  }
  TALA_ASSIGN_OR_RETURN(auto target,
                        targets::CreateTarget(o.target, o.max_in_flight, o.max_restarts));
  std::set<std::string> kept;
  if (o.resume) {
    TALA_ASSIGN_OR_RETURN(kept, targets::KeepAnsweredRows(o.out, golden));
    report.rows_resumed = static_cast<int64_t>(kept.size());
  }
  std::unique_ptr<runtime::Cache> cache;
  if (o.cache != "off" && !o.cache.empty()) {
    std::string warning;
    TALA_ASSIGN_OR_RETURN(cache, runtime::Cache::Open(o.cache, &warning));
  }
  // Locked while written (one writer per file); each row one write, never half a row.
  TALA_ASSIGN_OR_RETURN(
      io::ResultsJsonlWriter out,
      io::ResultsJsonlWriter::Open(o.out, o.resume ? io::ResultsJsonlWriter::Mode::kAppend
                                                   : io::ResultsJsonlWriter::Mode::kTruncate));

  const targets::RunnerOptions ro = RunnerOptionsOf(o);
  auto cache_key = [&](const std::string& request) {
    return Sha256Hex("tala-target\n" + o.target.target + "\n" + o.target.method + "\n" + request);
  };
  if (scripts > 0) {
    // Turn by turn: round t calls turn t of every conversation still going, all at once; each
    // call carries what was said before it, so a turn's request (and its cache key) is the same
    // whatever comes after it.
    std::vector<Play> plays;
    int64_t turns_total = 0, turns_done = 0;
    for (size_t i = 0; i < golden.size(); ++i) {
      if (kept.count(golden[i].id)) continue;
      Play p;
      p.golden = i;
      p.turns = TurnsOf(golden[i].row["user_input"]);
      turns_total += static_cast<int64_t>(p.turns.size());
      plays.push_back(std::move(p));
    }
    targets::RunnerCounts counts;
    std::vector<double> latencies;
    auto progress = [&] {
      if (o.progress)
        o.progress(TargetProgress(counts, turns_done, turns_total, report.cache_hits));
    };
    Status status;
    for (size_t t = 0; status.ok(); ++t) {
      std::vector<size_t> active;  // seq -> play
      std::vector<std::string> turn_requests;
      for (size_t k = 0; k < plays.size(); ++k) {
        Play& p = plays[k];
        if (!p.error.empty() || t >= p.turns.size()) continue;
        TALA_ASSIGN_OR_RETURN(
            std::string r, TargetRequest(p.dialogue.TurnRow(golden[p.golden], p.turns[t].question),
                                         o.target, tmpl));
        active.push_back(k);
        turn_requests.push_back(std::move(r));
      }
      if (active.empty()) break;
      auto finish_turn = [&](int64_t seq, const targets::CallOutcome& outcome) -> Status {
        const size_t k = active[static_cast<size_t>(seq)];
        Play& p = plays[k];
        ++turns_done;
        p.latency_ms += outcome.latency_ms;
        if (outcome.reply) latencies.push_back(outcome.latency_ms);
        Result<targets::TargetAnswer> answer =
            outcome.reply ? targets::ReadReply(outcome.reply->body, o.target, true)
                          : Result<targets::TargetAnswer>(outcome.reply.error());
        const ScriptTurn& turn = p.turns[t];
        p.dialogue.Add(turn.question, answer ? &*answer : nullptr, turn.reference);
        if (!answer) {
          std::string why = answer.error().message();
          if (outcome.attempts > 1) why += fmt::format(" (after {} attempts)", outcome.attempts);
          p.error = "row " + golden[p.golden].id + ", turn " + std::to_string(t + 1) + ": " + why;
          CountReason(report, answer.error().message());
          return OkStatus();
        }
        CountUsage(report, *answer);
        if (cache && outcome.attempts > 0) {
          cache->Put(cache_key(turn_requests[static_cast<size_t>(seq)]),
                     "target:" + o.target.target, "target", {outcome.reply->body, 0, 0});
        }
        progress();
        return OkStatus();
      };
      size_t cursor = 0;
      Status cached_error;
      auto next = [&]() -> std::optional<targets::TargetCall> {
        while (cursor < active.size()) {
          const int64_t seq = static_cast<int64_t>(cursor);
          const std::string& request = turn_requests[cursor++];
          if (cache) {
            if (auto hit = cache->Get(cache_key(request))) {
              ++report.cache_hits;
              if (Status s = finish_turn(seq, {targets::TargetReply{hit->text, ""}, 0, 0});
                  !s.ok()) {
                cached_error = s;
                return std::nullopt;
              }
              continue;
            }
          }
          return targets::TargetCall{golden[plays[active[static_cast<size_t>(seq)]].golden].id,
                                     request};
        }
        return std::nullopt;
      };
      status = targets::RunCalls(*target, ro, next, finish_turn, o.stop, counts, progress);
      if (status.ok()) status = cached_error;
    }
    // Each conversation played to its end (or to the turn that failed) is one dataset row, in
    // golden order; one cut short by a stop is left for --resume.
    for (const Play& p : plays) {
      const bool ended = !p.error.empty() || p.dialogue.transcript.size() == 2 * p.turns.size();
      if (!ended) continue;
      ordered_json row = p.dialogue.Row(golden[p.golden].row, p.latency_ms);
      row.erase("target_stderr");
      row.erase("target_usage");
      if (p.error.empty()) {
        row["response"] = p.dialogue.transcript.back()["content"];
        ++report.rows_answered;
      } else {
        row["target_error"] = p.error;
        ++report.rows_failed;
      }
      TALA_RETURN_IF_ERROR(out.WriteLine(row.dump(-1, ' ', false, json::error_handler_t::replace)));
    }
    report.calls = counts.calls;
    report.retries = counts.retries;
    report.peak_in_flight = counts.peak_in_flight;
    report.restarts = target->restarts();
    Percentiles(latencies, report);
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (!status.ok()) return status;
    return report;
  }

  // Rows are written in golden order as they finish (held back behind a slower one).
  std::vector<size_t> order;  // seq -> golden index
  std::map<int64_t, std::string> held;
  int64_t next_to_write = 0, done_rows = 0;
  std::vector<double> latencies;
  Status write_error;
  // Cache keys, hashed once per row: looked up before the call, stored after it.
  std::vector<std::string> keys;
  if (cache) {
    for (const std::string& r : requests) keys.push_back(cache_key(r));
  }
  auto write_ready = [&]() -> Status {
    for (auto it = held.begin(); it != held.end() && it->first == next_to_write;
         it = held.erase(it), ++next_to_write) {
      std::string_view line = it->second;
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      TALA_RETURN_IF_ERROR(out.WriteLine(std::string(line)));
    }
    return OkStatus();
  };
  auto finish = [&](int64_t seq, const targets::CallOutcome& outcome) -> Status {
    size_t i = order[static_cast<size_t>(seq)];
    std::string cacheable;
    held[seq] = DatasetRow(golden[i], o.target, outcome, report, cache ? &cacheable : nullptr);
    if (outcome.reply) latencies.push_back(outcome.latency_ms);
    if (cache && !cacheable.empty() && outcome.attempts > 0) {
      cache->Put(keys[i], "target:" + o.target.target, "target", {cacheable, 0, 0});
    }
    ++done_rows;
    return write_ready();
  };
  size_t cursor = 0;
  int64_t to_call = report.rows_read - report.rows_resumed;
  targets::RunnerCounts counts;
  auto progress = [&] {
    if (o.progress) o.progress(TargetProgress(counts, done_rows, to_call, report.cache_hits));
  };
  auto next = [&]() -> std::optional<targets::TargetCall> {
    while (cursor < golden.size()) {
      size_t i = cursor++;
      if (kept.count(golden[i].id)) continue;
      int64_t seq = static_cast<int64_t>(order.size());
      order.push_back(i);
      if (cache) {
        if (auto hit = cache->Get(keys[i])) {
          ++report.cache_hits;
          if (Status s = finish(seq, {targets::TargetReply{hit->text, ""}, 0, 0}); !s.ok()) {
            write_error = s;
            return std::nullopt;
          }
          continue;
        }
      }
      return targets::TargetCall{golden[i].id, requests[i]};
    }
    return std::nullopt;
  };
  Status status = targets::RunCalls(*target, ro, next, finish, o.stop, counts, progress);
  if (status.ok()) status = write_error;
  report.calls = counts.calls;
  report.retries = counts.retries;
  report.peak_in_flight = counts.peak_in_flight;
  report.restarts = target->restarts();
  Percentiles(latencies, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  progress();
  if (!status.ok()) return status;
  return report;
}

std::string FormatRunReport(const RunReport& r) {
  if (r.dry_run) {
    std::string s = fmt::format("--dry-run: {} {} read; nothing was called or written\n",
                                r.rows_read, r.planned_note.empty() ? "rows" : "scenarios");
    s += fmt::format("the target: {} calls{}\n", r.planned_target_calls,
                     r.planned_note.empty() ? "" : " at most");
    if (r.planned_user_calls > 0) {
      s += fmt::format(
          "the user judge: {} calls at most, about {} prompt and {} completion tokens{}\n",
          r.planned_user_calls, r.planned_user_prompt_tokens, r.planned_user_completion_tokens,
          r.planned_user_cost_usd ? fmt::format(", about ${:.4f}", *r.planned_user_cost_usd)
                                  : std::string(" (price unknown: --price-input/--price-output)"));
    }
    if (!r.planned_note.empty()) s += "note: " + r.planned_note + "\n";
    return s;
  }
  std::string s =
      fmt::format("rows: {} read, {} answered, {} failed{}\n", r.rows_read,
                  r.rows_answered + r.rows_resumed, r.rows_failed,
                  r.rows_resumed ? fmt::format(" ({} kept from an earlier run)", r.rows_resumed)
                                 : std::string());
  s += fmt::format("calls: {} ({} retries, {} cache hits{}), at most {} in flight, {:.2f} s\n",
                   r.calls, r.retries, r.cache_hits,
                   r.restarts ? fmt::format(", {} process restarts", r.restarts) : std::string(),
                   r.peak_in_flight, r.seconds);
  if (r.latency_max_ms > 0) {
    s += fmt::format("latency: mean {:.1f} ms, p50 {:.1f} ms, p95 {:.1f} ms, max {:.1f} ms\n",
                     r.latency_mean_ms, r.latency_p50_ms, r.latency_p95_ms, r.latency_max_ms);
  }
  if (r.prompt_tokens || r.completion_tokens || r.cost_usd > 0) {
    s += fmt::format("the target reported: {} prompt tokens, {} completion tokens, ${:.4f}\n",
                     r.prompt_tokens, r.completion_tokens, r.cost_usd);
  }
  if (!r.simulation_ends.empty()) {
    std::string ends;
    for (const auto& [kind, n] : r.simulation_ends) {
      ends += fmt::format("{}{} {}", ends.empty() ? "" : ", ", n, kind);
    }
    s += fmt::format("simulated conversations ended: {} ({} user turns)\n", ends, r.user_turns);
    if (r.user_calls > 0) {
      s += fmt::format(
          "the user judge: {} calls ({} cache hits), {} prompt tokens, {} completion "
          "tokens\n",
          r.user_calls, r.user_cache_hits, r.user_prompt_tokens, r.user_completion_tokens);
    }
  }
  for (const auto& [why, rows] : r.error_reasons) {
    s += fmt::format("  failed ({} rows): {}\n", rows, why);
  }
  s += "dataset: " + r.out + "\n";
  return s;
}

}  // namespace tala
