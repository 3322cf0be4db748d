// The virtual table over a RecordTable: a full scan in row order, or the rows of an id range.
#pragma once

#include <string>

#include "common/result.h"
#include "query/database.h"
#include "query/record_table.h"

namespace rastrace::query {

// Registers the module `rastrace_<table name>` serving `table` on `db`; then
// `CREATE VIRTUAL TABLE name USING rastrace_<name>` makes it queryable. `table` must outlive the
// connection's use of it.
Result<void> RegisterRecordTable(Database& db, RecordTable& table);

// The callbacks of a read-only virtual table, and the sqlite3_module SQLite takes for them
// (xCreate = xConnect: the tables have no storage of their own to make).
struct ReadOnlyCallbacks {
  decltype(sqlite3_module::xConnect) connect;
  decltype(sqlite3_module::xBestIndex) best_index;
  decltype(sqlite3_module::xDisconnect) disconnect;
  decltype(sqlite3_module::xOpen) open;
  decltype(sqlite3_module::xClose) close;
  decltype(sqlite3_module::xFilter) filter;
  decltype(sqlite3_module::xNext) next;
  decltype(sqlite3_module::xEof) eof;
  decltype(sqlite3_module::xColumn) column;
  decltype(sqlite3_module::xRowid) rowid;
};
sqlite3_module ReadOnlyModule(const ReadOnlyCallbacks& callbacks);

// "INTEGER", "TEXT", "BLOB".
std::string_view SqlType(ValueType type);

// Narrows the inclusive range [low, high] of integers by a constraint `column OP value` (SQLite's
// operator and right side): the integers it can let through. Values that are not numbers leave
// the range as it is (SQLite checks every row again); NULL empties it (low > high).
void NarrowRange(int op, sqlite3_value* value, int64_t& low, int64_t& high);
// The same for a row range [first, end) of 0-based rows whose ids are row + 1.
void NarrowIdRange(int op, sqlite3_value* value, uint64_t& first, uint64_t& end);

// xBestIndex of a table whose column 0 is the row id (row + 1) and that gives rows in id order:
// constraints on the id (=, <, <=, >, >=) are passed to xFilter, their operators as idxStr.
int BestIdRangeIndex(sqlite3_index_info* info, uint64_t rows);
// In xFilter: narrows [first, end) by the constraints BestIdRangeIndex passed (`ops`: idxStr).
void NarrowIdRangeBy(const char* ops, int argc, sqlite3_value** argv, uint64_t& first,
                     uint64_t& end);

// In xColumn: a stored number, or NULL where the store marks it unknown with `none` (the events
// table and the typed tables give pid and cpu this way).
template <typename T>
void ResultNumberOrNull(sqlite3_context* context, T value, T none) {
  if (value == none) {
    sqlite3_result_null(context);
  } else {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(value));
  }
}

}  // namespace rastrace::query
