#include "query/database.h"

namespace rastrace::query {

namespace {

Error SqliteError(sqlite3* db) {
  return Error{sqlite3_errmsg(db)};
}

// Process-wide settings, before the first connection: memory statistics take a global mutex on
// every allocation, and nothing here reads them.
void ConfigureOnce() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}

}  // namespace

std::string_view Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(get(), column));
  if (text == nullptr) return {};
  return {text, static_cast<size_t>(sqlite3_column_bytes(get(), column))};
}

std::span<const uint8_t> Statement::ColumnBlob(int column) const {
  const auto* blob = static_cast<const uint8_t*>(sqlite3_column_blob(get(), column));
  if (blob == nullptr) return {};
  return {blob, static_cast<size_t>(sqlite3_column_bytes(get(), column))};
}

Result<void> Statement::Run() {
  const int rc = sqlite3_step(get());
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
    sqlite3_reset(get());
    return Ok();
  }
  Error error = SqliteError(sqlite3_db_handle(get()));
  sqlite3_reset(get());
  return error;
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(sqlite3_db_handle(get()));
}

Result<Database> Database::Open(const std::string& path) {
  ConfigureOnce();
  sqlite3* raw = nullptr;
  // No mutex per connection: a connection is used by one thread at a time.
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) {
    if (raw == nullptr) return Error{"cannot allocate an SQLite connection"};
    return MakeError("{}: {}", path, sqlite3_errmsg(raw));
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Result<void> Database::Exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(get(), text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    Error error{message != nullptr ? message : LastError()};
    sqlite3_free(message);
    return error;
  }
  return Ok();
}

Result<Statement> Database::PrepareWithFlags(std::string_view sql, unsigned flags,
                                             std::string_view* tail) {
  sqlite3_stmt* raw = nullptr;
  const char* end = nullptr;
  const int rc =
      sqlite3_prepare_v3(get(), sql.data(), static_cast<int>(sql.size()), flags, &raw, &end);
  Statement statement(raw);
  if (rc != SQLITE_OK) return SqliteError(get());
  if (tail != nullptr) {
    *tail = end == nullptr ? std::string_view() : sql.substr(static_cast<size_t>(end - sql.data()));
  }
  return statement;
}

Result<Statement> Database::Prepare(std::string_view sql, std::string_view* tail) {
  return PrepareWithFlags(sql, 0, tail);
}

Result<Statement> Database::PrepareForLoad(std::string_view sql) {
  return PrepareWithFlags(sql, SQLITE_PREPARE_PERSISTENT, nullptr);
}

std::string QuoteSql(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace rastrace::query
