#include "tala/calibrate.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <map>

#include "analysis/judge_agreement.h"
#include "io/readers/labelled_values.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"

namespace tala {

namespace {
std::string Num(const std::optional<double>& v) {
  return v ? fmt::format("{:.4f}", *v) : std::string("null");
}
}  // namespace

namespace {
// The judge's claim verdicts (supported or not) in a results line; empty when it has none.
std::vector<bool> JudgeClaims(const std::string& json) {
  std::vector<bool> out;
  simdjson::dom::parser parser;
  simdjson::dom::array claims;
  if (parser.parse(json).at_pointer("/verdicts/response_claims").get(claims)) return out;
  for (simdjson::dom::element c : claims) {
    bool supported = false;
    if (c["supported"].get(supported)) supported = false;
    out.push_back(supported);
  }
  return out;
}

// Labels joined with a results file by id: rows for the row-level figures, and the claim counts.
Result<io::LabelledValues> JoinLabels(const CalibrateOptions& o, Calibration& c) {
  if (o.metric.empty()) return InvalidArgument("--labels needs --metric (the labelled metric)");
  TALA_ASSIGN_OR_RETURN(io::Labels labels, io::ReadLabels(o.labels));
  TALA_ASSIGN_OR_RETURN(io::ResultsFile results,
                        io::ReadResults(o.file, io::EmptyResults::kError, io::RawLines::kKeep));
  TALA_RETURN_IF_ERROR(io::CheckLabelRange(labels, o.metric, results, o.labels));
  std::map<std::string, const io::ResultRow*> by_id;
  for (const io::ResultRow& row : results.rows) by_id[row.id] = &row;
  io::LabelledValues values;
  std::vector<analysis::LabelledScore> claims;
  for (const io::LabelRow& label : labels.rows) {
    auto row = by_id.find(label.id);
    if (row == by_id.end()) {
      ++c.unmatched_labels;
      continue;
    }
    auto human = label.values.find(o.metric);
    if (human == label.values.end()) {
      ++values.skipped_missing_human;
    } else {
      auto judge = row->second->scores.find(o.metric);
      std::optional<double> j;
      if (judge != row->second->scores.end()) j = judge->second;
      values.rows.push_back({human->second >= o.threshold, j, ""});
    }
    if (label.claims.empty()) continue;
    std::vector<bool> verdicts = JudgeClaims(row->second->json);
    for (size_t i = 0; i < label.claims.size() && i < verdicts.size(); ++i) {
      if (!label.claims[i]) continue;
      bool person = *label.claims[i];
      claims.push_back({person, verdicts[i] ? 1.0 : 0.0, ""});
      c.claims_agreed += person == verdicts[i] ? 1 : 0;
      c.judge_supported_human_not += verdicts[i] && !person ? 1 : 0;
      c.judge_unsupported_human_supported += !verdicts[i] && person ? 1 : 0;
    }
  }
  c.claims = static_cast<long>(claims.size());
  if (!claims.empty()) c.claims_kappa = analysis::CohensKappa(analysis::Confuse(claims, 0.5));
  return values;
}
}  // namespace

namespace {
// The row-level figures over human/judge pairs.
Result<Calibration> Figures(const CalibrateOptions& o, const io::LabelledValues& values,
                            Calibration c) {
  c.judge_path = o.labels.empty() ? o.judge : "scores." + o.metric;
  c.threshold = o.threshold;
  c.missing_human = values.skipped_missing_human;
  std::vector<analysis::LabelledScore> rows;
  for (const io::LabelledRow& r : values.rows) {
    if (!r.judge) {
      ++c.undefined_judge;
      continue;
    }
    c.numeric = c.numeric || (*r.judge != 0.0 && *r.judge != 1.0);
    rows.push_back({r.human_positive, *r.judge, r.group});
  }
  if (rows.empty()) return NotFound("no row has both a human label and a judge value");
  analysis::Confusion confusion = analysis::Confuse(rows, o.threshold);
  c.n = confusion.n();
  c.true_positive = confusion.true_positive;
  c.false_positive = confusion.false_positive;
  c.true_negative = confusion.true_negative;
  c.false_negative = confusion.false_negative;
  c.raw_agreement = analysis::RawAgreement(confusion);
  c.kappa = analysis::CohensKappa(confusion);
  if (c.numeric) {
    c.auroc = analysis::Auroc(rows);
    analysis::BestThreshold best = analysis::BestThresholdAccuracy(rows);
    c.best_threshold = best.threshold;
    c.best_threshold_accuracy = best.accuracy;
  }
  if (!o.pair_by.empty()) {
    if (auto pairwise = analysis::PairwiseAccuracy(rows)) {
      c.pairwise_accuracy = pairwise->accuracy;
      c.pairs = pairwise->pairs;
      c.groups = pairwise->groups;
    }
  }
  return c;
}
}  // namespace

Result<Calibration> Calibrate(const CalibrateOptions& o) {
  Calibration c;
  if (!o.labels.empty()) {
    TALA_ASSIGN_OR_RETURN(io::LabelledValues joined, JoinLabels(o, c));
    return Figures(o, joined, c);
  }
  TALA_ASSIGN_OR_RETURN(io::LabelledValues values,
                        io::ReadLabelledValues(o.file, {.human_path = o.human,
                                                        .judge_path = o.judge,
                                                        .group_path = o.pair_by,
                                                        .positive = o.positive}));
  return Figures(o, values, c);
}

std::string FormatCalibration(const Calibration& c) {
  std::string s = fmt::format(
      "n: {} rows ({} with an undefined judge value left out, {} without a human label)\n", c.n,
      c.undefined_judge, c.missing_human);
  s += fmt::format("judge positive when {} >= {:g}\n", c.judge_path, c.threshold);
  s += fmt::format("raw agreement: {}\nCohen's kappa: {}\n", Num(c.raw_agreement), Num(c.kappa));
  s += "\nconfusion matrix      judge +   judge -\n";
  s += fmt::format("  human +            {:>7}   {:>7}\n", c.true_positive, c.false_negative);
  s += fmt::format("  human -            {:>7}   {:>7}\n", c.false_positive, c.true_negative);
  if (c.numeric) {
    s += fmt::format("\nAUROC: {}\nbest-threshold accuracy: {} at threshold {}\n", Num(c.auroc),
                     Num(c.best_threshold_accuracy), Num(c.best_threshold));
  }
  if (c.pairwise_accuracy) {
    s += fmt::format("pairwise accuracy: {} over {} pairs in {} groups (ties count half)\n",
                     Num(c.pairwise_accuracy), c.pairs, c.groups);
  }
  if (c.claims > 0) {
    s += fmt::format(
        "\nclaims: people agree with {} of the judge's {} verdicts they labelled ({:.1f}%), "
        "kappa {}; judge supported but people not: {}; people supported but judge not: {}\n",
        c.claims_agreed, c.claims, 100.0 * c.claims_agreed / c.claims, Num(c.claims_kappa),
        c.judge_supported_human_not, c.judge_unsupported_human_supported);
  }
  if (c.unmatched_labels > 0) {
    s += fmt::format("{} labelled rows are not in the results file (left out)\n",
                     c.unmatched_labels);
  }
  return s;
}

std::string CalibrationJson(const Calibration& c) {
  return fmt::format(
      "{{\"n\":{},\"undefined_judge\":{},\"missing_human\":{},\"threshold\":{:g},"
      "\"raw_agreement\":{},\"kappa\":{},\"confusion\":{{\"tp\":{},\"fp\":{},\"tn\":{},"
      "\"fn\":{}}},\"auroc\":{},\"best_threshold\":{},\"best_threshold_accuracy\":{},"
      "\"pairwise_accuracy\":{},\"pairs\":{},\"claims\":{},\"claims_agreed\":{},"
      "\"claims_kappa\":{},\"unmatched_labels\":{}}}\n",
      c.n, c.undefined_judge, c.missing_human, c.threshold, Num(c.raw_agreement), Num(c.kappa),
      c.true_positive, c.false_positive, c.true_negative, c.false_negative, Num(c.auroc),
      Num(c.best_threshold), Num(c.best_threshold_accuracy), Num(c.pairwise_accuracy), c.pairs,
      c.claims, c.claims_agreed, Num(c.claims_kappa), c.unmatched_labels);
}

}  // namespace tala
