// A thin RAII layer over the SQLite C API: a connection, prepared statements, and errors as
// values carrying SQLite's own message. Nothing here knows about traces.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rastrace::query {

class Statement {
 public:
  Statement() = default;
  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;

  // Binding: `index` from 1, as SQLite counts. Text and blobs are not copied: they must stay
  // valid until the statement is stepped (the loader binds views into the event it holds).
  void BindInt(int index, int64_t value) { sqlite3_bind_int64(get(), index, value); }
  void BindNull(int index) { sqlite3_bind_null(get(), index); }
  void BindText(int index, std::string_view text) {
    sqlite3_bind_text(get(), index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  void BindBlob(int index, std::span<const uint8_t> bytes) {
    // A zero-length blob is still a blob, not NULL: bind an empty one explicitly.
    if (bytes.empty()) {
      sqlite3_bind_zeroblob(get(), index, 0);
    } else {
      sqlite3_bind_blob(get(), index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
    }
  }
  template <class T>
  void BindOptional(int index, const T& value) {
    if (value) {
      BindInt(index, static_cast<int64_t>(*value));
    } else {
      BindNull(index);
    }
  }

  // Runs an INSERT/UPDATE to completion and resets it for the next row.
  Result<void> Run();
  // One step of a query: true with a row, false at the end.
  Result<bool> Step();
  void Reset() { sqlite3_reset(get()); }

  int ColumnCount() const { return sqlite3_column_count(get()); }
  int ColumnType(int column) const { return sqlite3_column_type(get(), column); }
  int64_t ColumnInt(int column) const { return sqlite3_column_int64(get(), column); }
  double ColumnDouble(int column) const { return sqlite3_column_double(get(), column); }
  std::string_view ColumnText(int column) const;
  std::span<const uint8_t> ColumnBlob(int column) const;
  std::string_view ColumnName(int column) const { return sqlite3_column_name(get(), column); }
  // True for statements that do not change the database (SELECT, EXPLAIN, most PRAGMAs).
  bool ReadOnly() const { return sqlite3_stmt_readonly(get()) != 0; }

  sqlite3_stmt* get() const { return statement_.get(); }
  explicit operator bool() const { return statement_ != nullptr; }

 private:
  friend class Database;
  struct Finalizer {
    void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
  };
  explicit Statement(sqlite3_stmt* statement) : statement_(statement) {}
  std::unique_ptr<sqlite3_stmt, Finalizer> statement_;
};

class Database {
 public:
  // ":memory:" is a database in memory; "" a private temporary file SQLite deletes on close
  // (pages beyond the cache go to disk: memory stays bounded); anything else a file.
  static Result<Database> Open(const std::string& path);

  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;

  // Runs one or more statements that return no rows of interest.
  Result<void> Exec(std::string_view sql);
  // Prepares the first statement of `sql`; `tail` (when given) receives what follows it. An
  // empty statement (only blanks or comments) gives a Statement that is false.
  Result<Statement> Prepare(std::string_view sql, std::string_view* tail = nullptr);
  // For statements run once per row: SQLite keeps them in its long-lived memory.
  Result<Statement> PrepareForLoad(std::string_view sql);

  // SQLite's message for the last failure on this connection.
  std::string LastError() const { return sqlite3_errmsg(get()); }
  sqlite3* get() const { return db_.get(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  explicit Database(sqlite3* db) : db_(db) {}
  Result<Statement> PrepareWithFlags(std::string_view sql, unsigned flags, std::string_view* tail);
  std::unique_ptr<sqlite3, Closer> db_;
};

// SQL text of a string literal: quoted, quotes doubled.
std::string QuoteSql(std::string_view text);

}  // namespace rastrace::query
