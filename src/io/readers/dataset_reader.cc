#include "io/readers/dataset_reader.h"

#include <sys/stat.h>

#include "io/readers/buffered_input.h"
#include "io/readers/csv_reader.h"
#include "io/readers/json_array_reader.h"
#include "io/readers/jsonl_reader.h"
#include "io/readers/shard_reader.h"
#include "io/readers/turn_rows_reader.h"

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
  std::unique_ptr<DatasetReader> rows;
  switch (format) {
    case DatasetFormat::kCsv:
      rows.reset(new CsvReader(name, std::move(input), options));
      break;
    case DatasetFormat::kJsonArray:
      rows.reset(new JsonArrayReader(name, std::move(input), options));
      break;
    default:
      rows.reset(new JsonlReader(name, std::move(input), options));
  }
  // A conversation given as a row per turn is read as one row.
  return std::unique_ptr<DatasetReader>(new TurnRowsReader(std::move(rows), name));
}

Result<std::unique_ptr<DatasetReader>> OpenDatasetShard(const std::string& path,
                                                        const ReaderOptions& options,
                                                        const ShardSpec& shard) {
  if (!shard.active() || shard.by == ShardBy::kPartition) return OpenDataset(path, options);
  if (path == "-") return InvalidArgument("a shard reads a file, not stdin");
  DatasetFormat format =
      options.format == DatasetFormat::kAuto ? FormatFromPath(path) : options.format;
  if (shard.by == ShardBy::kRange && format == DatasetFormat::kJsonl) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return OpenDataset(path, options);  // its own error
    const auto size = static_cast<uint64_t>(st.st_size);
    ByteRange range{size * shard.index / shard.count, size * (shard.index + 1) / shard.count};
    TALA_ASSIGN_OR_RETURN(BufferedInput input,
                          BufferedInput::OpenAt(path, range.begin > 0 ? range.begin - 1 : 0));
    return std::unique_ptr<DatasetReader>(
        new TurnRowsReader(std::unique_ptr<DatasetReader>(
                               new JsonlReader(path, path, std::move(input), options, range)),
                           path));
  }
  int64_t total = 0;
  if (shard.by == ShardBy::kRange) {
    TALA_ASSIGN_OR_RETURN(auto counter, OpenDataset(path, options));
    while (auto row = counter->Next()) {
      if (!*row && row->error().code() != ErrorCode::kDataError) return row->error();
    }
    total = counter->rows_seen();
  }
  TALA_ASSIGN_OR_RETURN(auto all, OpenDataset(path, options));
  return std::unique_ptr<DatasetReader>(new ShardReader(std::move(all), shard, total));
}

}  // namespace tala::io
