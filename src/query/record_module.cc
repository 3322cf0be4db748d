#include "query/record_module.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>

namespace rastrace::query {

namespace {

struct Table {
  sqlite3_vtab base{};
  RecordTable* records = nullptr;
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  RecordTable* records = nullptr;
  std::unique_ptr<RecordTable::Reader> reader;
  uint64_t row = 0;
  uint64_t end = 0;
  bool decoded = false;
};

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* records = static_cast<RecordTable*>(aux);
  std::string columns = records->id_name() + " INTEGER";
  for (const RecordColumn& c : records->columns()) {
    columns += fmt::format(", {} {}", c.name, SqlType(c.type));
  }
  const int rc = sqlite3_declare_vtab(db, fmt::format("CREATE TABLE x({})", columns).c_str());
  if (rc != SQLITE_OK) return rc;
  auto table = std::make_unique<Table>();
  table->records = records;
  *out = &table.release()->base;  // SQLite owns it until xDisconnect
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* base) {
  std::unique_ptr<Table>(reinterpret_cast<Table*>(base));
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* base, sqlite3_index_info* info) {
  return BestIdRangeIndex(info, reinterpret_cast<Table*>(base)->records->rows());
}

int Open(sqlite3_vtab* base, sqlite3_vtab_cursor** out) {
  auto cursor = std::make_unique<Cursor>();
  cursor->records = reinterpret_cast<Table*>(base)->records;
  cursor->reader = std::make_unique<RecordTable::Reader>(*cursor->records);
  *out = &cursor.release()->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* base) {
  std::unique_ptr<Cursor>(reinterpret_cast<Cursor*>(base));
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* base, int, const char* ops, int argc, sqlite3_value** argv) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  uint64_t first = 0;
  uint64_t end = cursor->records->rows();
  NarrowIdRangeBy(ops, argc, argv, first, end);
  cursor->row = first;
  cursor->end = std::max(first, end);
  cursor->decoded = false;
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  ++cursor->row;
  cursor->decoded = false;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* base) {
  const auto* cursor = reinterpret_cast<Cursor*>(base);
  return cursor->row >= cursor->end;
}

int Column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  if (column == 0) {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(cursor->row + 1));
    return SQLITE_OK;
  }
  if (!cursor->decoded) {
    if (auto sought = cursor->reader->Seek(cursor->row); !sought) {
      sqlite3_result_error(context, sought.error().message.c_str(), -1);
      return SQLITE_ERROR;
    }
    cursor->decoded = true;
  }
  const auto index = static_cast<size_t>(column - 1);
  const RecordValue& v = cursor->reader->values()[index];
  if (v.null) {
    sqlite3_result_null(context);
    return SQLITE_OK;
  }
  switch (cursor->records->columns()[index].type) {
    case ValueType::kInt:
      sqlite3_result_int64(context, v.number);
      break;
    case ValueType::kText:
      sqlite3_result_text(context, v.bytes.data(), static_cast<int>(v.bytes.size()),
                          SQLITE_TRANSIENT);
      break;
    case ValueType::kBlob:
      sqlite3_result_blob(context, v.bytes.empty() ? "" : v.bytes.data(),
                          static_cast<int>(v.bytes.size()), SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<Cursor*>(base)->row + 1);
  return SQLITE_OK;
}

const sqlite3_module kRecordModule =
    ReadOnlyModule({Connect, BestIndex, Disconnect, Open, Close, Filter, Next, Eof, Column, Rowid});

}  // namespace

namespace {

bool IdConstraint(unsigned char op) {
  return op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_GT ||
         op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_LT ||
         op == SQLITE_INDEX_CONSTRAINT_LE;
}

}  // namespace

