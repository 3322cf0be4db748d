#include "query/events_table.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "event/format.h"
#include "query/record_module.h"

namespace rastrace::query {

namespace {

enum Column : int {
  kId = 0,
  kTs,
  kSource,
  kOffset,
  kHook,
  kSubhook,
  kFlags,
  kSchema,
  kPid,
  kTid,
  kCpu,
  kDataWord,
  kW1,
  kW5 = kW1 + 4,
  kBuffer,
  kText,
};

struct Sources {
  EventStore* store = nullptr;
  RecordTable* text = nullptr;
};

struct Table {
  sqlite3_vtab base{};
  Sources sources;
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  EventStore* store = nullptr;
  RecordTable* text = nullptr;
  std::unique_ptr<RecordTable::Reader> text_reader;
  uint64_t index = 0;  // the record (id - 1)
  uint64_t end = 0;    // one past the last record to give
  bool have_record = false;
  StoredEvent record;
  bool have_event = false;
  event::Event event;
};

// idxNum: per constraint used (at most 4), 4 bits: bit 3 = ts (else id), bits 0-2 the operator.
enum Op : int { kEq = 1, kGt, kGe, kLt, kLe };

int SqliteOp(int op) {
  switch (op) {
    case kEq:
      return SQLITE_INDEX_CONSTRAINT_EQ;
    case kGt:
      return SQLITE_INDEX_CONSTRAINT_GT;
    case kGe:
      return SQLITE_INDEX_CONSTRAINT_GE;
    case kLt:
      return SQLITE_INDEX_CONSTRAINT_LT;
    default:
      return SQLITE_INDEX_CONSTRAINT_LE;
  }
}

int OpOf(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
      return kEq;
    case SQLITE_INDEX_CONSTRAINT_GT:
      return kGt;
    case SQLITE_INDEX_CONSTRAINT_GE:
      return kGe;
    case SQLITE_INDEX_CONSTRAINT_LT:
      return kLt;
    case SQLITE_INDEX_CONSTRAINT_LE:
      return kLe;
    default:
      return 0;
  }
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const int rc = sqlite3_declare_vtab(
      db, fmt::format("CREATE TABLE x(id INTEGER, {})", kEventColumns).c_str());
  if (rc != SQLITE_OK) return rc;
  auto table = std::make_unique<Table>();
  table->sources = *static_cast<Sources*>(aux);
  // SQLite owns it until xDisconnect.
  *out = &table.release()->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* base) {
  std::unique_ptr<Table>(reinterpret_cast<Table*>(base));
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* base, sqlite3_index_info* info) {
  const EventStore& store = *reinterpret_cast<Table*>(base)->sources.store;
  int used = 0;
  int idx = 0;
  double rows = static_cast<double>(std::max<uint64_t>(store.size(), 1));
  bool id_eq = false;
  for (int i = 0; i < info->nConstraint && used < 4; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable) continue;
    const bool ts = c.iColumn == kTs;
    const bool id = c.iColumn == kId || c.iColumn == -1;
    if (!id && !(ts && store.ts_sorted())) continue;
    const int op = OpOf(c.op);
    if (op == 0) continue;
    idx |= (op | (ts ? 8 : 0)) << (4 * used);
    info->aConstraintUsage[i].argvIndex = ++used;
    // SQLite checks the constraint again: values that are not numbers are not narrowed here.
    info->aConstraintUsage[i].omit = 0;
    if (op == kEq && !ts) id_eq = true;
    rows = op == kEq ? (ts ? rows / 100 : 1) : rows / 4;
  }
  info->idxNum = idx;
  info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
  info->estimatedCost = id_eq ? 1 : std::max(rows, 1.0);
  if (id_eq) info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  // Rows come in id order (and so in ts order when ts never decreases).
  if (info->nOrderBy == 1 && !info->aOrderBy[0].desc &&
      (info->aOrderBy[0].iColumn == kId ||
       (info->aOrderBy[0].iColumn == kTs && store.ts_sorted()))) {
    info->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

int Open(sqlite3_vtab* base, sqlite3_vtab_cursor** out) {
  auto cursor = std::make_unique<Cursor>();
  const Sources& sources = reinterpret_cast<Table*>(base)->sources;
  cursor->store = sources.store;
  cursor->text = sources.text;
  cursor->text_reader = std::make_unique<RecordTable::Reader>(*sources.text);
  *out = &cursor.release()->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* base) {
  std::unique_ptr<Cursor>(reinterpret_cast<Cursor*>(base));
  return SQLITE_OK;
}

// The first record whose ts is at least `ts` (records [0, n) sorted by ts).
Result<uint64_t> LowerBound(EventStore& store, int64_t ts, uint64_t low, uint64_t high) {
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    auto record = store.Get(mid);
    if (!record) return record.error();
    if (record->ts < ts) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

int SetError(sqlite3_vtab* table, const std::string& message) {
  sqlite3_free(table->zErrMsg);
  table->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

int Filter(sqlite3_vtab_cursor* base, int idx, const char*, int argc, sqlite3_value** argv) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  EventStore& store = *cursor->store;
  cursor->have_record = false;
  cursor->have_event = false;
  uint64_t first = 0;
  uint64_t end = store.finished() ? store.size() : 0;
  // Times [ts_lo, ts_hi], narrowed by the numeric constraints on ts.
  int64_t ts_lo = std::numeric_limits<int64_t>::min();
  int64_t ts_hi = std::numeric_limits<int64_t>::max();
  for (int i = 0; i < argc && i < 4; ++i) {
    const int slot = (idx >> (4 * i)) & 15;
    const int op = SqliteOp(slot & 7);
    if ((slot & 8) == 0) {
      NarrowIdRange(op, argv[i], first, end);
      continue;
    }
    NarrowRange(op, argv[i], ts_lo, ts_hi);
  }
  if (first < end && store.ts_sorted() &&
      (ts_lo != std::numeric_limits<int64_t>::min() ||
       ts_hi != std::numeric_limits<int64_t>::max())) {
    if (ts_lo > ts_hi) {
      end = first;
    } else {
      auto from = LowerBound(store, ts_lo, first, end);
      if (!from) return SetError(base->pVtab, from.error().message);
      uint64_t to = end;
      if (ts_hi != std::numeric_limits<int64_t>::max()) {
        auto past = LowerBound(store, ts_hi + 1, *from, end);
        if (!past) return SetError(base->pVtab, past.error().message);
        to = *past;
      }
      first = *from;
      end = to;
    }
  }
  cursor->index = first;
  cursor->end = std::max(first, end);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  ++cursor->index;
  cursor->have_record = false;
  cursor->have_event = false;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* base) {
  const auto* cursor = reinterpret_cast<Cursor*>(base);
  return cursor->index >= cursor->end;
}

int ColumnValue(Cursor& cursor, sqlite3_context* context, int column) {
  if (column == kId) {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(cursor.index + 1));
    return SQLITE_OK;
  }
  if (column == kText) {
    // Row n of the text table is event n + 1's text; NULL while the text is not loaded.
    if (cursor.index >= cursor.text->rows()) {
      sqlite3_result_null(context);
      return SQLITE_OK;
    }
    if (auto sought = cursor.text_reader->Seek(cursor.index); !sought) {
      sqlite3_result_error(context, sought.error().message.c_str(), -1);
      return SQLITE_ERROR;
    }
    const RecordValue& v = cursor.text_reader->values()[0];
    if (v.null) {
      sqlite3_result_null(context);
    } else {
      sqlite3_result_text(context, v.bytes.data(), static_cast<int>(v.bytes.size()),
                          SQLITE_TRANSIENT);
    }
    return SQLITE_OK;
  }
  if (!cursor.have_record) {
    auto record = cursor.store->Get(cursor.index);
    if (!record) {
      sqlite3_result_error(context, record.error().message.c_str(), -1);
      return SQLITE_ERROR;
    }
    cursor.record = *record;
    cursor.have_record = true;
  }
  const StoredEvent& r = cursor.record;
  switch (column) {
    case kTs:
      sqlite3_result_int64(context, r.ts);
      return SQLITE_OK;
    case kSource:
      sqlite3_result_int64(context, r.source);
      return SQLITE_OK;
    case kOffset:
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(r.offset));
      return SQLITE_OK;
    case kSchema:
      ResultNumberOrNull(context, r.schema, StoredEvent::kNone);
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
    if (auto decoded = cursor.store->Decode(r, cursor.event); !decoded) {
      sqlite3_result_error(context, decoded.error().message.c_str(), -1);
      return SQLITE_ERROR;
    }
    cursor.have_event = true;
  }
  const event::Event& e = cursor.event;
  switch (column) {
    case kHook:
      sqlite3_result_int64(context, e.hook_id);
      break;
    case kSubhook:
      sqlite3_result_int64(context, e.subhook);
      break;
    case kFlags:
      sqlite3_result_int64(context, FlagsOf(e));
      break;
    case kTid:
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(e.thread_id));
      break;
    case kDataWord:
      if (e.generic) {
        sqlite3_result_int64(context, static_cast<sqlite3_int64>(e.generic_word));
      } else {
        sqlite3_result_null(context);
      }
      break;
    case kBuffer:
      if (e.generic) {
        // A zero-length blob, not NULL, for an empty buffer.
        sqlite3_result_blob(context,
                            e.buffer.empty() ? "" : static_cast<const void*>(e.buffer.data()),
                            static_cast<int>(e.buffer.size()), SQLITE_TRANSIENT);
      } else {
        sqlite3_result_null(context);
      }
      break;
    default: {
      const int word = column - kW1;
      if (word >= 0 && word < 5 && !e.generic && static_cast<unsigned>(word) < e.word_count) {
        sqlite3_result_int64(context,
                             static_cast<sqlite3_int64>(e.words[static_cast<size_t>(word)]));
      } else {
        sqlite3_result_null(context);
      }
    }
  }
  return SQLITE_OK;
}

