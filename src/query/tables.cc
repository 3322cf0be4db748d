#include "query/tables.h"

#include <fmt/format.h>

#include <cstdlib>

#include "query/events_table.h"

namespace rastrace::query {

namespace {

// Times are nanoseconds: `ts`-like columns count from the trace start (the first timestamp of
// all logs loaded), so events of several logs compare; `wall` is nanoseconds since 1970 (UTC).
constexpr TableInfo kTables[] = {
    {"sources", Backing::kSqlite, false,
     "id INTEGER PRIMARY KEY, name TEXT, path TEXT, node TEXT, sysname TEXT, release TEXT, "
     "version TEXT, machine TEXT, command TEXT, start_wall INTEGER, wall_offset INTEGER, "
     "byte_order TEXT, word_size INTEGER, events INTEGER, damaged_offset INTEGER, error TEXT"},
    {"schemas", Backing::kSqlite, false,
     "id INTEGER PRIMARY KEY, name TEXT, table_name TEXT, family TEXT, title TEXT, "
     "described_by TEXT"},
    {"_events", Backing::kEvents, true, ""},
    {"events", Backing::kView, false,
     "SELECT e.id AS id, e.ts AS ts, "
     "e.ts + (SELECT s.wall_offset FROM sources s WHERE s.id = e.source) AS wall, "
     "e.source AS source, e.offset AS offset, e.hook AS hook, "
     "CASE WHEN e.hook & 15 = 0 THEN printf('%03X', e.hook >> 4) "
     "ELSE printf('%04X', e.hook) END AS template, "
     "e.subhook AS subhook, "
     "(SELECT c.name FROM schemas c WHERE c.id = e.schema_id) AS schema, "
     "e.pid AS pid, e.tid AS tid, e.cpu AS cpu, "
     "(e.flags >> 15) & 1 AS timestamped, (e.flags >> 14) & 1 AS generic, "
     "e.data_word AS data_word, e.w1 AS w1, e.w2 AS w2, e.w3 AS w3, e.w4 AS w4, e.w5 AS w5, "
     "e.buffer AS buffer, e.text AS text "
     "FROM _events e",
     "id",
     "id INTEGER, ts INTEGER, wall INTEGER, source INTEGER, offset INTEGER, hook INTEGER, "
     "template TEXT, subhook INTEGER, schema TEXT, pid INTEGER, tid INTEGER, cpu INTEGER, "
     "timestamped INTEGER, generic INTEGER, data_word INTEGER, w1 INTEGER, w2 INTEGER, "
     "w3 INTEGER, w4 INTEGER, w5 INTEGER, buffer BLOB, text TEXT"},
    {"processes", Backing::kRecords, false,
     "source INTEGER, pid INTEGER, ppid INTEGER, exec TEXT, name TEXT, start_ts INTEGER, "
     "end_ts INTEGER, first_ts INTEGER, last_ts INTEGER, events INTEGER",
     "upid"},
    {"threads", Backing::kRecords, false,
     "source INTEGER, tid INTEGER, pid INTEGER, upid INTEGER, name TEXT, start_ts INTEGER, "
     "end_ts INTEGER, first_ts INTEGER, last_ts INTEGER, events INTEGER",
     "utid"},
    {"syscalls", Backing::kRecords, false,
     "ts INTEGER, dur INTEGER, end_ts INTEGER, source INTEGER, tid INTEGER, pid INTEGER, "
     "name TEXT, nr INTEGER, ret INTEGER, arg1 INTEGER, arg2 INTEGER, arg3 INTEGER, "
     "arg4 INTEGER, arg5 INTEGER, arg6 INTEGER, entry_event INTEGER, exit_event INTEGER"},
    {"sched", Backing::kRecords, false,
     "ts INTEGER, dur INTEGER, cpu INTEGER, source INTEGER, prev_tid INTEGER, prev_pid INTEGER, "
     "prev_state TEXT, next_tid INTEGER, next_pid INTEGER, next_prio INTEGER, event INTEGER"},
    {"slices", Backing::kRecords, false,
     "ts INTEGER, dur INTEGER, end_ts INTEGER, name TEXT, category TEXT, depth INTEGER, "
     "source INTEGER, tid INTEGER, pid INTEGER, key INTEGER, begin_event INTEGER, "
     "end_event INTEGER, unterminated TEXT"},
    {"tracepoint_hits", Backing::kRecords, false,
     "event INTEGER, ts INTEGER, source INTEGER, tid INTEGER, pid INTEGER, major INTEGER, "
     "minor INTEGER, flags INTEGER, procedure TEXT, kind TEXT, data BLOB"},
    {"losses", Backing::kRecords, false,
     "event INTEGER, ts INTEGER, source INTEGER, offset INTEGER, tid INTEGER, pid INTEGER, "
     "count INTEGER"},
};

}  // namespace

std::span<const TableInfo> Tables() {
  return kTables;
}

const TableInfo* FindTable(std::string_view name) {
  for (const TableInfo& table : kTables) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

Result<RecordTables> RecordTables::Create() {
  RecordTables out;
  for (const TableInfo& table : kTables) {
    if (table.backing != Backing::kRecords) continue;
    auto made =
        RecordTable::Create(std::string(table.name), RecordColumns(table), std::string(table.id));
    if (!made) return made.error();
    out.tables_.push_back(std::move(made).value());
  }
  auto text = RecordTable::Create("_event_text", {{"text", ValueType::kText}});
  if (!text) return text.error();
  out.text_ = std::move(text).value();
  return out;
}

RecordTable& RecordTables::Get(std::string_view name) {
  for (auto& table : tables_) {
    if (table->name() == name) return *table;
  }
  // A name from our own table list: asking for another is a bug here, not bad input.
  std::abort();
}

std::vector<RecordColumn> RecordColumns(const TableInfo& table) {
  std::vector<RecordColumn> columns;
  std::string_view rest = table.definition;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    const size_t space = item.find(' ');
    RecordColumn column;
    column.name = std::string(item.substr(0, space));
    const std::string_view type = space == std::string_view::npos ? "" : item.substr(space + 1);
    column.type = type == "TEXT"   ? ValueType::kText
                  : type == "BLOB" ? ValueType::kBlob
                                   : ValueType::kInt;
    columns.push_back(std::move(column));
  }
  return columns;
}

std::string TypedColumns(const TableInfo& table) {
  switch (table.backing) {
    case Backing::kView:
      return std::string(table.view_columns);
    case Backing::kSqlite: {
      std::string columns(table.definition);
      if (const size_t key = columns.find(" PRIMARY KEY"); key != std::string::npos) {
        columns.erase(key, std::string_view(" PRIMARY KEY").size());
      }
      return columns;
    }
    case Backing::kRecords:
      return fmt::format("{} INTEGER, {}", table.id, table.definition);
    case Backing::kEvents:
      return fmt::format("id INTEGER, {}", kEventColumns);
  }
  return {};
}

std::string CreateSql(const TableInfo& table, Storage storage, std::string_view schema) {
  const std::string prefix = schema.empty() ? "" : std::string(schema) + ".";
  switch (table.backing) {
    case Backing::kView:
      return fmt::format("CREATE VIEW {}{} AS {}", prefix, table.name, table.definition);
    case Backing::kSqlite:
      return fmt::format("CREATE TABLE {}{}({})", prefix, table.name, table.definition);
    case Backing::kRecords:
      if (storage == Storage::kLive) {
        return fmt::format("CREATE VIRTUAL TABLE {}{} USING rastrace_{}", prefix, table.name,
                           table.name);
      }
      return fmt::format("CREATE TABLE {}{}({} INTEGER PRIMARY KEY, {})", prefix, table.name,
                         table.id, table.definition);
    case Backing::kEvents:
      if (storage == Storage::kLive) {
        return fmt::format("CREATE VIRTUAL TABLE {}{} USING rastrace_events", prefix, table.name);
      }
      return fmt::format("CREATE TABLE {}{}(id INTEGER PRIMARY KEY, {})", prefix, table.name,
                         kEventColumns);
  }
  return {};
}

Result<void> CreateTables(Database& db, Storage storage, std::string_view schema) {
  for (const TableInfo& table : kTables) {
    if (auto made = db.Exec(CreateSql(table, storage, schema)); !made) {
      return MakeError("creating {}: {}", table.name, made.error().message);
    }
  }
  return Ok();
}

Parts PartsForRead(std::string_view table, std::string_view column) {
  using enum Part;
  if (table == "events" || table == "_events") {
    if (column == "text") return PartSet({kEvents, kEventText});
    if (column == "schema" || column == "schema_id") return PartSet({kEvents, kSchemaNames});
    return PartSet({kEvents});
  }
  if (table == "schemas") return PartSet({kEvents, kSchemaNames});
  if (table == "processes" || table == "threads") return PartSet({kProcesses});
  if (table == "syscalls") return PartSet({kSyscalls});
  if (table == "sched") return PartSet({kSched});
  if (table == "slices") return PartSet({kSlices});
  if (table == "tracepoint_hits") return PartSet({kTracepointHits});
  if (table == "losses") return PartSet({kLosses});
  return {};
}

bool IsOurView(std::string_view name) {
  const TableInfo* table = FindTable(name);
  return table != nullptr && table->backing == Backing::kView;
}

}  // namespace rastrace::query
