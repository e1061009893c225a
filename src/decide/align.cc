#include "tala/align.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "analysis/folds.h"
#include "analysis/judge_agreement.h"
#include "analysis/logistic_fit.h"
#include "core/hash.h"
#include "decide/result_inputs.h"
#include "engine/offline_blend_readings.h"
#include "fs/file_digest.h"
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
  std::vector<double> scores, positives, negatives;
  for (const LabelledScore& r : rows) {
    scores.push_back(r.judge);
    (r.human_positive ? positives : negatives).push_back(r.judge);
  }
  std::sort(scores.begin(), scores.end());
  scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
  std::sort(positives.begin(), positives.end());
  std::sort(negatives.begin(), negatives.end());
  std::vector<double> candidates = {prefer};
  if (!scores.empty()) {
    candidates.push_back(scores.front() - 1e-9);
    candidates.push_back(scores.back() + 1e-9);
  }
  for (size_t i = 1; i < scores.size(); ++i) candidates.push_back((scores[i - 1] + scores[i]) / 2);
  // A row is called right at and above t: the right shares counted from the sorted scores.
  auto balanced = [&](double t) {
    if (positives.empty() || negatives.empty()) return 0.5;
    const auto below = [t](const std::vector<double>& v) {
      return static_cast<double>(std::lower_bound(v.begin(), v.end(), t) - v.begin());
    };
    const double p = static_cast<double>(positives.size());
    const double n = static_cast<double>(negatives.size());
    return 0.5 * ((p - below(positives)) / p + below(negatives) / n);
  };
  double best = prefer;
  double best_score = -1;
  for (double t : candidates) {
    const double score = balanced(t);
    if (score > best_score + 1e-12 ||
        (std::abs(score - best_score) <= 1e-12 && std::abs(t - prefer) < std::abs(best - prefer))) {
      best_score = score;
      best = t;
    }
  }
  return best;
}

// The 95% paired bootstrap interval of the balanced accuracy of `a` less that of `b` (the same
// rows' held-out verdicts read two ways).
std::pair<double, double> GainInterval(const std::vector<LabelledScore>& a,
                                       const std::vector<LabelledScore>& b, int resamples,
                                       std::mt19937_64& rng) {
  std::vector<double> gains;
  std::uniform_int_distribution<size_t> pick(0, a.size() - 1);
  std::vector<LabelledScore> ra(a.size()), rb(b.size());
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < a.size(); ++i) {
      const size_t j = pick(rng);
      ra[i] = a[j];
      rb[i] = b[j];
    }
    gains.push_back(BalancedAccuracy(analysis::Confuse(ra, 0.5)) -
                    BalancedAccuracy(analysis::Confuse(rb, 0.5)));
  }
  std::sort(gains.begin(), gains.end());
  return {gains[static_cast<size_t>(0.025 * static_cast<double>(gains.size() - 1))],
          gains[static_cast<size_t>(0.975 * static_cast<double>(gains.size() - 1))]};
}

// `after` gets the held-out verdicts of the fitted threshold, for the blend's refit to be
// weighed against.
std::optional<AlignedMetric> AlignMetric(const std::string& metric,
                                         const std::vector<LabelledScore>& rows,
                                         const AlignOptions& o, std::vector<LabelledScore>& before,
                                         std::vector<LabelledScore>& after) {
  AlignedMetric m;
  m.metric = metric;
  m.labels = static_cast<int64_t>(rows.size());
  for (const LabelledScore& r : rows) m.positives += r.human_positive ? 1 : 0;
  if (m.labels < 10 || m.positives == 0 || m.positives == m.labels) return std::nullopt;
  // Held-out verdicts: each fold's rows judged with the threshold fitted on the other folds.
  std::mt19937_64 rng(o.seed);
  const analysis::Folds folds(rows.size(), o.folds, rng);
  // Held-out verdicts under the default threshold and under the fitted ones.
  before.assign(rows.size(), {});
  after.assign(rows.size(), {});
  for (int k = 0; k < folds.count(); ++k) {
    const double t = FitThreshold(folds.Outside(rows, k), o.default_threshold);
    for (size_t i : folds.Inside(k)) {
      const LabelledScore& r = rows[i];
      before[i] = {r.human_positive, r.judge >= o.default_threshold ? 1.0 : 0.0, ""};
      after[i] = {r.human_positive, r.judge >= t ? 1.0 : 0.0, ""};
    }
  }
  m.accuracy_before = BalancedAccuracy(analysis::Confuse(before, 0.5));
  m.accuracy_after = BalancedAccuracy(analysis::Confuse(after, 0.5));
  m.kappa_before = analysis::CohensKappa(analysis::Confuse(before, 0.5));
  m.kappa_after = analysis::CohensKappa(analysis::Confuse(after, 0.5));
  m.auroc = analysis::Auroc(rows);
  m.gain = m.accuracy_after - m.accuracy_before;
  std::tie(m.gain_low, m.gain_high) = GainInterval(after, before, o.resamples, rng);
  m.improves = m.gain_low > 0;
  m.threshold = FitThreshold(rows, o.default_threshold);
  return m;
}