int Column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  return ColumnValue(*reinterpret_cast<Cursor*>(base), context, column);
}

int Rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<Cursor*>(base)->index + 1);
  return SQLITE_OK;
}

const sqlite3_module kEventsModule =
    ReadOnlyModule({Connect, BestIndex, Disconnect, Open, Close, Filter, Next, Eof, Column, Rowid});

}  // namespace

uint16_t FlagsOf(const event::Event& e) {
  if (e.layout == event::Layout::k64) return e.flags;
  return static_cast<uint16_t>((e.timestamped ? event::kFlagTimestamp : 0) |
                               (e.generic ? event::kFlagGeneric : 0));
}

Result<void> RegisterEventsTable(Database& db, EventStore& store, RecordTable& text) {
  // Owned by the module from here: SQLite frees it when the connection closes (or at once when
  // the registration fails).
  Sources* sources = std::make_unique<Sources>(Sources{&store, &text}).release();
  const auto free_sources = [](void* aux) { std::unique_ptr<Sources>(static_cast<Sources*>(aux)); };
  if (sqlite3_create_module_v2(db.get(), "rastrace_events", &kEventsModule, sources,
                               free_sources) != SQLITE_OK) {
    return Error{db.LastError()};
  }
  return Ok();
}

}  // namespace rastrace::query
