// tala cache stats|clear|merge: what the judge cache holds, emptying it, joining others into it.

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "runtime/cache.h"

namespace tala::cli {

namespace {

struct CacheFlags {
  std::string path;
  bool json = false;
  std::vector<std::string> sources;  // merge
};

int Stats(const CacheFlags& f) {
  auto parent = std::filesystem::path(f.path).parent_path();
  if (!std::filesystem::exists(f.path) &&
      (parent.empty() || std::filesystem::is_directory(parent))) {
    std::printf(f.json ? "{\"path\":\"%s\",\"entries\":0}\n" : "cache %s: empty (no file yet)\n",
                f.path.c_str());
    return 0;
  }
  std::string warning;
  auto cache = runtime::Cache::Open(f.path, &warning, runtime::Cache::Mode::kExisting);
  if (!warning.empty()) std::fprintf(stderr, "tala cache: warning: %s\n", warning.c_str());
  if (!cache) {
    PrintError("tala cache", cache.error());
    return 2;
  }
  auto stats = (*cache)->Stats();
  if (!stats) {
    std::fprintf(stderr, "tala cache: %s\n", stats.error().ToString().c_str());
    return 2;
  }
  if (f.json) {
    std::printf(
        "{\"path\":\"%s\",\"entries\":%lld,\"bytes\":%lld,\"prompt_tokens\":%lld,"
        "\"completion_tokens\":%lld}\n",
        f.path.c_str(), static_cast<long long>(stats->entries),
        static_cast<long long>(stats->bytes), static_cast<long long>(stats->prompt_tokens),
        static_cast<long long>(stats->completion_tokens));
    return 0;
  }
  std::printf(
      "cache %s: %lld replies, %.1f MiB; they saved %lld prompt and %lld completion "
      "tokens each time they are replayed\n",
      f.path.c_str(), static_cast<long long>(stats->entries),
      static_cast<double>(stats->bytes) / (1 << 20), static_cast<long long>(stats->prompt_tokens),
      static_cast<long long>(stats->completion_tokens));
  for (const auto& [model, n] : stats->by_model) {
    std::printf("  %-32s %lld\n", model.c_str(), static_cast<long long>(n));
  }
  return 0;
}

int Clear(const CacheFlags& f) {
  if (!std::filesystem::exists(f.path)) {
    std::printf("cache %s: nothing to clear\n", f.path.c_str());
    return 0;
  }
  std::string warning;
  auto cache = runtime::Cache::Open(f.path, &warning, runtime::Cache::Mode::kExisting);
  if (!cache) {
    PrintError("tala cache", cache.error());
    return 2;
  }
  Status s = (*cache)->Clear();
  if (!s.ok()) {
    std::fprintf(stderr, "tala cache: %s\n", s.ToString().c_str());
    return 2;
  }
  std::printf("cache %s: cleared\n", f.path.c_str());
  return 0;
}

int Merge(const CacheFlags& f) {
  std::string warning;
  auto cache = runtime::Cache::Open(f.path, &warning);
  if (!warning.empty()) std::fprintf(stderr, "tala cache: warning: %s\n", warning.c_str());
  if (!cache) {
    PrintError("tala cache", cache.error());
    return 2;
  }
  int64_t total = 0;
  for (const std::string& source : f.sources) {
    auto added = (*cache)->MergeFrom(source);
    if (!added) {
      PrintError("tala cache", added.error());
      return 2;
    }
    std::printf("cache %s: %lld replies added from %s\n", f.path.c_str(),
                static_cast<long long>(*added), source.c_str());
    total += *added;
  }
  std::printf("cache %s: %lld replies added in all\n", f.path.c_str(),
              static_cast<long long>(total));
  return 0;
}

}  // namespace

void AddCacheCommand(CLI::App& app, int* exit_code, const std::string& default_cache) {
  auto f = std::make_shared<CacheFlags>();
  f->path = default_cache;
  CLI::App* cmd = app.add_subcommand(
      "cache",
      "The judge cache (SQLite, content-addressed by provider, model, prompt version, "
      "parameters and messages): `tala cache stats`, `tala cache clear`, or `tala cache merge "
      "FILE...` to join caches kept apart (one per machine of a cluster).");
  cmd->require_subcommand(1);
  for (const char* name : {"stats", "clear"}) {
    bool stats = std::string(name) == "stats";
    CLI::App* sub = cmd->add_subcommand(
        name, stats ? "entries, size and tokens held by the cache" : "delete every cached reply");
    sub->add_option("--cache", f->path, "cache file")->capture_default_str()->envname("TALA_CACHE");
    if (stats) sub->add_flag("--json", f->json, "print as JSON");
    sub->callback([f, exit_code, stats] { *exit_code = stats ? Stats(*f) : Clear(*f); });
  }
  CLI::App* merge = cmd->add_subcommand(
      "merge", "copy into the cache every reply the given cache files hold and it lacks");
  merge->add_option("FILE", f->sources, "other tala cache files (SQLite)")->required();
  merge->add_option("--cache", f->path, "the cache merged into")
      ->capture_default_str()
      ->envname("TALA_CACHE");
  merge->callback([f, exit_code] { *exit_code = Merge(*f); });
}

}  // namespace tala::cli
