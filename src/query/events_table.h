// `_events`, the virtual table behind the events view: SQLite reads the event store
// (event_store.h) through it. Lookups by id and ranges of id (and of ts, when the log's times never
// go backwards) go straight to the records; every other column of an event is decoded from its log
// only when asked for.
#pragma once

#include "common/result.h"
#include "query/database.h"
#include "query/event_store.h"
#include "query/record_table.h"

namespace rastrace::query {

// Registers the module on `db`; `store` and `text` (one row per event: its template text, when
// loaded) must outlive the connection's use of `_events`.
Result<void> RegisterEventsTable(Database& db, EventStore& store, RecordTable& text);

// The columns of `_events` after its id, in order, with their SQL types (the saved database's
// table has the same, and `id INTEGER PRIMARY KEY` first).
inline constexpr std::string_view kEventColumns =
    "ts INTEGER, source INTEGER, offset INTEGER, hook INTEGER, "
    "subhook INTEGER, flags INTEGER, schema_id INTEGER, pid INTEGER, tid INTEGER, cpu INTEGER, "
    "data_word INTEGER, w1 INTEGER, w2 INTEGER, w3 INTEGER, w4 INTEGER, w5 INTEGER, buffer BLOB, "
    "text TEXT";

// The T and G flags as the 64-bit layout has them, for events of either layout.
uint16_t FlagsOf(const event::Event& e);

}  // namespace rastrace::query
