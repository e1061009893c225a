#include "io/dataset_validation.h"

#include "metrics/registry.h"

namespace tala::io {

Result<ValidationReport> ValidateDataset(const std::string& path, const ReaderOptions& options,
                                         int max_errors) {
  TALA_ASSIGN_OR_RETURN(auto reader, OpenDataset(path, options));
  ValidationReport report;
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
  }
  for (size_t i = 0; i < registry.size(); ++i) {
    report.metric_rows.emplace_back(registry[i].info().name, metric_rows[i]);
  }
  return report;
}

}  // namespace tala::io
