#include "io/readers/dataset_reader.h"

#include "io/readers/buffered_input.h"
#include "io/readers/csv_reader.h"
#include "io/readers/json_array_reader.h"
#include "io/readers/jsonl_reader.h"

namespace tala::io {

Result<DatasetFormat> ParseDatasetFormat(const std::string& name) {
  if (name == "auto") return DatasetFormat::kAuto;
  if (name == "jsonl" || name == "ndjson") return DatasetFormat::kJsonl;
  if (name == "json") return DatasetFormat::kJsonArray;
  if (name == "csv") return DatasetFormat::kCsv;
  return InvalidArgument("unknown dataset format \"" + name +
                         "\"; expected jsonl, json, csv or auto");
}

namespace {
bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

DatasetFormat FormatFromPath(const std::string& path) {
  if (EndsWith(path, ".csv")) return DatasetFormat::kCsv;
  if (EndsWith(path, ".json")) return DatasetFormat::kJsonArray;
  return DatasetFormat::kJsonl;
}

Result<std::unique_ptr<DatasetReader>> OpenDataset(const std::string& path,
                                                   const ReaderOptions& options) {
  DatasetFormat format =
      options.format == DatasetFormat::kAuto ? FormatFromPath(path) : options.format;
  TALA_ASSIGN_OR_RETURN(BufferedInput input, BufferedInput::Open(path));
  const std::string name = path == "-" ? "<stdin>" : path;
  switch (format) {
    case DatasetFormat::kCsv:
      return std::unique_ptr<DatasetReader>(new CsvReader(name, std::move(input), options));
    case DatasetFormat::kJsonArray:
      return std::unique_ptr<DatasetReader>(new JsonArrayReader(name, std::move(input), options));
    default:
      return std::unique_ptr<DatasetReader>(new JsonlReader(name, std::move(input), options));
  }
}

}  // namespace tala::io
