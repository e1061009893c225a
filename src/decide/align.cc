#include "tala/align.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>

#include "analysis/judge_agreement.h"
#include "core/hash.h"
#include "decide/result_inputs.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"

namespace tala {

namespace {
using analysis::LabelledScore;

// The mean of the share of right verdicts on the positive rows and on the negative ones: a
// threshold that calls everything one way scores 0.5 however the labels are balanced.
double BalancedAccuracy(const analysis::Confusion& c) {
  const double pos = static_cast<double>(c.true_positive + c.false_negative);
  const double neg = static_cast<double>(c.true_negative + c.false_positive);
  if (pos == 0 || neg == 0) return 0.5;
  return 0.5 *
         (static_cast<double>(c.true_positive) / pos + static_cast<double>(c.true_negative) / neg);
}

// The threshold with the best balanced accuracy on `rows` (the midpoints between distinct scores,
// and the ends); the nearest to `prefer` among equals, so a fit without evidence stays put.
double FitThreshold(const std::vector<LabelledScore>& rows, double prefer) {
  std::vector<double> scores;
  for (const LabelledScore& r : rows) scores.push_back(r.judge);
  std::sort(scores.begin(), scores.end());
  scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
  std::vector<double> candidates = {prefer};
  if (!scores.empty()) {
    candidates.push_back(scores.front() - 1e-9);
    candidates.push_back(scores.back() + 1e-9);
  }
  for (size_t i = 1; i < scores.size(); ++i) candidates.push_back((scores[i - 1] + scores[i]) / 2);
  double best = prefer;
  double best_score = -1;
  for (double t : candidates) {
    const double score = BalancedAccuracy(analysis::Confuse(rows, t));
    if (score > best_score + 1e-12 ||
        (std::abs(score - best_score) <= 1e-12 && std::abs(t - prefer) < std::abs(best - prefer))) {
      best_score = score;
      best = t;
    }
  }
  return best;
}

std::optional<AlignedMetric> AlignMetric(const std::string& metric,
                                         const std::vector<LabelledScore>& rows,
                                         const AlignOptions& o) {
  AlignedMetric m;
  m.metric = metric;
  m.labels = static_cast<int64_t>(rows.size());
  for (const LabelledScore& r : rows) m.positives += r.human_positive ? 1 : 0;
  if (m.labels < 10 || m.positives == 0 || m.positives == m.labels) return std::nullopt;
  // Held-out verdicts: each fold's rows judged with the threshold fitted on the other folds.
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(o.seed);
  std::shuffle(order.begin(), order.end(), rng);
  const int folds = std::clamp(o.folds, 2, static_cast<int>(rows.size()));
  // Held-out verdicts under the default threshold and under the fitted ones.
  std::vector<LabelledScore> before(rows.size()), after(rows.size());
  for (int k = 0; k < folds; ++k) {
    std::vector<LabelledScore> train;
    for (size_t j = 0; j < order.size(); ++j) {
      if (static_cast<int>(j % folds) != k) train.push_back(rows[order[j]]);
    }
    const double t = FitThreshold(train, o.default_threshold);
    for (size_t j = 0; j < order.size(); ++j) {
      if (static_cast<int>(j % folds) != k) continue;
      const LabelledScore& r = rows[order[j]];
      before[order[j]] = {r.human_positive, r.judge >= o.default_threshold ? 1.0 : 0.0, ""};
      after[order[j]] = {r.human_positive, r.judge >= t ? 1.0 : 0.0, ""};
    }
  }
  m.accuracy_before = BalancedAccuracy(analysis::Confuse(before, 0.5));
  m.accuracy_after = BalancedAccuracy(analysis::Confuse(after, 0.5));
  m.kappa_before = analysis::CohensKappa(analysis::Confuse(before, 0.5));
  m.kappa_after = analysis::CohensKappa(analysis::Confuse(after, 0.5));
  m.auroc = analysis::Auroc(rows);
  m.gain = m.accuracy_after - m.accuracy_before;
  // Paired bootstrap of the gain: the same resampled rows read both ways.
  std::vector<double> gains;
  std::uniform_int_distribution<size_t> pick(0, rows.size() - 1);
  std::vector<LabelledScore> b(rows.size()), a(rows.size());
  for (int r = 0; r < o.resamples; ++r) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const size_t j = pick(rng);
      b[i] = before[j];
      a[i] = after[j];
    }
    gains.push_back(BalancedAccuracy(analysis::Confuse(a, 0.5)) -
                    BalancedAccuracy(analysis::Confuse(b, 0.5)));
  }
  std::sort(gains.begin(), gains.end());
  m.gain_low = gains[static_cast<size_t>(0.025 * static_cast<double>(gains.size() - 1))];
  m.gain_high = gains[static_cast<size_t>(0.975 * static_cast<double>(gains.size() - 1))];
  m.improves = m.gain_low > 0;
  m.threshold = FitThreshold(rows, o.default_threshold);
  return m;
}
}  // namespace

