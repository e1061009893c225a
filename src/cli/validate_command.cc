// tala validate DATA: checks a dataset without scoring it.

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "io/dataset_validation.h"
#include "metrics/registry.h"

namespace tala::cli {

namespace {
struct ValidateFlags {
  std::string dataset;
  std::string format = "auto";
  int max_errors = 20;
};

int RunValidate(const ValidateFlags& flags) {
  io::ReaderOptions ro;
  auto format = io::ParseDatasetFormat(flags.format);
  if (!format) {
    std::fprintf(stderr, "tala validate: %s\n", format.error().ToString().c_str());
    return 2;
  }
  ro.format = *format;
  auto report = io::ValidateDataset(flags.dataset, ro, flags.max_errors);
  if (!report) {
    std::fprintf(stderr, "tala validate: %s\n", report.error().ToString().c_str());
    return ExitCodeFor(report.error());
  }
  for (const Status& e : report->errors) std::fprintf(stderr, "%s\n", e.ToString().c_str());
  if (report->rows_rejected > static_cast<int64_t>(report->errors.size())) {
    std::fprintf(stderr, "... and %lld more rejected rows\n",
                 static_cast<long long>(report->rows_rejected - report->errors.size()));
  }
  std::printf("dataset: %s\nrows read: %lld\nrows rejected: %lld\n", flags.dataset.c_str(),
              static_cast<long long>(report->rows_read),
              static_cast<long long>(report->rows_rejected));
  std::printf("\nfields present (rows):\n");
  for (const auto& [name, count] : report->field_counts) {
    std::printf("  %-24s %lld\n", name.c_str(), static_cast<long long>(count));
  }
  for (const auto& [name, count] : report->metadata_counts) {
    std::printf("  %-24s %lld  (metadata, passed through)\n", name.c_str(),
                static_cast<long long>(count));
  }
  // Each metric with its family: the fields allow sql_equivalence on a FAQ log, and the family
  // says what data it is for (N6). Columns fit the longest name.
  size_t width = 0;
  for (const auto& [name, count] : report->metric_rows) width = std::max(width, name.size());
  std::printf("\nmetrics (rows with the fields each needs, and what the metric is for):\n");
  for (const auto& [name, count] : report->metric_rows) {
    const metrics::RegistryEntry* entry = metrics::FindMetric(name);
    std::printf("  %-*s %6lld  %s\n", static_cast<int>(width), name.c_str(),
                static_cast<long long>(count), entry != nullptr ? entry->family : "");
  }
  return report->ok() ? 0 : 2;
}
}  // namespace

void AddValidateCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check a dataset: rows read and rejected (with file:line:field errors), fields "
      "present, and how many rows each metric can score. Exit 0 when every row "
      "parsed, 2 otherwise.");
  cmd->add_option("DATA", flags->dataset, "dataset file (.jsonl, .json, .csv) or - for stdin")
      ->required();
  cmd->add_option("--format", flags->format, "auto, jsonl, json or csv (auto: from the extension)")
      ->capture_default_str();
  cmd->add_option("--max-errors", flags->max_errors, "row errors to print")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->callback([flags, exit_code] { *exit_code = RunValidate(*flags); });
}

}  // namespace tala::cli
