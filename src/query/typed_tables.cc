#include "query/typed_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "query/record_module.h"
#include "query/tables.h"
#include "schema/names.h"

namespace rastrace::query {

namespace {

std::string Lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Sources {
  EventStore* store = nullptr;
  schema::Decoder* decoder = nullptr;
};

struct Table {
  sqlite3_vtab base{};
  Sources sources;
  uint32_t schema = 0;
  std::vector<schema::FieldType> types;
};

// A row's field values, copied out of the decoder (whose views last until its next call: another
// cursor, of a self-join, may decode in between).
struct Row {
  std::vector<schema::Value> values;
  std::vector<std::string> bytes;  // the text of string and bytes values
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  Table* table = nullptr;
  uint64_t index = 0;  // the record (events.id - 1)
  uint64_t end = 0;
  StoredEvent record;
  bool have_event = false;
  event::Event event;
  Row row;
};

constexpr int kFixedColumns = static_cast<int>(std::size(kTypedEventColumns));
enum Column : int { kId = 0, kTs, kSource, kPid, kTid, kCpu };

int SetError(sqlite3_vtab* table, const std::string& message) {
  sqlite3_free(table->zErrMsg);
  table->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

int Connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
            char** error) {
  const Sources& sources = *static_cast<Sources*>(aux);
  // CREATE VIRTUAL TABLE name USING rastrace_schema(ID): argv[3] is the schema id.
  uint32_t id = 0;
  const std::string_view arg = argc > 3 ? std::string_view(argv[3]) : std::string_view();
  const auto parsed = std::from_chars(arg.data(), arg.data() + arg.size(), id);
  if (arg.empty() || parsed.ec != std::errc() || parsed.ptr != arg.data() + arg.size() ||
      id >= sources.decoder->catalog().size()) {
    *error = sqlite3_mprintf("rastrace_schema: no schema '%s'", std::string(arg).c_str());
    return SQLITE_ERROR;
  }
  const schema::Schema& s = sources.decoder->catalog().at(id);
  const int rc = sqlite3_declare_vtab(
      db, fmt::format("CREATE TABLE x({})", TypedColumnDefinitions(s)).c_str());
  if (rc != SQLITE_OK) return rc;
  auto table = std::make_unique<Table>();
  table->sources = sources;
  table->schema = id;
  for (const auto& f : s.fields) table->types.push_back(f.type);
  *out = &table.release()->base;  // SQLite owns it until xDisconnect
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* base) {
  std::unique_ptr<Table>(reinterpret_cast<Table*>(base));
  return SQLITE_OK;
}

// A scan of the event records, narrowed by constraints on id (a join with events or syscalls on
// an event id reads one record).
int BestIndex(sqlite3_vtab* base, sqlite3_index_info* info) {
  return BestIdRangeIndex(info, reinterpret_cast<Table*>(base)->sources.store->size());
}

int Open(sqlite3_vtab* base, sqlite3_vtab_cursor** out) {
  auto cursor = std::make_unique<Cursor>();
  cursor->table = reinterpret_cast<Table*>(base);
  *out = &cursor.release()->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* base) {
  std::unique_ptr<Cursor>(reinterpret_cast<Cursor*>(base));
  return SQLITE_OK;
}

// Moves to the first record of the table's schema at or after `cursor.index`.
int Settle(Cursor& cursor) {
  EventStore& store = *cursor.table->sources.store;
  cursor.have_event = false;
  for (; cursor.index < cursor.end; ++cursor.index) {
    auto record = store.Get(cursor.index);
    if (!record) return SetError(&cursor.table->base, record.error().message);
    if (record->schema == cursor.table->schema) {
      cursor.record = *record;
      return SQLITE_OK;
    }
  }
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* base, int, const char* ops, int argc, sqlite3_value** argv) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  const EventStore& store = *cursor->table->sources.store;
  uint64_t first = 0;
  uint64_t end = store.finished() ? store.size() : 0;
  NarrowIdRangeBy(ops, argc, argv, first, end);
  cursor->index = first;
  cursor->end = std::max(first, end);
  return Settle(*cursor);
}

int Next(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  ++cursor->index;
  return Settle(*cursor);
}

int Eof(sqlite3_vtab_cursor* base) {
  const auto* cursor = reinterpret_cast<Cursor*>(base);
  return cursor->index >= cursor->end;
}

// Reads the event from its log and decodes its fields into the cursor's row.
Result<void> DecodeRow(Cursor& cursor) {
  EventStore& store = *cursor.table->sources.store;
  if (auto read = store.Decode(cursor.record, cursor.event); !read) return read;
  const EventStore::Input* input = store.InputOf(cursor.record);
  if (input == nullptr) return MakeError("internal error: event of unknown source");
  const auto decoded =
      cursor.table->sources.decoder->Decode(cursor.event, input->byte_order, input->layout);
  Row& row = cursor.row;
  row.values.assign(decoded.values.begin(), decoded.values.end());
  row.bytes.resize(row.values.size());
  for (size_t i = 0; i < row.values.size(); ++i) {
    schema::Value& v = row.values[i];
    if (decoded.schema->id != cursor.table->schema) {
      v.present = false;  // cannot happen: the decoder named this event so when it was loaded
      continue;
    }
    row.bytes[i].assign(v.text);
    v.text = row.bytes[i];
  }
  cursor.have_event = true;
  return Ok();
}

int ColumnValue(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  auto& cursor = *reinterpret_cast<Cursor*>(base);
  const StoredEvent& r = cursor.record;
  switch (column) {
    case kId:
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(cursor.index + 1));
      return SQLITE_OK;
    case kTs:
      sqlite3_result_int64(context, r.ts);
      return SQLITE_OK;
    case kSource:
      sqlite3_result_int64(context, r.source);
      return SQLITE_OK;
    case kPid:
      ResultNumberOrNull(context, r.pid, StoredEvent::kNoPid);
      return SQLITE_OK;
    case kCpu:
      ResultNumberOrNull(context, r.cpu, StoredEvent::kNone);
      return SQLITE_OK;
    default:
      break;
  }
  if (!cursor.have_event) {
    if (auto decoded = DecodeRow(cursor); !decoded) {
      sqlite3_result_error(context, decoded.error().message.c_str(), -1);
      return SQLITE_ERROR;
    }
  }
  if (column == kTid) {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(cursor.event.thread_id));
    return SQLITE_OK;
  }
  const auto field = static_cast<size_t>(column - kFixedColumns);
  if (field >= cursor.row.values.size() || field >= cursor.table->types.size() ||
      !cursor.row.values[field].present) {
    sqlite3_result_null(context);
    return SQLITE_OK;
  }
  const schema::Value& v = cursor.row.values[field];
  switch (cursor.table->types[field]) {
    case schema::FieldType::kSigned:
    case schema::FieldType::kUnsigned:
    case schema::FieldType::kHex:
      // SQLite integers are signed 64-bit: an unsigned value above 2^63 - 1 keeps its bits.
      sqlite3_result_int64(context, v.as_signed());
      break;
    case schema::FieldType::kFloat:
      sqlite3_result_double(context, v.real);
      break;
    case schema::FieldType::kString:
      sqlite3_result_text(context, v.text.data(), static_cast<int>(v.text.size()),
                          SQLITE_TRANSIENT);
      break;
    case schema::FieldType::kBytes:
      sqlite3_result_blob(context, v.text.empty() ? "" : v.text.data(),
                          static_cast<int>(v.text.size()), SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<Cursor*>(base)->index + 1);
  return SQLITE_OK;
}

