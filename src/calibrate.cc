#include "tala/calibrate.h"

#include <fmt/format.h>

#include "analysis/judge_agreement.h"
#include "io/readers/labelled_values.h"

namespace tala {

namespace {
std::string Num(const std::optional<double>& v) {
  return v ? fmt::format("{:.4f}", *v) : std::string("null");
}
}  // namespace

Result<Calibration> Calibrate(const CalibrateOptions& o) {
  TALA_ASSIGN_OR_RETURN(io::LabelledValues values,
                        io::ReadLabelledValues(o.file, {.human_path = o.human,
                                                        .judge_path = o.judge,
                                                        .group_path = o.pair_by,
                                                        .positive = o.positive}));
  Calibration c;
  c.judge_path = o.judge;
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
  return s;
}

std::string CalibrationJson(const Calibration& c) {
  return fmt::format(
      "{{\"n\":{},\"undefined_judge\":{},\"missing_human\":{},\"threshold\":{:g},"
      "\"raw_agreement\":{},\"kappa\":{},\"confusion\":{{\"tp\":{},\"fp\":{},\"tn\":{},"
      "\"fn\":{}}},\"auroc\":{},\"best_threshold\":{},\"best_threshold_accuracy\":{},"
      "\"pairwise_accuracy\":{},\"pairs\":{}}}\n",
      c.n, c.undefined_judge, c.missing_human, c.threshold, Num(c.raw_agreement), Num(c.kappa),
      c.true_positive, c.false_positive, c.true_negative, c.false_negative, Num(c.auroc),
      Num(c.best_threshold), Num(c.best_threshold_accuracy), Num(c.pairwise_accuracy), c.pairs);
}

}  // namespace tala
