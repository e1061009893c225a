#include "runtime/cache.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "fs/output_paths.h"
#include "runtime/sql_statement.h"

namespace tala::runtime {

namespace {

constexpr const char* kSchema =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=NORMAL;"
    "CREATE TABLE IF NOT EXISTS tala_cache_info (key TEXT PRIMARY KEY, value TEXT);"
    "INSERT OR IGNORE INTO tala_cache_info VALUES ('format', '1');"
    "CREATE TABLE IF NOT EXISTS replies ("
    "  key TEXT PRIMARY KEY, model TEXT NOT NULL, prompt TEXT NOT NULL, reply TEXT NOT NULL,"
    "  prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,"
    "  created INTEGER NOT NULL);";

using Statement = SqlStatement;

Status Prepare(sqlite3* db) {
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  int rc = sqlite3_exec(db, kSchema, nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  if (rc != SQLITE_OK) return IoError(message);
  // A file made by something else (or damaged) fails here rather than mid-run.
  Statement check(db, "SELECT value FROM tala_cache_info WHERE key = 'format'");
  if (!check || sqlite3_step(check.get()) != SQLITE_ROW) return IoError("not a tala cache");
  rc = sqlite3_exec(db, "PRAGMA quick_check", nullptr, nullptr, &error);
  message = error ? error : "";
  sqlite3_free(error);
  if (rc != SQLITE_OK) return IoError(message);
  return OkStatus();
}

// Refuses, before SQLite writes a byte, a file that is something other than a tala cache: a
// results file or dataset given by mistake, or another program's database.
Status CheckIsCache(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return OkStatus();  // missing: created
  char head[16] = {};
  size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (n == 0) return OkStatus();  // empty: SQLite makes it a database
  static const char kSqlite[16] = "SQLite format 3";
  if (n == 16 && std::memcmp(head, kSqlite, 16) == 0) {
    sqlite3* db = nullptr;
    bool other = false;
    std::string tables;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      Statement q(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      bool ours = false;
      while (q && sqlite3_step(q.get()) == SQLITE_ROW) {
        std::string name = q.Column(0);
        ours = ours || name == "tala_cache_info";
        tables += (tables.empty() ? "" : ", ") + name;
      }
      other = !ours && !tables.empty();
    }
    sqlite3_close(db);
    if (other) {
      return InvalidArgument(
          path + " is an SQLite database but not a tala judge cache (its tables: " + tables +
          "); it is left as it is. Give --cache another file, or off");
    }
    return OkStatus();  // a cache (or a damaged one, moved aside by Open)
  }
  std::string_view text(head, n);
  const char* looks = text.find("tala_manifest") != std::string_view::npos || text[0] == '{'
                          ? "JSON (a results file or dataset?)"
                      : text[0] == '<' ? "HTML or XML"
                                       : "text or another format";
  return InvalidArgument(path + " is not a tala judge cache: it looks like " + looks +
                         "; it is left as it is. Give --cache another file, or off");
}

// PATH.corrupt-1, -2, ...: the first name not taken, so an earlier set-aside file is kept.
std::string AsideName(const std::string& path) {
  for (int i = 1;; ++i) {
    std::string name = path + ".corrupt-" + std::to_string(i);
    if (!std::filesystem::exists(name)) return name;
  }
}

Result<sqlite3*> OpenFile(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return IoError("cache " + path + ": " + message);
  }
  Status s = Prepare(db);
  if (!s.ok()) {
    sqlite3_close(db);
    return s;
  }
  return db;
}

}  // namespace

Result<std::unique_ptr<Cache>> Cache::Open(const std::string& path, std::string* warning,
                                           Mode mode) {
  std::error_code ec;
  if (mode == Mode::kExisting && !std::filesystem::exists(path)) {
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent)) {
      return NotFound("cache " + path + ": the folder " + parent.string() + " does not exist");
    }
    return NotFound("cache " + path + " does not exist");
  }
  TALA_RETURN_IF_ERROR(CheckIsCache(path));
  // A damaged cache is moved aside: never a device or pipe given as --cache.
  TALA_RETURN_IF_ERROR(fs::CheckRenamedIntoPlace({"--cache", path}));
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  auto db = OpenFile(path);
  if (!db && mode == Mode::kExisting) {
    return IoError("cache " + path + " is unreadable (" + db.error().message() + ")");
  }
  if (!db && std::filesystem::exists(path)) {
    std::string aside = AsideName(path);
    std::filesystem::rename(path, aside, ec);
    for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
    if (ec)
      return IoError("cache " + path + " is unreadable (" + db.error().message() +
                     ") and cannot be moved aside: " + ec.message());
    if (warning) {
      *warning = "cache " + path + " was unreadable (" + db.error().message() + "); moved to " +
                 aside + " and started a new one";
    }
    db = OpenFile(path);
  }
  if (!db) return IoError("cannot open the cache " + path + ": " + db.error().message());
  return std::unique_ptr<Cache>(new Cache(*db, path));
}

