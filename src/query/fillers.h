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

// Names events by the schema decoder and adds a schemas row for each new schema (its typed
// table named by `typed`, created after the pass).
class SchemaNames {
 public:
  static Result<SchemaNames> Create(Database& db, schema::Decoder& decoder, TypedTables& typed);

  // The id of the schema of `e`.
  Result<uint32_t> Name(const event::Event& e, ByteOrder order, event::Layout trace_layout) {
    const uint32_t id = decoder_->Identify(e, order, trace_layout).id;
    if (id >= named_) {
      if (auto added = AddSchemas(); !added) return added.error();
    }
    return id;
  }
  // Names the events of a store loaded unnamed (read back from their logs).
  Result<void> NameStored(EventStore& store);

 private:
  SchemaNames(Statement insert_schema, schema::Decoder& decoder, TypedTables& typed)
      : insert_schema_(std::move(insert_schema)), decoder_(&decoder), typed_(&typed) {}
  Result<void> AddSchemas();

  Statement insert_schema_;
  schema::Decoder* decoder_;
  TypedTables* typed_;
  uint32_t named_ = 0;  // schemas of the catalog in the schemas table
};

// The event store's records, each named by `names` (null: left unnamed).
std::unique_ptr<Filler> MakeEventFiller(EventStore& store, SchemaNames* names);
// The tables are the RecordTables of processes and threads, syscalls...
std::unique_ptr<Filler> MakeProcessFiller(RecordTable& processes, RecordTable& threads);
std::unique_ptr<Filler> MakeSyscallFiller(RecordTable& syscalls);
std::unique_ptr<Filler> MakeSchedFiller(RecordTable& sched);
std::unique_ptr<Filler> MakeSliceFiller(RecordTable& slices, exporter::PairTable pairs);
std::unique_ptr<Filler> MakeTracepointHitFiller(RecordTable& hits);
std::unique_ptr<Filler> MakeLossFiller(RecordTable& losses);

}  // namespace rastrace::query