// The refit of the blend that scores `m` (its rows `blend_rows`, in the labelled rows' order):
// held-out on the same folds as the threshold, each fold's weights (and their pull) and
// threshold fitted on the other folds; kept when it agrees with people better than the fitted
// threshold alone. Then the metric's "after" is the refit's.
void AlignBlend(AlignedMetric& m, const BlendSpec& spec,
                const std::vector<analysis::BlendRow>& blend_rows,
                const std::vector<LabelledScore>& before,
                const std::vector<LabelledScore>& threshold_only, const AlignOptions& o) {
  AlignedBlend b;
  b.features = spec.features;
  for (const analysis::BlendRow& r : blend_rows) b.rows += r.vectors.empty() ? 0 : 1;
  std::mt19937_64 rng(o.seed);  // the threshold's folds
  const analysis::Folds folds(blend_rows.size(), o.folds, rng);
  auto scored = [](const std::vector<analysis::BlendRow>& rows, const std::vector<double>& w) {
    std::vector<LabelledScore> out;
    for (const analysis::BlendRow& r : rows) {
      out.push_back({r.positive, analysis::BlendRowScore(w, r), ""});
    }
    return out;
  };
  std::vector<LabelledScore> held(blend_rows.size()), built_in(blend_rows.size()),
      refit(blend_rows.size());
  for (int k = 0; k < folds.count(); ++k) {
    const std::vector<analysis::BlendRow> train = folds.Outside(blend_rows, k);
    const analysis::BlendChoice choice =
        analysis::RefitBlend(train, spec.built_in, 3, o.seed + static_cast<uint64_t>(k) + 1);
    const double t = FitThreshold(scored(train, choice.weights), o.default_threshold);
    for (size_t i : folds.Inside(k)) {
      const analysis::BlendRow& r = blend_rows[i];
      const double score = analysis::BlendRowScore(choice.weights, r);
      held[i] = {r.positive, score >= t ? 1.0 : 0.0, ""};
      refit[i] = {r.positive, score, ""};
      built_in[i] = {r.positive, analysis::BlendRowScore(spec.built_in, r), ""};
    }
  }
  b.accuracy = BalancedAccuracy(analysis::Confuse(held, 0.5));
  b.threshold_only_accuracy = BalancedAccuracy(analysis::Confuse(threshold_only, 0.5));
  b.kappa = analysis::CohensKappa(analysis::Confuse(held, 0.5));
  b.auroc_before = analysis::Auroc(built_in);
  b.auroc_after = analysis::Auroc(refit);
  std::tie(b.gain_low, b.gain_high) = GainInterval(held, threshold_only, o.resamples, rng);
  b.kept = b.gain_low > 0;
  const analysis::BlendChoice all =
      analysis::RefitBlend(blend_rows, spec.built_in, o.folds, o.seed);
  b.pull = all.lambda;
  b.weights = all.weights;
  b.threshold = FitThreshold(scored(blend_rows, all.weights), o.default_threshold);
  if (b.kept && all.lambda != 0) {
    m.threshold = b.threshold;
    m.accuracy_after = b.accuracy;
    m.kappa_after = b.kappa;
    m.gain = m.accuracy_after - m.accuracy_before;
    std::tie(m.gain_low, m.gain_high) = GainInterval(held, before, o.resamples, rng);
    m.improves = m.gain_low > 0;
  } else {
    b.kept = false;
  }
  m.blend = std::move(b);
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

namespace {
// The dataset to read the labelled rows from again for a blend refit: --data, else the one the
// results' manifest names; "" with the reason in `note` when there is none to read, or it is not
// the file the results were scored from.
std::string BlendDataset(const io::ResultsFile& results, const AlignOptions& o, std::string& note) {
  if (!results.manifest) {
    note = "the results file has no manifest naming its dataset: give --data";
    return "";
  }
  const io::RunManifest& m = *results.manifest;
  std::string path = o.data.empty() ? m.dataset : o.data;
  // A relative path in the manifest is where tala eval ran; beside the results file is the
  // next guess (the SHA-256 below tells a wrong one).
  if (o.data.empty() && !path.empty() && path != "-" && std::filesystem::path(path).is_relative() &&
      !std::filesystem::is_regular_file(path)) {
    const std::filesystem::path beside = std::filesystem::path(o.results).parent_path() / path;
    if (std::filesystem::is_regular_file(beside)) path = beside.string();
  }
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path)) {
    note = "the dataset the results were scored from (" + (path.empty() ? "-" : path) +
           ") is not there: give --data";
    return "";
  }
  if (!m.dataset_sha256.empty()) {
    auto digest = fs::FileSha256(path);
    if (!digest || *digest != m.dataset_sha256) {
      note = path + " is not the dataset the results were scored from (its SHA-256 differs)";
      return "";
    }
  }
  return path;
}

