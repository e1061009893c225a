#pragma once
// Dataset validation behind `tala validate`: reads every row, keeps the first errors, counts the
// fields present and, for each registered metric, the rows that carry the fields it needs.

#include <map>
#include <string>
#include <vector>

#include "io/readers/dataset_reader.h"
#include "tala/status.h"

namespace tala::io {

struct ValidationReport {
  std::string dataset;
  int64_t rows_read = 0;
  int64_t rows_rejected = 0;
  std::vector<Status> errors;                                // the first `max_errors` row errors
  std::map<std::string, int64_t> field_counts;               // field name -> rows that give it
  std::map<std::string, int64_t> metadata_counts;            // pass-through field -> rows
  std::vector<std::pair<std::string, int64_t>> metric_rows;  // metric -> rows it can score
  bool ok() const { return rows_read > 0 && rows_rejected == 0 && errors.empty(); }
};

// A hint for a file none of whose fields tala knows, from the names it did find: a header read as
// one column holding ';' or a tab is a file with another separator (F38). "" when none fits.
std::string SeparatorHint(const std::vector<std::string>& field_names);

// kIoError / kNotFound when the file cannot be read at all; row errors go into the report.
Result<ValidationReport> ValidateDataset(const std::string& path, const ReaderOptions& options,
                                         int max_errors);

}  // namespace tala::io
