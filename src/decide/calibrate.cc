#include "tala/calibrate.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <map>
#include <set>

#include "analysis/judge_agreement.h"
#include "io/readers/labelled_values.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "io/writers/json_text.h"

namespace tala {

namespace {
std::string Num(const std::optional<double>& v) {
  return v ? fmt::format("{:.4f}", *v) : std::string("null");
}
std::string Texts(const std::vector<std::string>& list) {
  std::string out = "[";
  for (const std::string& t : list) {
    if (out.size() > 1) out += ',';
    io::AppendJsonString(out, t);
  }
  return out + "]";
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
  // Reviewers, and how they agree on the rows several of them labelled.
  std::set<std::string> reviewers;
  for (const io::LabelRow& label : labels.rows) {
    for (const io::LabelReview& r : label.reviews) {
      if (!r.labeller.empty() && r.values.count(o.metric)) reviewers.insert(r.labeller);
    }
  }
  if (!o.reviewer.empty() && !reviewers.count(o.reviewer)) {
    return InvalidArgument("--reviewer " + o.reviewer + ": no label of " + o.metric + " in " +
                           o.labels + " has that labeller");
  }
  c.reviewers.assign(reviewers.begin(), reviewers.end());
  c.reviewer = o.reviewer;
  std::vector<std::vector<int>> units;
  analysis::Confusion between;  // two reviewers: the first as "human", the second as "judge"
  long agree = 0, compared = 0;
  for (const io::LabelRow& label : labels.rows) {
    std::map<std::string, bool> said;  // reviewer -> yes at the threshold
    for (const io::LabelReview& r : label.reviews) {
      auto v = r.values.find(o.metric);
      if (v != r.values.end()) said[r.labeller] = v->second >= o.threshold;
    }
    if (said.size() < 2) continue;
    ++c.reviewed_by_several;
    std::vector<int> unit;
    int yes = 0;
    for (const auto& [who, positive] : said) {
      unit.push_back(positive ? 1 : 0);
      yes += positive ? 1 : 0;
    }
    units.push_back(unit);
    const bool all_agree = yes == 0 || yes == static_cast<int>(said.size());
    ++compared;
    agree += all_agree ? 1 : 0;
    if (!all_agree) c.disagreements.push_back(label.id);
    if (reviewers.size() == 2 && said.size() == 2) {
      const bool a = said.at(c.reviewers[0]), b = said.at(c.reviewers[1]);
      ++(a ? (b ? between.true_positive : between.false_negative)
           : (b ? between.false_positive : between.true_negative));
    }
  }
  if (compared > 0) {
    c.reviewer_agreement = static_cast<double>(agree) / static_cast<double>(compared);
    c.reviewer_alpha = analysis::KrippendorffAlpha(units);
  }
  if (between.n() > 0) c.reviewer_kappa = analysis::CohensKappa(between);
  for (const io::LabelRow& label : labels.rows) {
    auto row = by_id.find(label.id);
    if (row == by_id.end()) {
      ++c.unmatched_labels;
      continue;
    }
    // The human value: the named reviewer's, else the majority of the reviewers' yes/no.
    std::optional<bool> human;
    int yes = 0, votes = 0;
    for (const io::LabelReview& r : label.reviews) {
      if (!o.reviewer.empty() && r.labeller != o.reviewer) continue;
      auto v = r.values.find(o.metric);
      if (v == r.values.end()) continue;
      ++votes;
      yes += v->second >= o.threshold ? 1 : 0;
    }
    if (votes > 0 && 2 * yes != votes) human = 2 * yes > votes;
    if (votes > 0 && 2 * yes == votes) ++c.reviewer_ties;
    if (!human) {
      ++values.skipped_missing_human;
    } else {
      auto judge = row->second->scores.find(o.metric);
      std::optional<double> j;
      if (judge != row->second->scores.end()) j = judge->second;
      values.rows.push_back({*human, j, ""});
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
  if (c.reviewed_by_several > 0) {
    std::string who;
    for (const std::string& r : c.reviewers) who += (who.empty() ? "" : ", ") + r;
    s += fmt::format(
        "\nreviewers ({}): {} rows labelled by two or more; they agree on {}; Cohen's kappa "
        "{}; Krippendorff's alpha {}\n",
        who, c.reviewed_by_several, Num(c.reviewer_agreement), Num(c.reviewer_kappa),
        Num(c.reviewer_alpha));
    s += c.reviewer.empty()
             ? fmt::format(
                   "the human value above is the reviewers' majority ({} ties left out): "
                   "set the judge's kappa beside theirs\n",
                   c.reviewer_ties)
             : fmt::format("the human value above is {}'s\n", c.reviewer);
    if (!c.disagreements.empty()) {
      std::string ids;
      for (size_t i = 0; i < c.disagreements.size() && i < 20; ++i) {
        ids += (i ? ", " : "") + c.disagreements[i];
      }
      if (c.disagreements.size() > 20) {
        ids += fmt::format(" and {} more", c.disagreements.size() - 20);
      }
      s += fmt::format("reviewers disagree on {} rows, for a second look: {}\n",
                       c.disagreements.size(), ids);
    }
  }
  return s;
}

std::string CalibrationJson(const Calibration& c) {
  return fmt::format(
      "{{\"n\":{},\"undefined_judge\":{},\"missing_human\":{},\"threshold\":{:g},"
      "\"raw_agreement\":{},\"kappa\":{},\"confusion\":{{\"tp\":{},\"fp\":{},\"tn\":{},"
      "\"fn\":{}}},\"auroc\":{},\"best_threshold\":{},\"best_threshold_accuracy\":{},"
      "\"pairwise_accuracy\":{},\"pairs\":{},\"claims\":{},\"claims_agreed\":{},"
      "\"claims_kappa\":{},\"unmatched_labels\":{},\"reviewers\":{},"
      "\"reviewed_by_several\":{},\"reviewer_ties\":{},\"reviewer_agreement\":{},"
      "\"reviewer_kappa\":{},\"reviewer_alpha\":{},\"disagreements\":{}}}\n",
      c.n, c.undefined_judge, c.missing_human, c.threshold, Num(c.raw_agreement), Num(c.kappa),
      c.true_positive, c.false_positive, c.true_negative, c.false_negative, Num(c.auroc),
      Num(c.best_threshold), Num(c.best_threshold_accuracy), Num(c.pairwise_accuracy), c.pairs,
      c.claims, c.claims_agreed, Num(c.claims_kappa), c.unmatched_labels, Texts(c.reviewers),
      c.reviewed_by_several, c.reviewer_ties, Num(c.reviewer_agreement), Num(c.reviewer_kappa),
      Num(c.reviewer_alpha), Texts(c.disagreements));
}

}  // namespace tala