namespace {
// The question and answer of a results line's "inputs" (a conversation's last turn as the
// question tala shows), or nullopt when the line has none.
std::optional<std::pair<std::string, std::string>> InputsOf(const std::string& line) {
  const nlohmann::json in = InputsOfResultLine(line);
  std::string question = InputText(in, "user_input"), answer = InputText(in, "response");
  if (question.empty() || answer.empty()) return std::nullopt;
  return std::make_pair(question, answer);
}

// Up to `n` of a metric's labelled rows, half right and half wrong where both are there, in a
// seeded order.
std::vector<LabelledExample> PickExamples(std::vector<LabelledExample> all, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<LabelledExample> right, wrong, out;
  for (LabelledExample& e : all) (e.right ? right : wrong).push_back(std::move(e));
  const size_t want = static_cast<size_t>(n);
  size_t r = 0, w = 0;
  while (out.size() < want && (r < right.size() || w < wrong.size())) {
    if (r < right.size() && (r <= w || w == wrong.size())) {
      out.push_back(std::move(right[r++]));
    } else {
      out.push_back(std::move(wrong[w++]));
    }
  }
  return out;
}
}  // namespace

Result<Alignment> Align(const AlignOptions& o) {
  TALA_ASSIGN_OR_RETURN(
      io::ResultsFile results,
      io::ReadResults(o.results, io::EmptyResults::kError,
                      o.examples > 0 ? io::RawLines::kKeep : io::RawLines::kDrop));
  TALA_ASSIGN_OR_RETURN(io::Labels labels, io::ReadLabels(o.labels));
  std::set<std::string> wanted(o.metrics.begin(), o.metrics.end());
  std::set<std::string> labelled;
  for (const io::LabelRow& row : labels.rows) {
    for (const auto& [metric, v] : row.values) labelled.insert(metric);
  }
  std::map<std::string, const io::ResultRow*> by_id;
  for (const io::ResultRow& r : results.rows) by_id[r.id] = &r;
  Alignment out;
  std::string why;
  for (const std::string& metric : labelled) {
    if (!wanted.empty() && !wanted.count(metric)) continue;
    std::vector<LabelledScore> rows;
    std::vector<LabelledExample> candidates;
    for (const io::LabelRow& label : labels.rows) {
      auto v = label.values.find(metric);
      auto r = by_id.find(label.id);
      if (v == label.values.end() || r == by_id.end()) continue;
      auto s = r->second->scores.find(metric);
      if (s == r->second->scores.end() || !s->second) continue;
      rows.push_back({v->second >= 0.5, *s->second, ""});
      if (o.examples > 0) {
        if (auto texts = InputsOf(r->second->json)) {
          candidates.push_back({metric, texts->first, texts->second, v->second >= 0.5});
        }
      }
    }
    if (auto m = AlignMetric(metric, rows, o)) {
      for (LabelledExample& e : PickExamples(std::move(candidates), o.examples, o.seed)) {
        out.examples.push_back(std::move(e));
      }
      out.improves = out.improves || m->improves;
      out.metrics.push_back(std::move(*m));
    } else {
      why += fmt::format("{}{}: {} labels matching a scored row", why.empty() ? "" : "; ", metric,
                         rows.size());
    }
  }
  for (const std::string& metric : wanted) {
    if (!labelled.count(metric)) why += (why.empty() ? "" : "; ") + metric + ": no label";
  }
  if (out.metrics.empty()) {
    return InvalidArgument(
        "nothing to align: a metric needs 10 labels or more, both verdicts "
        "among them, on rows the results file scored" +
        (why.empty() ? std::string() : " (" + why + ")"));
  }
  return out;
}

