#include "tala/shard.h"

#include <algorithm>
#include <charconv>

#include "core/hash.h"

namespace tala {

namespace {
bool ParseInt(std::string_view text, int* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}
}  // namespace

Result<ShardSpec> ParseShard(const std::string& index_of_count, const std::string& by) {
  ShardSpec spec;
  if (by == "range") {
    spec.by = ShardBy::kRange;
  } else if (by == "hash") {
    spec.by = ShardBy::kHash;
  } else if (by == "partition") {
    spec.by = ShardBy::kPartition;
  } else {
    return InvalidArgument("--shard-by must be range, hash or partition, not \"" + by + "\"");
  }
  size_t slash = index_of_count.find('/');
  std::string_view text(index_of_count);
  if (slash == std::string::npos || !ParseInt(text.substr(0, slash), &spec.index) ||
      !ParseInt(text.substr(slash + 1), &spec.count)) {
    return InvalidArgument("--shard takes INDEX/COUNT, such as 0/4 (the first of four), not \"" +
                           index_of_count + "\"");
  }
  if (spec.count < 1 || spec.index < 0 || spec.index >= spec.count) {
    return InvalidArgument("--shard " + index_of_count +
                           ": the index counts from 0 and must be below the count (0/" +
                           std::to_string(std::max(spec.count, 1)) + " to " +
                           std::to_string(std::max(spec.count, 1) - 1) + "/" +
                           std::to_string(std::max(spec.count, 1)) + ")");
  }
  return spec;
}

const char* ShardByName(ShardBy by) {
  switch (by) {
    case ShardBy::kHash:
      return "hash";
    case ShardBy::kPartition:
      return "partition";
    default:
      return "range";
  }
}

int ShardOfId(const std::string& id, int count) {
  return static_cast<int>(Sha256Prefix64(id) % static_cast<uint64_t>(count));
}

std::string ShardStatePath(const std::string& results_path) { return results_path + ".shard.json"; }

}  // namespace tala
