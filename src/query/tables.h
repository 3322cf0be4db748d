// The tables and views `rastrace sql` offers (docs/sql.md documents every column): their
// definitions, where their rows live, and which load part fills them.
#pragma once

#include <bitset>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "query/database.h"
#include "query/record_table.h"

namespace rastrace::query {

// What a pass can fill. Each is filled at most once per database.
enum class Part : uint8_t {
  kEvents,          // the event store (events)
  kEventText,       // the template text of every event (the costly part)
  kProcesses,       // processes and threads
  kSyscalls,        // syscalls
  kSched,           // sched
  kSlices,          // slices
  kTracepointHits,  // tracepoint_hits
  kLosses,          // losses
  // Every event named by the schema decoder: events.schema, the schemas table and the typed
  // tables. Apart from kEvents since naming costs a third of the events' own load.
  kSchemaNames,
  kCount,
};
inline constexpr size_t kPartCount = static_cast<size_t>(Part::kCount);
using Parts = std::bitset<kPartCount>;
inline Parts AllParts() {
  return Parts().set();
}
inline Parts PartSet(std::initializer_list<Part> parts) {
  Parts out;
  for (Part p : parts) out.set(static_cast<size_t>(p));
  return out;
}

enum class Backing : uint8_t {
  kSqlite,   // an SQLite table (small ones: sources, schemas)
  kRecords,  // a RecordTable served by a virtual table (record_module.h)
  kEvents,   // the event store, served by `_events` (events_table.h)
  kView,
};

struct TableInfo {
  std::string_view name;
  Backing backing = Backing::kSqlite;
  bool internal = false;  // storage behind a view: left out of .tables, still readable
  // kSqlite: the column definitions; kRecords: the columns after the id; kView: the SELECT.
  std::string_view definition;
  std::string_view id = "id";  // kRecords: the name of the first column (the row number)
  // kView: its columns with their types ("id INTEGER, ts INTEGER, ..."), for files that hold the
  // view's rows (partitions).
  std::string_view view_columns = "";
};
std::span<const TableInfo> Tables();
const TableInfo* FindTable(std::string_view name);

// Every column of a table or view with its type, as docs/sql.md documents it ("id INTEGER, ..."):
// "CREATE TABLE name(" + this + ")" holds its rows (partitions' schema.sql).
std::string TypedColumns(const TableInfo& table);

// The columns of a kRecords table after its id.
std::vector<RecordColumn> RecordColumns(const TableInfo& table);

// The RecordTables behind the kRecords tables, and the events' text (one column, row n for event
// n + 1), made empty for a database.
class RecordTables {
 public:
  static Result<RecordTables> Create();
  RecordTable& Get(std::string_view name);
  RecordTable& text() { return *text_; }
  const std::vector<std::unique_ptr<RecordTable>>& all() const { return tables_; }

 private:
  std::vector<std::unique_ptr<RecordTable>> tables_;
  std::unique_ptr<RecordTable> text_;
};

// kLive: the database `rastrace sql` queries, whose big tables are virtual tables over their
// record files; kSaved: a database file any SQLite client opens (--save), every table a table.
enum class Storage : uint8_t { kLive, kSaved };

// The statement that creates `table` in `schema` ("" for main, or an attached database's name).
std::string CreateSql(const TableInfo& table, Storage storage, std::string_view schema = "");
// Creates every table and view (kLive: the modules of the virtual tables must be registered).
Result<void> CreateTables(Database& db, Storage storage, std::string_view schema = "");

// The parts a read of `column` of `table` needs filled (as the authorizer reports reads: a view's
// own column, or a table's); `column` empty means the whole table (count(*)). Empty for tables
// that are always complete (sources) and for names that are not ours.
Parts PartsForRead(std::string_view table, std::string_view column);

// True for the names of our views, whose expansion reads every column behind them (the
// authorizer reports those reads too; they say nothing about what a statement uses).
bool IsOurView(std::string_view name);

}  // namespace rastrace::query
