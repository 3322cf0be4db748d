// The events' records (event_store.h) and _schemas (the names their schema column points at).
#include "query/event_store.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

class EventFiller : public Filler {
 public:
  EventFiller(EventStore& store, Statement insert_schema, SchemaNames& schemas)
      : store_(store), insert_schema_(std::move(insert_schema)), schemas_(schemas) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    bool new_schema = false;
    const std::optional<uint32_t> schema = schemas_.IdOf(e, new_schema);
    if (new_schema) {
      insert_schema_.BindInt(1, *schema);
      insert_schema_.BindText(2, schemas_.Name(*schema));
      if (auto done = insert_schema_.Run(); !done) return done;
    }
    StoredEvent record;
    record.offset = e.offset;
    record.ts = row.ts;
    if (row.pid) record.pid = *row.pid;
    if (row.cpu) record.cpu = *row.cpu;
    record.source = static_cast<uint32_t>(row.source);
    if (schema) record.schema = *schema;
    return store_.Append(record);
  }

  Result<void> Finish(int64_t) override { return Ok(); }

 private:
  EventStore& store_;
  Statement insert_schema_;
  SchemaNames& schemas_;
};

}  // namespace

Result<std::unique_ptr<Filler>> MakeEventFiller(Database& db, EventStore& store,
                                                SchemaNames& schemas) {
  auto insert_schema = db.PrepareForLoad("INSERT INTO _schemas VALUES(?, ?)");
  if (!insert_schema) return insert_schema.error();
  return std::unique_ptr<Filler>(
      std::make_unique<EventFiller>(store, std::move(insert_schema).value(), schemas));
}

}  // namespace rastrace::query