// The labelled rows as the blend reads them, in `ids`' order: each row's feature vectors from
// `readings`, or its results score as it stands where no weight changes it. "" when the
// built-in weights give the results' scores, else why they do not.
std::string BlendRowsOf(const std::vector<std::string>& ids, const std::vector<LabelledScore>& rows,
                        const BlendReadings& readings, const BlendSpec& spec,
                        std::vector<analysis::BlendRow>& out) {
  int64_t read = 0, differ = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    analysis::BlendRow r;
    r.positive = rows[i].human_positive;
    r.fixed = rows[i].judge;
    auto it = readings.rows.find(ids[i]);
    if (it != readings.rows.end()) r.vectors = it->second.vectors;
    if (!r.vectors.empty()) {
      ++read;
      if (std::abs(analysis::BlendRowScore(spec.built_in, r) - rows[i].judge) > 1e-5) ++differ;
    }
    out.push_back(std::move(r));
  }
  if (read < 10) {
    return fmt::format("{} labelled rows read through the blend (conversations: {}; unread: {}{})",
                       read, readings.conversations, readings.unread,
                       readings.why_unread.empty() ? "" : ", " + readings.why_unread);
  }
  if (differ > 0) {
    return fmt::format(
        "{} of {} labelled rows score otherwise in the results than the built-in weights read "
        "them (scored by another tala, or with a judge profile): score the data again without "
        "a profile",
        differ, read);
  }
  return "";
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
  const bool offline = results.manifest && results.manifest->judge == "offline";
  std::string data_note;
  const std::string data = offline ? BlendDataset(results, o, data_note) : "";
  for (const std::string& metric : labelled) {
    if (!wanted.empty() && !wanted.count(metric)) continue;
    std::vector<LabelledScore> rows;
    std::vector<std::string> ids;
    std::vector<LabelledExample> candidates;
    for (const io::LabelRow& label : labels.rows) {
      auto v = label.values.find(metric);
      auto r = by_id.find(label.id);
      if (v == label.values.end() || r == by_id.end()) continue;
      auto s = r->second->scores.find(metric);
      if (s == r->second->scores.end() || !s->second) continue;
      rows.push_back({v->second >= 0.5, *s->second, ""});
      ids.push_back(label.id);
      if (o.examples > 0) {
        if (auto texts = InputsOf(r->second->json)) {
          candidates.push_back({metric, texts->first, texts->second, v->second >= 0.5});
        }
      }
    }
    std::vector<LabelledScore> before, threshold_only;
    if (auto m = AlignMetric(metric, rows, o, before, threshold_only)) {
      Result<BlendSpec> spec = OfflineBlendOf(metric);
      if (offline && spec) {
        m->blend_note = data_note;
        if (!data.empty()) {
          std::set<std::string> wanted_ids(ids.begin(), ids.end());
          Result<BlendReadings> readings = ReadOfflineBlend(data, wanted_ids, *spec);
          std::vector<analysis::BlendRow> blend_rows;
          if (!readings) {
            m->blend_note = readings.error().ToString();
          } else if (std::string off = BlendRowsOf(ids, rows, *readings, *spec, blend_rows);
                     !off.empty()) {
            m->blend_note = off;
          } else {
            AlignBlend(*m, *spec, blend_rows, before, threshold_only, o);
          }
        }
      }
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
        m.improves ? (m.blend && m.blend->kept ? "the refitted blend agrees with people more"
                                               : "the fitted threshold agrees with people more")
                   : "no gain on held-out folds");
    if (m.blend) {
      const AlignedBlend& b = *m.blend;
      out += fmt::format(
          "  {}'s blend refitted on {} labelled rows read again: held-out balanced accuracy {:.3f} "
          "(the fitted threshold alone: {:.3f}), over it {:+.3f}, 95% [{:+.3f}, {:+.3f}]; AUROC "
          "{} -> {}; {}\n",
          m.metric, b.rows, b.accuracy, b.threshold_only_accuracy,
          b.accuracy - b.threshold_only_accuracy, b.gain_low, b.gain_high, k(b.auroc_before),
          k(b.auroc_after),
          !b.kept      ? std::string("the built-in weights stay")
          : m.improves ? fmt::format("the profile keeps the refitted weights (pull {:g})", b.pull)
                       : fmt::format("the profile keeps the refitted weights (pull {:g}), but "
                                     "they do not beat the default reading at 0.7 by a clear "
                                     "margin (above)",
                                     b.pull));
    } else if (!m.blend_note.empty()) {
      out += "  " + m.metric + "'s blend not refitted: " + m.blend_note + "\n";
    }
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
    if (m.blend && m.blend->kept) {
      metrics[m.metric]["blend"] = {
          {"features", m.blend->features},
          {"weights", m.blend->weights},
          {"pull", m.blend->pull},
          {"labelled_rows_read", m.blend->rows},
          {"held_out_auroc_built_in", m.blend->auroc_before.value_or(0.5)},
          {"held_out_auroc_refitted", m.blend->auroc_after.value_or(0.5)}};
    }
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

namespace {
// A metric's refitted blend in a profile: its features must be the ones this tala's offline
// judge reads, in its order, and its weights one finite number more (the bias).
Status ReadBlend(const std::string& path, const std::string& metric, const nlohmann::json& j,
                 OfflineBlend& blend) {
  const std::string where = "metrics." + metric + ".blend";
  Result<BlendSpec> spec = OfflineBlendOf(metric);
  if (!spec) return DataError({path, 1, 0, where}, spec.error().message());
  if (!j.is_object() || !j.contains("features") || !j["features"].is_array() ||
      !j.contains("weights") || !j["weights"].is_array()) {
    return DataError({path, 1, 0, where}, "expected {\"features\": [...], \"weights\": [...]}");
  }
  std::vector<std::string> features;
  for (const nlohmann::json& f : j["features"]) {
    features.push_back(f.is_string() ? f.get<std::string>() : f.dump());
  }
  if (features != spec->features) {
    return DataError({path, 1, 0, where + ".features"},
                     "not the features this tala's offline judge reads for " + spec->metric +
                         " (the profile is from another version): refit it with tala align");
  }
  std::vector<double> weights;
  for (const nlohmann::json& w : j["weights"]) {
    // A logistic's weight past a million reads nothing a smaller one would not, and sums of
    // such weights can overflow to inf - inf.
    if (!w.is_number() || !std::isfinite(w.get<double>()) || std::abs(w.get<double>()) > 1e6) {
      return DataError({path, 1, 0, where + ".weights"},
                       "expected numbers between -1,000,000 and 1,000,000");
    }
    weights.push_back(w.get<double>());
  }
  if (weights.size() != features.size() + 1) {
    return DataError({path, 1, 0, where + ".weights"},
                     fmt::format("expected {} numbers (the bias, then one per feature), got {}",
                                 features.size() + 1, weights.size()));
  }
  WeightsOf(blend, *spec) = std::move(weights);
  return OkStatus();
}
}  // namespace

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
    if (entry.contains("blend")) {
      TALA_RETURN_IF_ERROR(ReadBlend(path, metric, entry["blend"], p.blend));
    }
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
                                      std::vector<LabelledExample>* examples, OfflineBlend* blend) {
  TALA_ASSIGN_OR_RETURN(JudgeProfile profile, ReadJudgeProfile(path));
  for (const auto& [metric, threshold] : profile.thresholds) thresholds.emplace(metric, threshold);
  if (examples) *examples = std::move(profile.examples);
  if (blend) *blend = std::move(profile.blend);
  return profile.digest;
}

}  // namespace tala
