// POST /v1/labels and the summaries' corrected means: people's labels of stored rows, and the
// prediction-powered mean of a window (tala estimate's, over the window's rows).

#include <sqlite3.h>

#include <cstdio>
#include <map>

#include "analysis/ppi.h"
#include "fs/scratch_file.h"
#include "io/readers/labels_reader.h"
#include "serve/service_impl.h"

namespace tala {

namespace {
// Replaces the temporary file's name in an error with what the client sent.
Status AsRequest(const Status& s, const std::string& path) {
  std::string message = s.message();
  for (size_t at = message.find(path); at != std::string::npos; at = message.find(path)) {
    message.replace(at, path.size(), "request");
  }
  SourceLocation where = s.where();
  if (where.file == path) where.file = "request";
  return Status(s.code(), message, where);
}
}  // namespace

Result<LabelsAnswer> Service::AddLabels(std::string_view body, double now) {
  Impl& s = *impl_;
  TALA_ASSIGN_OR_RETURN(fs::ScratchFile file, fs::ScratchFile::Create("labels", body));
  auto labels = io::ReadLabels(file.path());
  if (!labels) return AsRequest(labels.error(), file.path());
  std::map<std::string, bool> served;
  for (const auto& m : s.metrics) served[m->key()] = true;
  for (const io::LabelRow& row : labels->rows) {
    for (const io::LabelReview& r : row.reviews) {
      for (const auto& [metric, value] : r.values) {
        if (!served.count(metric)) {
          return InvalidArgument("label of row " + row.id + ": " + metric +
                                 " is not a metric this server scores");
        }
        if (value < 0 || value > 1) {
          return InvalidArgument("label of row " + row.id + ": " + metric + " " +
                                 std::to_string(value) + " is outside [0, 1]");
        }
      }
    }
  }
  LabelsAnswer answer;
  std::lock_guard<std::mutex> lock(s.mu);
  TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
  sqlite3_stmt* put = nullptr;
  sqlite3_stmt* known = nullptr;
  sqlite3_prepare_v2(s.db,
                     "INSERT OR REPLACE INTO labels (id, metric, labeller, value, "
                     "pick_probability, at) VALUES (?, ?, ?, ?, ?, ?)",
                     -1, &put, nullptr);
  sqlite3_prepare_v2(s.db, "SELECT 1 FROM rows WHERE id = ? LIMIT 1", -1, &known, nullptr);
  Status status;
  for (const io::LabelRow& row : labels->rows) {
    sqlite3_bind_text(known, 1, row.id.c_str(), -1, SQLITE_TRANSIENT);
    answer.unknown_ids += sqlite3_step(known) == SQLITE_ROW ? 0 : 1;
    sqlite3_reset(known);
    for (const io::LabelReview& r : row.reviews) {
      for (const auto& [metric, value] : r.values) {
        sqlite3_bind_text(put, 1, row.id.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(put, 2, metric.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(put, 3, r.labeller.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(put, 4, value);
        if (row.pick_probability) {
          sqlite3_bind_double(put, 5, *row.pick_probability);
        } else {
          sqlite3_bind_null(put, 5);
        }
        sqlite3_bind_double(put, 6, now);
        if (sqlite3_step(put) != SQLITE_DONE && status.ok()) {
          status = IoError(s.options.db + ": cannot store a label: " + sqlite3_errmsg(s.db));
        }
        sqlite3_reset(put);
        ++answer.stored;
      }
    }
  }
  sqlite3_finalize(put);
  sqlite3_finalize(known);
  TALA_RETURN_IF_ERROR(s.Exec(status.ok() ? "COMMIT" : "ROLLBACK"));
  TALA_RETURN_IF_ERROR(status);
  return answer;
}

Result<std::optional<CorrectedMean>> CorrectedWindowMean(sqlite3* reader, const std::string& metric,
                                                         double since, double until) {
  sqlite3_stmt* q = nullptr;
  // Each scored row of the window, with its people's mean label and chance of being picked.
  const char* sql =
      "SELECT s.value, l.v, l.p FROM scores s JOIN rows r ON r.seq = s.seq "
      "LEFT JOIN (SELECT id, AVG(value) AS v, MAX(pick_probability) AS p, "
      "COUNT(pick_probability) AS np, COUNT(*) AS n FROM labels WHERE metric = ?1 GROUP BY id) l "
      "ON l.id = r.id WHERE s.metric = ?1 AND s.ts >= ?2 AND s.ts <= ?3";
  if (sqlite3_prepare_v2(reader, sql, -1, &q, nullptr) != SQLITE_OK) {
    return IoError(std::string("summary: ") + sqlite3_errmsg(reader));
  }
  sqlite3_bind_text(q, 1, metric.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(q, 2, since);
  sqlite3_bind_double(q, 3, until);
  std::vector<double> f_all, f_labelled, y, pi;
  bool weighted = true;
  while (sqlite3_step(q) == SQLITE_ROW) {
    const double f = sqlite3_column_double(q, 0);
    f_all.push_back(f);
    if (sqlite3_column_type(q, 1) == SQLITE_NULL) continue;
    f_labelled.push_back(f);
    y.push_back(sqlite3_column_double(q, 1));
    if (sqlite3_column_type(q, 2) == SQLITE_NULL) {
      weighted = false;
      pi.push_back(1);
    } else {
      pi.push_back(sqlite3_column_double(q, 2));
    }
  }
  sqlite3_finalize(q);
  if (y.empty()) return std::optional<CorrectedMean>();
  CorrectedMean c;
  c.labels = static_cast<int64_t>(y.size());
  c.rows = static_cast<int64_t>(f_all.size());
  if (y.size() < 2 || f_all.size() < 2) return std::optional<CorrectedMean>(c);
  const analysis::PpiResult r =
      weighted ? analysis::PredictionPoweredMeanWeighted(f_all, f_labelled, y, pi)
               : analysis::PredictionPoweredMean(f_all, f_labelled, y);
  c.mean = r.ppi.mean;
  c.low = r.ppi.low;
  c.high = r.ppi.high;
  c.valid = true;
  return std::optional<CorrectedMean>(c);
}

}  // namespace tala