std::string FormatAlignment(const Alignment& a) {
  std::string out;
  for (const AlignedMetric& m : a.metrics) {
    auto k = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "n/a"; };
    out += fmt::format(
        "{}: {} labels ({} right); threshold {:.3f} (was 0.7); held-out balanced accuracy {:.3f} "
        "-> "
        "{:.3f}, gain {:+.3f}, 95% [{:+.3f}, {:+.3f}]; kappa {} -> {}; AUROC {}: {}\n",
        m.metric, m.labels, m.positives, m.threshold, m.accuracy_before, m.accuracy_after, m.gain,
        m.gain_low, m.gain_high, k(m.kappa_before), k(m.kappa_after), k(m.auroc),
        m.improves ? "the fitted threshold agrees with people more" : "no gain on held-out folds");
  }
  return out;
}

std::string JudgeProfileJson(const Alignment& a, const AlignOptions& o) {
  nlohmann::ordered_json out = {
      {"tala_judge_profile", 1}, {"results", o.results}, {"labels", o.labels}};
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const AlignedMetric& m : a.metrics) {
    metrics[m.metric] = {{"threshold", m.threshold},
                         {"labels", m.labels},
                         {"held_out_balanced_accuracy_before", m.accuracy_before},
                         {"held_out_balanced_accuracy_after", m.accuracy_after},
                         {"gain_ci", {m.gain_low, m.gain_high}},
                         {"improves", m.improves}};
  }
  out["metrics"] = std::move(metrics);
  if (!a.examples.empty()) {
    nlohmann::ordered_json examples = nlohmann::ordered_json::array();
    for (const LabelledExample& e : a.examples) {
      examples.push_back({{"metric", e.metric},
                          {"question", e.question},
                          {"answer", e.answer},
                          {"verdict", e.right ? "right" : "wrong"}});
    }
    out["examples"] = std::move(examples);
  }
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Result<JudgeProfile> ReadJudgeProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return IoError("--judge-profile " + path + ": cannot read it");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("tala_judge_profile") || !j.contains("metrics") ||
      !j["metrics"].is_object()) {
    return DataError({path, 1, 0, "tala_judge_profile"},
                     "not a judge profile (tala align writes one)");
  }
  JudgeProfile p;
  for (const auto& [metric, entry] : j["metrics"].items()) {
    if (!entry.is_object() || !entry.contains("threshold") || !entry["threshold"].is_number()) {
      return DataError({path, 1, 0, "metrics." + metric + ".threshold"}, "expected a number");
    }
    p.thresholds.emplace_back(metric, entry["threshold"].get<double>());
  }
  if (j.contains("examples")) {
    if (!j["examples"].is_array()) {
      return DataError({path, 1, 0, "examples"}, "expected a list of labelled rows");
    }
    for (size_t i = 0; i < j["examples"].size(); ++i) {
      const nlohmann::json& e = j["examples"][i];
      const std::string where = "examples[" + std::to_string(i) + "]";
      for (const char* key : {"metric", "question", "answer", "verdict"}) {
        if (!e.is_object() || !e.contains(key) || !e[key].is_string()) {
          return DataError({path, 1, 0, where + "." + key}, "expected a text");
        }
      }
      const std::string verdict = e["verdict"].get<std::string>();
      if (verdict != "right" && verdict != "wrong") {
        return DataError({path, 1, 0, where + ".verdict"}, "expected \"right\" or \"wrong\"");
      }
      p.examples.push_back({e["metric"].get<std::string>(), e["question"].get<std::string>(),
                            e["answer"].get<std::string>(), verdict == "right"});
    }
  }
  p.digest = Sha256Hex(text).substr(0, 16);
  return p;
}

Result<std::string> ApplyJudgeProfile(const std::string& path,
                                      std::map<std::string, double>& thresholds,
                                      std::vector<LabelledExample>* examples) {
  TALA_ASSIGN_OR_RETURN(JudgeProfile profile, ReadJudgeProfile(path));
  for (const auto& [metric, threshold] : profile.thresholds) thresholds.emplace(metric, threshold);
  if (examples) *examples = std::move(profile.examples);
  return profile.digest;
}

}  // namespace tala
