#include "history/run_capture.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/power.h"
#include "core/hash.h"
#include "fs/file_digest.h"
#include "io/readers/results_reader.h"
#include "io/writers/run_records.h"

namespace tala::history {

namespace {
// The golden set a run scored: its rows' ids and question digests, in id order (the order rows
// finish in differs run to run). Files from before row digests fall back to the dataset file.
std::string GoldenDigest(const io::ResultsFile& file) {
  std::vector<std::pair<std::string_view, std::string_view>> rows;
  for (const io::ResultRow& row : file.rows) {
    if (row.question_digest.empty()) {
      std::string fallback = file.manifest ? file.manifest->dataset_sha256 : "";
      if (fallback.empty() && file.manifest) fallback = file.manifest->dataset;
      return "file:" + fallback;
    }
    rows.emplace_back(row.id, row.question_digest);
  }
  std::sort(rows.begin(), rows.end());
  Sha256 hash;
  for (const auto& [id, question] : rows) {
    hash.Update(id);
    hash.Update(std::string_view("\0", 1));
    hash.Update(question);
    hash.Update("\n");
  }
  return hash.HexDigest();
}
}  // namespace

Result<RunCapture> CaptureRun(const HistoryAddOptions& o) {
  TALA_ASSIGN_OR_RETURN(io::ResultsFile file, io::ReadResults(o.results));
  TALA_ASSIGN_OR_RETURN(std::string digest, fs::FileSha256(o.results));
  RunCapture c;
  HistoryRun& run = c.run;
  run.label = o.label;
  run.tags = o.tags;
  // A --sequential run judged only the rows that decided its gates: marked, so its page and
  // trends say so (its means stand on fewer rows).
  if (file.manifest) {
    for (const auto& [name, value] : file.manifest->settings) {
      if (name == "sequential") run.tags.emplace_back("sequential", value);
    }
  }
  std::error_code ec;
  auto absolute = [&ec](const std::string& path) {
    if (path.empty()) return path;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
  };
  run.results = absolute(o.results);
  run.report = absolute(o.report);
  run.results_sha256 = digest;
  run.added = io::UtcNow();
  // Files from before manifests still join the history; their runs are dated when stored and
  // compared only with runs that also have no dataset digest.
  run.time = file.manifest && !file.manifest->created.empty() ? file.manifest->created : run.added;
  if (file.manifest) {
    run.dataset = file.manifest->dataset;
    run.dataset_sha256 = file.manifest->dataset_sha256;
    run.judge = file.manifest->judge;
  }
  run.rows = static_cast<int64_t>(file.rows.size());
  c.ids.reserve(file.rows.size());
  for (const io::ResultRow& row : file.rows) c.ids.push_back(row.id);
  run.golden_digest = GoldenDigest(file);
  for (const std::string& key : file.metric_keys) {
    std::vector<double> column(file.rows.size(), std::nan(""));
    std::vector<double> defined;
    for (size_t i = 0; i < file.rows.size(); ++i) {
      auto it = file.rows[i].scores.find(key);
      if (it != file.rows[i].scores.end() && it->second && std::isfinite(*it->second)) {
        column[i] = *it->second;
        defined.push_back(*it->second);
      }
    }
    if (defined.empty()) continue;
    HistoryMetric m;
    m.key = key;
    m.direction = io::DirectionIn(file, key);
    if (file.manifest) {
      auto v = file.manifest->metrics.find(key);
      if (v != file.manifest->metrics.end()) m.version = v->second;
    }
    m.scored = static_cast<int64_t>(defined.size());
    // The interval tala eval prints for the run.
    auto st = analysis::Summarise(std::move(defined));
    m.mean = st->mean;
    m.ci_low = st->ci_low;
    m.ci_high = st->ci_high;
    run.metrics.push_back(m);
    c.values.emplace_back(key, std::move(column));
  }
  if (run.metrics.empty()) {
    return InvalidArgument(o.results + ": no metric has a value on any row; nothing to remember");
  }
  return c;
}

PairedChange ChangeBetween(const std::vector<std::string>& base_ids,
                           const std::vector<double>& base_values,
                           const std::vector<std::string>& candidate_ids,
                           const std::vector<double>& candidate_values) {
  std::unordered_map<std::string_view, size_t> base_at;
  base_at.reserve(base_ids.size());
  for (size_t i = 0; i < base_ids.size() && i < base_values.size(); ++i) {
    if (!std::isnan(base_values[i])) base_at.emplace(base_ids[i], i);
  }
  std::vector<double> diff;
  for (size_t i = 0; i < candidate_ids.size() && i < candidate_values.size(); ++i) {
    if (std::isnan(candidate_values[i])) continue;
    auto it = base_at.find(candidate_ids[i]);
    if (it != base_at.end()) diff.push_back(candidate_values[i] - base_values[it->second]);
  }
  PairedChange c;
  c.pairs = static_cast<int64_t>(diff.size());
  if (diff.empty()) return c;
  double sum = 0;
  for (double d : diff) sum += d;
  const double n = static_cast<double>(diff.size());
  c.change = sum / n;
  if (diff.size() <= 500) {
    // The same seed and resamples as tala compare, so both print the same interval.
    std::tie(c.low, c.high) = analysis::BootstrapMeanInterval(diff, 10000, 20231, 0.95);
  } else {
    double ss = 0;
    for (double d : diff) ss += (d - c.change) * (d - c.change);
    const double half = analysis::NormalQuantile(0.975) * std::sqrt(ss / (n - 1) / n);
    c.low = c.change - half;
    c.high = c.change + half;
  }
  return c;
}

}  // namespace tala::history
