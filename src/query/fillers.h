// The table fillers of a load pass (one file each): every one reads events in order and writes
// its table's rows through prepared statements.
#pragma once

#include <memory>

#include "common/result.h"
#include "export/pairs.h"
#include "query/database.h"
#include "query/event_store.h"
#include "query/loaded_event.h"
#include "query/record_table.h"
#include "query/typed_tables.h"
#include "schema/decoder.h"

namespace rastrace::query {

// The event store's records and the schemas table: every event named by `decoder`, and each new
// schema's table named by `typed` (created after the pass).
Result<std::unique_ptr<Filler>> MakeEventFiller(Database& db, EventStore& store,
                                                schema::Decoder& decoder, TypedTables& typed);
// The tables are the RecordTables of processes and threads, syscalls...
std::unique_ptr<Filler> MakeProcessFiller(RecordTable& processes, RecordTable& threads);
std::unique_ptr<Filler> MakeSyscallFiller(RecordTable& syscalls);
std::unique_ptr<Filler> MakeSchedFiller(RecordTable& sched);
std::unique_ptr<Filler> MakeSliceFiller(RecordTable& slices, exporter::PairTable pairs);
std::unique_ptr<Filler> MakeTracepointHitFiller(RecordTable& hits);
std::unique_ptr<Filler> MakeLossFiller(RecordTable& losses);

}  // namespace rastrace::query