int BestIdRangeIndex(sqlite3_index_info* info, uint64_t row_count) {
  double rows = static_cast<double>(std::max<uint64_t>(row_count, 1));
  std::string ops;  // one operator per argument, passed as idxStr
  bool unique = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || (c.iColumn != 0 && c.iColumn != -1) || !IdConstraint(c.op)) continue;
    ops.push_back(static_cast<char>(c.op));
    info->aConstraintUsage[i].argvIndex = static_cast<int>(ops.size());
    info->aConstraintUsage[i].omit = 0;  // SQLite checks again (values that are not numbers)
    if (c.op == SQLITE_INDEX_CONSTRAINT_EQ) unique = true;
    rows = c.op == SQLITE_INDEX_CONSTRAINT_EQ ? 1 : rows / 4;
  }
  if (!ops.empty()) {
    info->idxStr = sqlite3_mprintf("%s", ops.c_str());
    info->needToFreeIdxStr = 1;
  }
  info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
  info->estimatedCost = std::max(rows, 1.0);
  if (unique) info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  if (info->nOrderBy == 1 && !info->aOrderBy[0].desc &&
      (info->aOrderBy[0].iColumn == 0 || info->aOrderBy[0].iColumn == -1)) {
    info->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

void NarrowIdRangeBy(const char* ops, int argc, sqlite3_value** argv, uint64_t& first,
                     uint64_t& end) {
  for (int i = 0; i < argc && ops != nullptr && ops[i] != '\0'; ++i) {
    NarrowIdRange(static_cast<unsigned char>(ops[i]), argv[i], first, end);
  }
}

sqlite3_module ReadOnlyModule(const ReadOnlyCallbacks& c) {
  sqlite3_module m{};
  m.xCreate = c.connect;
  m.xConnect = c.connect;
  m.xBestIndex = c.best_index;
  m.xDisconnect = c.disconnect;
  m.xDestroy = c.disconnect;
  m.xOpen = c.open;
  m.xClose = c.close;
  m.xFilter = c.filter;
  m.xNext = c.next;
  m.xEof = c.eof;
  m.xColumn = c.column;
  m.xRowid = c.rowid;
  return m;
}

std::string_view SqlType(ValueType type) {
  switch (type) {
    case ValueType::kInt:
      return "INTEGER";
    case ValueType::kText:
      return "TEXT";
    case ValueType::kBlob:
      return "BLOB";
  }
  return "";
}

void NarrowRange(int op, sqlite3_value* value, int64_t& low, int64_t& high) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int type = sqlite3_value_numeric_type(value);
  if (type == SQLITE_NULL) {
    low = kMax;
    high = kMin;
    return;
  }
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) return;
  const bool integer = type == SQLITE_INTEGER;
  const int64_t v = sqlite3_value_int64(value);
  const double d = sqlite3_value_double(value);
  auto clamp = [](double x) -> int64_t {
    if (x <= -9.2e18) return kMin;
    if (x >= 9.2e18) return kMax;
    return static_cast<int64_t>(x);
  };
  const int64_t floor_v = integer ? v : clamp(std::floor(d));
  const int64_t ceil_v = integer ? v : clamp(std::ceil(d));
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
      low = std::max(low, ceil_v);
      high = std::min(high, floor_v);
      break;
    case SQLITE_INDEX_CONSTRAINT_GT:
      if (floor_v == kMax) {
        low = kMax;
        high = kMin;
      } else {
        low = std::max(low, floor_v + 1);
      }
      break;
    case SQLITE_INDEX_CONSTRAINT_GE:
      low = std::max(low, ceil_v);
      break;
    case SQLITE_INDEX_CONSTRAINT_LT:
      if (ceil_v == kMin) {
        low = kMax;
        high = kMin;
      } else {
        high = std::min(high, ceil_v - 1);
      }
      break;
    case SQLITE_INDEX_CONSTRAINT_LE:
      high = std::min(high, floor_v);
      break;
    default:
      break;
  }
}

void NarrowIdRange(int op, sqlite3_value* value, uint64_t& first, uint64_t& end) {
  if (end <= first) return;
  int64_t low = static_cast<int64_t>(first) + 1;
  int64_t high = static_cast<int64_t>(end);
  NarrowRange(op, value, low, high);
  if (low > high) {
    end = first;
    return;
  }
  first = static_cast<uint64_t>(low - 1);
  end = static_cast<uint64_t>(high);
}

Result<void> RegisterRecordTable(Database& db, RecordTable& table) {
  const std::string module = "rastrace_" + table.name();
  if (sqlite3_create_module(db.get(), module.c_str(), &kRecordModule, &table) != SQLITE_OK) {
    return Error{db.LastError()};
  }
  return Ok();
}

}  // namespace rastrace::query
