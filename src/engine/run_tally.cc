#include "engine/run_tally.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "analysis/intervals.h"

namespace tala {

namespace {
// At most this many values per metric are kept for the median, sd and interval: beyond it a
// seeded reservoir sample stands in, so memory stays bounded however many rows a run has.
constexpr size_t kValuesKept = 100000;

// A failure reason without the row's place in it: "judge python:fn:7: field ..." and the same
// failure on row 8 are one reason. A place is a run of digits between colons (file:LINE: or
// file:LINE:COL:), which is how every located error prints.
std::string WithoutPlace(const std::string& reason) {
  std::string out;
  out.reserve(reason.size());
  for (size_t i = 0; i < reason.size(); ++i) {
    if (reason[i] == ':') {
      size_t j = i + 1;
      while (j < reason.size() && std::isdigit(static_cast<unsigned char>(reason[j]))) ++j;
      if (j > i + 1 && j < reason.size() && reason[j] == ':') {
        i = j - 1;  // drop ":digits", keep the closing colon
        continue;
      }
    }
    out += reason[i];
  }
  return out;
}
}  // namespace

RunTally::RunTally(RunSummary& summary, analysis::DiagnosisRule rule)
    : summary_(summary), rule_(std::move(rule)) {
  values_.resize(summary.metrics.size());
  seen_.resize(summary.metrics.size());
}

void RunTally::CountDiagnosis(analysis::Diagnosis d, const std::string& id,
                              const std::map<std::string, double>& scores, std::string question,
                              std::string reason) {
  ++diagnoses_[d];
  std::string metric = analysis::DecidingMetric(d);
  if (metric.empty()) return;
  auto it = scores.find(metric);
  failing_.push_back(
      {d,
       {id, std::string(analysis::DiagnosisName(d)), it != scores.end() ? it->second : 0,
        std::move(question), std::move(reason)}});
}

namespace {
std::map<std::string, double> DefinedScores(const std::vector<io::RowScore>& row) {
  std::map<std::string, double> scores;
  for (const io::RowScore& s : row) {
    if (s.value.value) scores.emplace(std::string(s.key), *s.value.value);
  }
  return scores;
}
}  // namespace

analysis::Diagnosis DiagnoseResult(io::RowResult& row, const analysis::DiagnosisRule& rule,
                                   std::map<std::string, double>* deciding) {
  std::map<std::string, double> scores = DefinedScores(row.scores);
  analysis::Diagnosis d = analysis::Diagnose(scores, rule);
  if (row.turns != nullptr) {
    const io::TurnResult* failing = nullptr;
    bool healthy = false;
    for (io::TurnResult& t : *row.turns) {
      std::map<std::string, double> turn_scores = DefinedScores(t.scores);
      analysis::Diagnosis td = analysis::Diagnose(turn_scores, rule);
      t.diagnosis = std::string(analysis::DiagnosisName(td));
      healthy = healthy || td == analysis::Diagnosis::kHealthy;
      if (failing == nullptr && !analysis::DecidingMetric(td).empty()) {
        failing = &t;
        d = td;
        scores = std::move(turn_scores);
        row.first_failing_turn = t.turn;
      }
    }
    if (failing == nullptr) {
      d = healthy ? analysis::Diagnosis::kHealthy : analysis::Diagnosis::kNotDiagnosed;
    }
  }
  row.diagnosis = std::string(analysis::DiagnosisName(d));
  if (deciding != nullptr) *deciding = std::move(scores);
  return d;
}

void RunTally::Diagnose(io::RowResult& row) {
  std::map<std::string, double> scores;
  const analysis::Diagnosis d = DiagnoseResult(row, rule_, &scores);
  const io::TurnResult* failing = nullptr;
  if (row.turns != nullptr && row.first_failing_turn > 0) {
    for (const io::TurnResult& t : *row.turns) {
      if (t.turn == row.first_failing_turn) failing = &t;
    }
  }
  if (journal_) {
    const auto& all = analysis::AllDiagnoses();
    pending_diagnosis_ = static_cast<int>(std::find(all.begin(), all.end(), d) - all.begin());
    pending_text_ = {row.sample.id, "", "", ""};
  }
  const std::string deciding = analysis::DecidingMetric(d);
  if (deciding.empty()) {
    CountDiagnosis(d, row.sample.id, scores);
    return;
  }
  // The question as the user asked it: the row's user_input, or a conversation's last human turn.
  std::string question = row.sample.user_input.value_or("");
  for (const Message& m : row.sample.messages) {
    if (m.type == Message::Type::kHuman) question = m.content;
  }
  std::string reason;
  for (const io::RowScore& s : failing != nullptr ? failing->scores : row.scores) {
    if (s.key == deciding) reason = s.value.reason;
  }
  if (failing != nullptr) {
    question = failing->question;
    reason = "turn " + std::to_string(failing->turn) + ": " + reason;
  }
  if (journal_) {
    pending_text_.question = question;
    pending_text_.diagnosis_reason = reason;
  }
  CountDiagnosis(d, row.sample.id, scores, std::move(question), std::move(reason));
}

void RunTally::AddValue(size_t i, double value) {
  MetricSummary& m = summary_.metrics[i];
  ++m.scored;
  m.sum += value;
  // Reservoir sampling (Algorithm R): every value has the same chance to be kept.
  int64_t seen = ++seen_[i];
  if (values_[i].size() < kValuesKept) {
    values_[i].push_back(value);
  } else if (auto j = static_cast<size_t>(rng_() % seen); j < kValuesKept) {
    values_[i][j] = value;
  }
}

void RunTally::CountFailure(const std::string& row_reason) {
  ++summary_.rows_failed;
  auto& reasons = summary_.failure_reasons;
  const std::string reason = WithoutPlace(row_reason);
  for (auto& [known, rows] : reasons) {
    if (known == reason) {
      ++rows;
      return;
    }
  }
  constexpr size_t kReasonsKept = 5;
  if (reasons.size() < kReasonsKept) reasons.emplace_back(reason, 1);
}

void RunTally::Add(const io::RowResult& row) {
  ++summary_.rows_scored;
  bool failed = !row.status.ok();
  for (const io::RowScore& s : row.scores) failed = failed || s.failed;
  std::string reason;
  if (failed) {
    reason = row.status.ok() ? "" : row.status.ToString();
    for (const io::RowScore& s : row.scores) {
      if (reason.empty() && s.failed) reason = s.value.reason;
    }
    CountFailure(reason);
  }
  std::vector<KeptRows::Score> kept;  // for the journal
  for (size_t i = 0; i < row.scores.size(); ++i) {
    const io::RowScore& s = row.scores[i];
    if (s.value.value) {
      AddValue(i, *s.value.value);
      if (journal_) kept.push_back({KeptRows::Cell::kScored, *s.value.value});
    } else if (s.failed) {
      ++summary_.metrics[i].failed;
      if (journal_) kept.push_back({KeptRows::Cell::kFailed, 0});
    } else {
      ++summary_.metrics[i].undefined;
      if (journal_) kept.push_back({KeptRows::Cell::kUndefined, 0});
    }
  }
  if (journal_) {
    // As Diagnose left it for this row.
    pending_text_.failure_reason = std::move(reason);
    journal_->Add(kept, pending_diagnosis_, failed, std::move(pending_text_));
    pending_diagnosis_ = -1;
    pending_text_ = {};
  }
}

void RunTally::AddKept(const KeptRows& rows, size_t r, Kept how) {
  ++summary_.rows_scored;
  if (how == Kept::kResumed) ++summary_.rows_resumed;
  static const KeptRows::Text kNone;
  const KeptRows::Text& text = rows.text(r) ? *rows.text(r) : kNone;
  if (rows.failed(r)) CountFailure(text.failure_reason);
  std::map<std::string, double> scores;  // for the deciding metric of a row blamed on a stage
  for (size_t i = 0; i < rows.keys().size(); ++i) {
    switch (rows.cell(r, i)) {
      case KeptRows::Cell::kScored:
        AddValue(i, rows.value(r, i));
        if (rows.text(r)) scores.emplace(rows.keys()[i], rows.value(r, i));
        break;
      case KeptRows::Cell::kFailed:
        ++summary_.metrics[i].failed;
        break;
      case KeptRows::Cell::kUndefined:
        ++summary_.metrics[i].undefined;
        break;
    }
  }
  if (rows.diagnosis(r) >= 0) {
    CountDiagnosis(analysis::AllDiagnoses()[rows.diagnosis(r)], text.id, scores, text.question,
                   text.diagnosis_reason);
  }
}

void RunTally::Finish() {
  for (size_t i = 0; i < summary_.metrics.size(); ++i) {
    auto st = analysis::Summarise(std::move(values_[i]));
    if (!st) continue;
    MetricSummary& m = summary_.metrics[i];
    if (m.scored > static_cast<int64_t>(kValuesKept)) {  // a sample: centre on the exact mean
      double half = (st->ci_high - st->ci_low) / 2 * std::sqrt(double(kValuesKept) / m.scored);
      st->ci_low = m.mean() - half;
      st->ci_high = m.mean() + half;
    }
    m.median = st->median;
    m.stddev = st->stddev;
    m.ci_low = st->ci_low;
    m.ci_high = st->ci_high;
    m.interval = st->method == analysis::MetricStatistics::Method::kWilson   ? "wilson"
                 : st->method == analysis::MetricStatistics::Method::kNormal ? "normal"
                 : st->method == analysis::MetricStatistics::Method::kNone   ? "none"
                                                                             : "bootstrap";
  }
  for (analysis::Diagnosis d : analysis::AllDiagnoses()) {
    auto it = diagnoses_.find(d);
    if (it != diagnoses_.end()) {
      summary_.diagnoses.emplace_back(std::string(analysis::DiagnosisName(d)), it->second);
    }
  }
  const analysis::Diagnosis principal = analysis::PrincipalFailure(diagnoses_);
  if (principal == analysis::Diagnosis::kHealthy) return;
  summary_.principal_failure = std::string(analysis::DiagnosisName(principal));
  std::vector<DiagnosedRow> rows;
  for (auto& [d, row] : failing_) {
    if (d == principal) rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DiagnosedRow& a, const DiagnosedRow& b) { return a.score < b.score; });
  if (rows.size() > 5) rows.resize(5);
  summary_.worst_rows = std::move(rows);
}

}  // namespace tala