Cache::~Cache() { sqlite3_close(db_); }

std::optional<CachedReply> Cache::Get(const std::string& key) {
  Statement q(db_, "SELECT reply, prompt_tokens, completion_tokens FROM replies WHERE key = ?");
  if (!q) return std::nullopt;
  q.Text(1, key);
  if (sqlite3_step(q.get()) != SQLITE_ROW) return std::nullopt;
  return CachedReply{q.Column(0), sqlite3_column_int64(q.get(), 1),
                     sqlite3_column_int64(q.get(), 2)};
}

void Cache::Put(const std::string& key, const std::string& model, const std::string& prompt_id,
                const CachedReply& reply) {
  Statement q(db_, "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (q) {
    q.Text(1, key);
    q.Text(2, model);
    q.Text(3, prompt_id);
    q.Text(4, reply.text);
    sqlite3_bind_int64(q.get(), 5, reply.prompt_tokens);
    sqlite3_bind_int64(q.get(), 6, reply.completion_tokens);
    sqlite3_bind_int64(q.get(), 7, static_cast<int64_t>(std::time(nullptr)));
  }
  if (!q || sqlite3_step(q.get()) != SQLITE_DONE) {
    if (last_error_.empty())
      last_error_ = "cache write failed: " + std::string(sqlite3_errmsg(db_));
  }
}

Result<CacheStats> Cache::Stats() {
  CacheStats stats;
  Statement q(db_,
              "SELECT count(*), coalesce(sum(prompt_tokens), 0), "
              "coalesce(sum(completion_tokens), 0) FROM replies");
  if (!q || sqlite3_step(q.get()) != SQLITE_ROW) return IoError(sqlite3_errmsg(db_));
  stats.entries = sqlite3_column_int64(q.get(), 0);
  stats.prompt_tokens = sqlite3_column_int64(q.get(), 1);
  stats.completion_tokens = sqlite3_column_int64(q.get(), 2);
  Statement m(db_, "SELECT model, count(*) FROM replies GROUP BY model ORDER BY 2 DESC");
  while (m && sqlite3_step(m.get()) == SQLITE_ROW) {
    stats.by_model.emplace_back(m.Column(0), sqlite3_column_int64(m.get(), 1));
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(path_, ec);
  stats.bytes = ec ? 0 : static_cast<int64_t>(size);
  return stats;
}

Status Cache::Clear() {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, "DELETE FROM replies; VACUUM;", nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  return rc == SQLITE_OK ? OkStatus() : IoError("cannot clear the cache: " + message);
}

Result<int64_t> Cache::MergeFrom(const std::string& other) {
  if (!std::filesystem::exists(other)) return NotFound(other + " does not exist");
  {
    Statement attach(db_, "ATTACH DATABASE ?1 AS other");
    if (!attach) return IoError(std::string("cannot merge caches: ") + sqlite3_errmsg(db_));
    attach.Text(1, other);
    if (sqlite3_step(attach.get()) != SQLITE_DONE) {
      return IoError("cannot open " + other + ": " + sqlite3_errmsg(db_));
    }
  }
  auto detach = [this] { sqlite3_exec(db_, "DETACH DATABASE other", nullptr, nullptr, nullptr); };
  bool ours = false;
  {
    Statement format(db_, "SELECT value FROM other.tala_cache_info WHERE key = 'format'");
    ours = format && sqlite3_step(format.get()) == SQLITE_ROW && format.Column(0) == "1";
  }
  if (!ours) {
    detach();
    return InvalidArgument(other + " is not a tala judge cache");
  }
  char* error = nullptr;
  int rc = sqlite3_exec(db_,
                        "INSERT OR IGNORE INTO replies (key, model, prompt, reply, prompt_tokens, "
                        "completion_tokens, created) SELECT key, model, prompt, reply, "
                        "prompt_tokens, completion_tokens, created FROM other.replies",
                        nullptr, nullptr, &error);
  int64_t added = sqlite3_changes(db_);
  std::string message = error ? error : "";
  sqlite3_free(error);
  detach();
  if (rc != SQLITE_OK) return IoError("cannot merge " + other + ": " + message);
  return added;
}

}  // namespace tala::runtime
