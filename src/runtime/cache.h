#pragma once
// The judge cache: SQLite, content-addressed. The key is the SHA-256 of everything that decides
// a reply (provider, model, prompt version, parameters, messages or embedding inputs); the value
// is the model's reply text and its token counts. Only replies that parsed are stored, so a
// warm cache replays a run exactly with zero calls.
// One Cache per thread; several processes may share a file (WAL, busy timeout).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tala/status.h"

struct sqlite3;

namespace tala::runtime {

struct CachedReply {
  std::string text;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

struct CacheStats {
  int64_t entries = 0;
  int64_t bytes = 0;  // the database file's size
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  // model -> entries
  std::vector<std::pair<std::string, int64_t>> by_model;
};

class Cache {
 public:
  // Opens or creates the file (and its folder). A file that is not a tala cache (a results file,
  // another SQLite database) is never touched: kInvalidArgument says what it looks like. A tala
  // cache that is damaged is moved aside to a fresh PATH.corrupt-N (never over an earlier one)
  // and a new one is made; `warning` then says so. kIoError when the file cannot be created.
  // kExisting (tala cache stats/clear): the file must exist, and is never moved aside.
  enum class Mode { kCreate, kExisting };
  static Result<std::unique_ptr<Cache>> Open(const std::string& path, std::string* warning,
                                             Mode mode = Mode::kCreate);
  ~Cache();

  std::optional<CachedReply> Get(const std::string& key);
  // A failed write is reported once in `last_error()` and otherwise ignored: the cache is an
  // accelerator, never a reason to lose a row.
  void Put(const std::string& key, const std::string& model, const std::string& prompt_id,
           const CachedReply& reply);
  Result<CacheStats> Stats();
  Status Clear();
  // Copies into this cache every reply of the cache file `other` that this one lacks (replies
  // are content-addressed, so a key held by both holds the same reply); the number added.
  // For caches kept apart (one per machine of a cluster) and joined afterwards.
  // kNotFound / kInvalidArgument when `other` is missing or not a tala cache.
  Result<int64_t> MergeFrom(const std::string& other);
  const std::string& path() const { return path_; }
  const std::string& last_error() const { return last_error_; }

 private:
  Cache(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  std::string last_error_;
};

}  // namespace tala::runtime
