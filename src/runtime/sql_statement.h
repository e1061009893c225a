#pragma once
// SqlStatement: RAII for one prepared SQLite statement, with typed binds and reads, for the
// judge cache and tala serve's database.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tala::runtime {

class SqlStatement {
 public:
  SqlStatement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~SqlStatement() { sqlite3_finalize(s_); }
  SqlStatement(const SqlStatement&) = delete;
  SqlStatement& operator=(const SqlStatement&) = delete;
  sqlite3_stmt* get() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }
  void Text(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void Real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void Int(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  bool Step() { return sqlite3_step(s_) == SQLITE_ROW; }
  int Done() { return sqlite3_step(s_); }
  std::string Column(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, i));
    return p ? std::string(p, sqlite3_column_bytes(s_, i)) : std::string();
  }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

}  // namespace tala::runtime
