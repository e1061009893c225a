#include "io/dataset_validation.h"

#include <unordered_map>

#include "metrics/registry.h"

namespace tala::io {

std::string SeparatorHint(const std::vector<std::string>& field_names) {
  for (const std::string& name : field_names) {
    for (auto [sep, what] : {std::pair{';', "semicolon"}, {'\t', "tab"}}) {
      if (name.find(sep) != std::string::npos) {
        return std::string("; the header was read as one column holding '") +
               (sep == '\t' ? "\\t" : ";") + "' - is the file " + what +
               "-separated? Save it with commas (Excel: CSV UTF-8)";
      }
    }
  }
  return "";
}

Result<ValidationReport> ValidateDataset(const std::string& path, const ReaderOptions& options,
                                         int max_errors) {
  TALA_ASSIGN_OR_RETURN(auto reader, OpenDataset(path, options));
  ValidationReport report;
  std::unordered_map<std::string, int64_t> id_lines;  // ids pair rows across runs: unique
  report.dataset = path;
  const auto& registry = metrics::MetricRegistry();
  std::vector<int64_t> metric_rows(registry.size(), 0);
  while (auto row = reader->Next()) {
    ++report.rows_read;
    if (!row->has_value()) {
      if (row->error().code() != ErrorCode::kDataError) return row->error();
      ++report.rows_rejected;
      if (static_cast<int>(report.errors.size()) < max_errors) {
        report.errors.push_back(row->error());
      }
      continue;
    }
    if (auto [it, fresh] = id_lines.emplace((*row)->id, (*row)->line); !fresh) {
      ++report.rows_rejected;
      if (static_cast<int>(report.errors.size()) < max_errors) {
        report.errors.push_back(
            DataError({path, (*row)->line, 0, "id"},
                      "\"" + (*row)->id + "\" is also the id of the row on line " +
                          std::to_string(it->second) +
                          "; ids pair rows across runs, so each must be unique"));
      }
      continue;
    }
    FieldSet fields = (*row)->fields();
    for (Field f : AllFields()) {
      if (Contains(fields, f)) ++report.field_counts[FieldName(f)];
    }
    for (const auto& [name, raw] : (*row)->metadata) ++report.metadata_counts[name];
    for (size_t i = 0; i < registry.size(); ++i) {
      FieldSet need = registry[i].info().required_fields;
      if ((fields & need) == need) ++metric_rows[i];
    }
  }
  if (report.rows_read == 0) {
    report.errors.push_back(DataError({path, 0, 0, ""}, "the file holds no rows"));
  } else if (report.field_counts.empty() && report.rows_rejected < report.rows_read) {
    std::vector<std::string> names;
    for (const auto& [name, n] : report.metadata_counts) names.push_back(name);
    report.errors.push_back(DataError({path, 0, 0, ""},
                                      "no row has a field tala knows (user_input, response, "
                                      "retrieved_contexts, reference, ...)" +
                                          SeparatorHint(names)));
  }
  for (size_t i = 0; i < registry.size(); ++i) {
    report.metric_rows.emplace_back(registry[i].info().name, metric_rows[i]);
  }
  return report;
}

}  // namespace tala::io