const sqlite3_module kSchemaModule = ReadOnlyModule(
    {Connect, BestIndex, Disconnect, Open, Close, Filter, Next, Eof, ColumnValue, Rowid});

}  // namespace

std::string_view SqlTypeOf(schema::FieldType type) {
  switch (type) {
    case schema::FieldType::kSigned:
    case schema::FieldType::kUnsigned:
    case schema::FieldType::kHex:
      return "INTEGER";
    case schema::FieldType::kFloat:
      return "REAL";
    case schema::FieldType::kString:
      return "TEXT";
    case schema::FieldType::kBytes:
      return "BLOB";
  }
  return "";
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::vector<std::string> TypedColumnNames(const schema::Schema& s) {
  std::vector<std::string> names(std::begin(kTypedEventColumns), std::end(kTypedEventColumns));
  for (const schema::Field& f : s.fields) {
    const bool clashes = std::find(std::begin(kTypedEventColumns), std::end(kTypedEventColumns),
                                   Lowered(f.name)) != std::end(kTypedEventColumns);
    names.push_back(clashes ? "field_" + f.name : f.name);
  }
  schema::MakeUnique(names);
  return names;
}

std::string TypedColumnDefinitions(const schema::Schema& s) {
  const std::vector<std::string> names = TypedColumnNames(s);
  constexpr size_t kFixed = std::size(kTypedEventColumns);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string_view type = i < kFixed ? "INTEGER" : SqlTypeOf(s.fields[i - kFixed].type);
    out += fmt::format("{}{} {}", i == 0 ? "" : ", ", QuoteIdentifier(names[i]), type);
  }
  return out;
}

Result<std::unique_ptr<TypedTables>> TypedTables::Register(Database& db, EventStore& store,
                                                           schema::Decoder& decoder) {
  // Owned by the module from here: SQLite frees it when the connection closes (or at once when
  // the registration fails).
  Sources* sources = std::make_unique<Sources>(Sources{&store, &decoder}).release();
  const auto free_sources = [](void* aux) { std::unique_ptr<Sources>(static_cast<Sources*>(aux)); };
  if (sqlite3_create_module_v2(db.get(), "rastrace_schema", &kSchemaModule, sources,
                               free_sources) != SQLITE_OK) {
    return Error{db.LastError()};
  }
  std::unique_ptr<TypedTables> tables(new TypedTables(decoder.catalog()));
  for (const TableInfo& table : Tables()) tables->taken_.insert(Lowered(table.name));
  return tables;
}

const std::string& TypedTables::NameOf(uint32_t id) {
  if (names_.size() <= id) names_.resize(id + 1);
  std::string& name = names_[id];
  if (!name.empty()) return name;
  std::string base = catalog_.at(id).name;
  // SQLite keeps names starting with sqlite_ for itself.
  if (Lowered(base).rfind("sqlite_", 0) == 0) base = "event_" + base;
  std::string candidate = base;
  if (taken_.contains(Lowered(base))) {
    candidate = base + "_event";
    for (int n = 2; taken_.contains(Lowered(candidate)); ++n) {
      candidate = fmt::format("{}_event_{}", base, n);
    }
  }
  taken_.insert(Lowered(candidate));
  name = std::move(candidate);
  pending_.push_back(id);
  return name;
}

Result<void> TypedTables::CreateNew(Database& db) {
  for (uint32_t id : pending_) {
    const std::string sql = fmt::format("CREATE VIRTUAL TABLE {} USING rastrace_schema({})",
                                        QuoteIdentifier(names_[id]), id);
    if (auto made = db.Exec(sql); !made) {
      return MakeError("creating the table of schema {}: {}", names_[id], made.error().message);
    }
    created_.push_back(id);
  }
  pending_.clear();
  return Ok();
}

}  // namespace rastrace::query
