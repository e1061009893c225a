#include "tala/pairwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "analysis/confidence_sequence.h"
#include "analysis/intervals.h"
#include "decide/result_inputs.h"
#include "fs/scratch_file.h"
#include "io/readers/results_reader.h"

namespace tala {

namespace {
using nlohmann::json;

// The words every pairwise criterion starts with: what the answer field holds. The criterion
// itself follows; the answers stay data inside the request's JSON.
constexpr const char* kFraming =
    "The answer field holds two candidate answers to the question, A and B, as a JSON object "
    "with the keys A and B. Choose A, B or tie: ";

std::string Definition(const std::string& criterion) {
  if (criterion == "grounded") {
    return std::string(kFraming) +
           "which answer is better supported by the contexts, every statement it makes found in "
           "them? tie when they are equally supported.";
  }
  if (criterion == "relevant") {
    return std::string(kFraming) +
           "which answer addresses the question more directly, with less that is off the point? "
           "tie when neither does better.";
  }
  if (criterion == "complete") {
    return std::string(kFraming) +
           "which answer states more of what the reference says (or, without a reference, more of "
           "what the question asks for)? tie when they state as much.";
  }
  return std::string(kFraming) + "which answer is better by this criterion: " + criterion +
         " tie when neither is.";
}

// The offline judge's reading for a named criterion; "" for a criterion in the user's words.
std::string ReadingOf(const std::string& criterion) {
  if (criterion == "grounded") return "faithfulness";
  if (criterion == "relevant") return "response_relevancy";
  if (criterion == "complete") return "factual_correctness";
  return "";
}

struct AnsweredRow {
  json inputs;
  std::map<std::string, std::optional<double>> scores;
};

Result<std::map<std::string, AnsweredRow>> ReadTexts(const std::string& path,
                                                     std::vector<std::string>* order) {
  TALA_ASSIGN_OR_RETURN(io::ResultsFile file,
                        io::ReadResults(path, io::EmptyResults::kError, io::RawLines::kKeep));
  std::map<std::string, AnsweredRow> out;
  for (const io::ResultRow& row : file.rows) {
    AnsweredRow t;
    t.inputs = InputsOfResultLine(row.json);
    t.scores = row.scores;
    if (order != nullptr) order->push_back(row.id);
    out[row.id] = std::move(t);
  }
  return out;
}

// The passages both runs retrieved: the base's, then the candidate's it did not have.
json Passages(const json& a, const json& b) {
  json out = json::array();
  for (const json* side : {&a, &b}) {
    auto it = side->find("retrieved_contexts");
    if (it == side->end() || !it->is_array()) continue;
    for (const json& c : *it) {
      if (c.is_string() && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
  }
  return out;
}

// What one order's choice (A, tie, B) says of the candidate, given which side it was shown as.
std::string ForCandidate(int choice, bool candidate_is_a) {
  if (choice == 1) return "tie";
  const bool a = choice == 0;
  return a == candidate_is_a ? "better" : "worse";
}

// A pair's value for the candidate's win rate: a win 1, a tie half, a loss 0.
double PairValue(const PairwiseRow& row) {
  return row.verdict == "win" ? 1.0 : row.verdict == "tie" ? 0.5 : 0.0;
}

void Tally(PairwiseReport& r) {
  std::vector<double> points;
  for (const PairwiseRow& row : r.rows) {
    r.wins += row.verdict == "win";
    r.ties += row.verdict == "tie";
    r.losses += row.verdict == "loss";
    points.push_back(PairValue(row));
  }
  r.pairs = static_cast<int64_t>(r.rows.size());
  if (auto st = analysis::Summarise(points)) {
    r.win_rate = st->mean;
    r.low = st->ci_low;
    r.high = st->ci_high;
  }
}

Result<PairwiseReport> FromReadings(const PairwiseOptions& o,
                                    const std::map<std::string, AnsweredRow>& base,
                                    const std::map<std::string, AnsweredRow>& cand,
                                    const std::vector<std::string>& order) {
  PairwiseReport r;
  const std::string metric = ReadingOf(o.criterion);
  if (metric.empty()) {
    return InvalidArgument("--criterion \"" + o.criterion +
                           "\": a criterion in your own words needs an LLM judge (--judge "
                           "openai:MODEL); the offline judge compares its readings for grounded, "
                           "relevant or complete");
  }
  bool seen = false;
  for (const std::string& id : order) {
    auto b = base.find(id);
    const auto& c = cand.at(id);
    auto cv = c.scores.find(metric);
    if (b == base.end()) {
      ++r.unpaired;
      continue;
    }
    auto bv = b->second.scores.find(metric);
    if (cv == c.scores.end() || bv == b->second.scores.end()) continue;
    seen = true;
    if (!cv->second || !bv->second) {
      ++r.unpaired;
      continue;
    }
    const double diff = *cv->second - *bv->second;
    PairwiseRow row{id,
                    std::abs(diff) < o.tie_margin ? "tie"
                    : diff > 0                    ? "win"
                                                  : "loss",
                    fmt::format("{:.3f}", *bv->second), fmt::format("{:.3f}", *cv->second)};
    r.rows.push_back(std::move(row));
  }
  if (!seen) {
    return InvalidArgument("--pairwise --criterion " + o.criterion +
                           " with the offline judge reads " + metric +
                           ", which the two results files do not both score (score it, "
                           "or use an LLM judge)");
  }
  r.notes.push_back("offline: the candidate wins a row when its " + metric + " is at least " +
                    fmt::format("{}", o.tie_margin) +
                    " above the base's (no model reads the two "
                    "answers side by side; an LLM judge does, both orders)");
  return r;
}

// Across the judged batches: pairs whose two orders both chose a side, and of them those that
// chose the same position both times.
struct PositionCount {
  int64_t decided_both = 0, same_position = 0;
  std::string failure;  // the judge's first failure reason, if it failed on some row
};

// Judges the pairs `ids` (each answered by both runs) with the LLM judge, each twice, the base
// shown first (~ab) and the candidate first (~ba); appends a verdict row per pair to r.rows. A
// pair the judge failed on in either order counts as unpaired.
Status JudgePairs(const PairwiseOptions& o, const std::map<std::string, AnsweredRow>& base,
                  const std::map<std::string, AnsweredRow>& cand,
                  const std::vector<std::string>& ids, PairwiseReport& r, PositionCount& count) {
  std::string rows;
  for (const std::string& id : ids) {
    const json& ci = cand.at(id).inputs;
    const json& bi = base.at(id).inputs;
    for (bool candidate_first : {false, true}) {
      const std::string first = InputText(candidate_first ? ci : bi, "response");
      const std::string second = InputText(candidate_first ? bi : ci, "response");
      json row = {{"id", id + (candidate_first ? "~ba" : "~ab")},
                  {"user_input", ci.contains("user_input") ? ci["user_input"] : bi["user_input"]},
                  {"response", json{{"A", first}, {"B", second}}.dump()}};
      json passages = Passages(bi, ci);
      if (!passages.empty()) row["retrieved_contexts"] = passages;
      if (ci.contains("reference")) row["reference"] = ci["reference"];
      rows += row.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
  }
  TALA_ASSIGN_OR_RETURN(fs::ScratchFile dataset, fs::ScratchFile::Create("pairwise", rows));
  // The judge's results go in a file of their own, removed with it.
  TALA_ASSIGN_OR_RETURN(fs::ScratchFile results, fs::ScratchFile::Create("pairwise-results", ""));
  EvalOptions eval = o.eval;
  eval.dataset = dataset.path();
  eval.format = "jsonl";
  eval.out = results.path();
  eval.overwrite = true;
  eval.resume = false;
  eval.on_error = OnError::kSkip;
  eval.labels.clear();
  eval.sequential = {};
  UserMetricDef def;
  def.name = "pairwise";
  def.prompt = Definition(o.criterion);
  def.output = UserMetricDef::Output::kDiscrete;
  def.values = {"A", "tie", "B"};
  def.where = "tala compare --pairwise";
  eval.user_metrics = {def};
  eval.metrics = "pairwise";
  TALA_ASSIGN_OR_RETURN(RunSummary summary, Evaluate(eval));
  r.judge_calls += summary.accounting.total.calls;
  if (count.failure.empty() && !summary.failure_reasons.empty()) {
    count.failure = summary.failure_reasons.front().first;
  }
  TALA_ASSIGN_OR_RETURN(io::ResultsFile judged, io::ReadResults(results.path()));
  std::map<std::string, int> choice;
  for (const io::ResultRow& row : judged.rows) {
    auto it = row.scores.find("pairwise");
    if (it != row.scores.end() && it->second) choice[row.id] = static_cast<int>(*it->second);
  }
  for (const std::string& id : ids) {
    auto ab = choice.find(id + "~ab"), ba = choice.find(id + "~ba");
    if (ab == choice.end() || ba == choice.end()) {
      ++r.unpaired;  // the judge failed on one order: no verdict for the pair
      continue;
    }
    const std::string first = ForCandidate(ab->second, /*candidate_is_a=*/false);
    const std::string second = ForCandidate(ba->second, /*candidate_is_a=*/true);
    if (ab->second != 1 && ba->second != 1) {
      ++count.decided_both;
      count.same_position += ab->second == ba->second;
    }
    const std::string verdict = first == second && first == "better"  ? "win"
                                : first == second && first == "worse" ? "loss"
                                                                      : "tie";
    r.rows.push_back({id, verdict, first, second});
  }
  return OkStatus();
}

// --sequential: the pairs in a seeded random order, a batch at a time, until the confidence
// sequence on the win rate decides the gate or is narrow enough; the rest are not judged.
Status JudgeSequentially(const PairwiseOptions& o, const std::map<std::string, AnsweredRow>& base,
                         const std::map<std::string, AnsweredRow>& cand,
                         std::vector<std::string> ids, PairwiseReport& r, PositionCount& count) {
  const PairwiseOptions::Sequential& q = o.sequential;
  PairwiseReport::Stop stop;
  stop.pairs_total = static_cast<int64_t>(ids.size());
  stop.gated = q.min_win_rate >= 0;
  std::mt19937_64 rng(q.seed);
  std::shuffle(ids.begin(), ids.end(), rng);
  analysis::ConfidenceSequence cs(q.alpha);
  // Two calls a pair: a batch fills the judge's slots.
  const size_t batch = q.batch_pairs > 0
                           ? static_cast<size_t>(q.batch_pairs)
                           : static_cast<size_t>(std::max(4, o.eval.llm.max_in_flight / 2));
  size_t next = 0;
  while (next < ids.size() && !stop.decided && !stop.narrow) {
    const size_t end = std::min(ids.size(), next + batch);
    const size_t before = r.rows.size();
    TALA_RETURN_IF_ERROR(JudgePairs(
        o, base, cand, std::vector<std::string>(ids.begin() + next, ids.begin() + end), r, count));
    next = end;
    for (size_t i = before; i < r.rows.size(); ++i) cs.Add(PairValue(r.rows[i]));
    if (stop.gated && cs.lower() >= q.min_win_rate) {
      stop.decided = stop.passed = true;
    } else if (stop.gated && cs.upper() < q.min_win_rate) {
      stop.decided = true;
    }
    stop.narrow = q.target_width > 0 && cs.count() > 0 && cs.upper() - cs.lower() <= q.target_width;
  }
  stop.low = cs.lower();
  stop.high = cs.upper();
  stop.not_judged.assign(ids.begin() + next, ids.end());
  r.sequential = std::move(stop);
  return OkStatus();
}
}  // namespace

Result<PairwiseReport> ComparePairwise(const PairwiseOptions& o) {
  std::vector<std::string> order;
  TALA_ASSIGN_OR_RETURN(auto base, ReadTexts(o.base, nullptr));
  TALA_ASSIGN_OR_RETURN(auto cand, ReadTexts(o.candidate, &order));
  PairwiseReport r;
  const bool offline = o.eval.judge == "offline" && !o.eval.custom_judge;
  if (o.sequential.on && o.sequential.min_win_rate < 0 && !(o.sequential.target_width > 0)) {
    return InvalidArgument(
        "--sequential stops once a gate is decided: give --min-win-rate W or --target-width W");
  }
  if (offline) {
    TALA_ASSIGN_OR_RETURN(r, FromReadings(o, base, cand, order));
    if (o.sequential.on) {
      r.notes.push_back(
          "--sequential: the offline judge compares readings already in the files and makes no "
          "calls, so every pair was compared");
    }
  } else {
    std::vector<std::string> paired;
    for (const std::string& id : order) {
      auto b = base.find(id);
      const json& ci = cand.at(id).inputs;
      if (b == base.end() || !ci.is_object() || !b->second.inputs.is_object() ||
          InputText(ci, "response").empty() || InputText(b->second.inputs, "response").empty()) {
        ++r.unpaired;
        continue;
      }
      paired.push_back(id);
    }
    if (paired.empty()) return InvalidArgument("--pairwise: no row was answered by both runs");
    PositionCount count;
    if (o.sequential.on) {
      TALA_RETURN_IF_ERROR(JudgeSequentially(o, base, cand, paired, r, count));
      // Listed in the candidate's order, as a full run lists them.
      std::map<std::string, size_t> at;
      for (size_t i = 0; i < order.size(); ++i) at.emplace(order[i], i);
      std::sort(r.rows.begin(), r.rows.end(),
                [&](const PairwiseRow& a, const PairwiseRow& b) { return at[a.id] < at[b.id]; });
    } else {
      TALA_RETURN_IF_ERROR(JudgePairs(o, base, cand, paired, r, count));
    }
    if (r.rows.empty()) {
      // No verdict at all is the judge failing, not a candidate that lost every pair.
      return Status{
          ErrorCode::kUnavailable,
          fmt::format("--pairwise: the judge gave no verdict on any of the {} pairs{}",
                      paired.size(), count.failure.empty() ? "" : " (" + count.failure + ")")};
    }
    r.position_bias = count.decided_both > 0
                          ? static_cast<double>(count.same_position) / count.decided_both
                          : 0.0;
    r.notes.push_back(
        "each pair judged twice, the base's answer shown first and then the candidate's; a "
        "verdict that changes with the order is a tie");
  }
  r.criterion = o.criterion;
  r.judge = o.eval.judge;
  Tally(r);
  return r;
}

std::string FormatPairwise(const PairwiseReport& r) {
  std::string out = fmt::format(
      "pairwise ({}, judge {}): candidate wins {}, ties {}, loses {} of {} pairs; win rate "
      "{:.3f}, 95% [{:.3f}, {:.3f}]",
      r.criterion, r.judge, r.wins, r.ties, r.losses, r.pairs, r.win_rate, r.low, r.high);
  if (r.position_bias) {
    out += fmt::format("; position bias {:.0f}% (pairs whose two orders chose the same position)",
                       100 * *r.position_bias);
  }
  out += "\n";
  if (r.unpaired > 0)
    out += fmt::format(
        "{} rows without a verdict for both (not paired, no answer, or a judge failure)\n",
        r.unpaired);
  for (const char* kind : {"win", "loss"}) {
    std::string ids;
    int shown = 0;
    for (const PairwiseRow& row : r.rows) {
      if (row.verdict != kind) continue;
      if (shown++ < 8) ids += (ids.empty() ? "" : " ") + row.id;
    }
    if (shown > 8) ids += " ...";
    if (!ids.empty())
      out += fmt::format("  {}: {}\n", kind == std::string("win") ? "wins" : "losses", ids);
  }
  if (r.sequential) {
    const PairwiseReport::Stop& q = *r.sequential;
    const int64_t judged = q.pairs_total - static_cast<int64_t>(q.not_judged.size());
    const std::string interval =
        fmt::format("anytime-valid win-rate interval [{:.3f}, {:.3f}]", q.low, q.high);
    if (q.decided || q.narrow) {
      out += fmt::format(
          "sequential: {} after {} of {} pairs ({}); {} pairs not judged, {} judge "
          "calls saved\n",
          q.decided ? "the gate decided" : "the interval reached the asked width", judged,
          q.pairs_total, interval, q.not_judged.size(), 2 * q.not_judged.size());
    } else {
      out += fmt::format(
          "sequential: not decided: every one of the {} pairs was judged ({}); a "
          "gate reads the full run's win rate\n",
          q.pairs_total, interval);
    }
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

std::string PairwiseJson(const PairwiseReport& r) {
  nlohmann::ordered_json out = {{"criterion", r.criterion}, {"judge", r.judge},
                                {"pairs", r.pairs},         {"wins", r.wins},
                                {"ties", r.ties},           {"losses", r.losses},
                                {"win_rate", r.win_rate},   {"ci", {r.low, r.high}},
                                {"unpaired", r.unpaired},   {"judge_calls", r.judge_calls}};
  out["position_bias"] = r.position_bias ? json(*r.position_bias) : json();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const PairwiseRow& row : r.rows) {
    rows.push_back(
        {{"id", row.id}, {"verdict", row.verdict}, {"first", row.first}, {"second", row.second}});
  }
  out["rows"] = std::move(rows);
  if (r.sequential) {
    const PairwiseReport::Stop& q = *r.sequential;
    out["sequential"] = {
        {"decided", q.decided},
        {"narrow", q.narrow},
        {"passed", q.decided && q.gated ? json(q.passed) : json()},
        {"anytime_ci", {q.low, q.high}},
        {"pairs_judged", q.pairs_total - static_cast<int64_t>(q.not_judged.size())},
        {"pairs_total", q.pairs_total},
        {"not_judged", q.not_judged}};
  }
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace tala
