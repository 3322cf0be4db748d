// The events' records (event_store.h) and the schemas table (the names their schema column
// points at, and the typed table of each).
#include "query/event_store.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

class EventFiller : public Filler {
 public:
  EventFiller(EventStore& store, Statement insert_schema, schema::Decoder& decoder,
              TypedTables& typed)
      : store_(store), insert_schema_(std::move(insert_schema)), decoder_(decoder), typed_(typed) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    const schema::Schema& s = decoder_.Identify(e, row.item->byte_order, row.item->trace_layout);
    if (s.id >= named_) {
      if (auto added = AddSchemas(); !added) return added;
    }
    StoredEvent record;
    record.offset = e.offset;
    record.ts = row.ts;
    if (row.pid) record.pid = *row.pid;
    if (row.cpu) record.cpu = *row.cpu;
    record.source = static_cast<uint32_t>(row.source);
    record.schema = s.id;
    return store_.Append(record);
  }

  Result<void> Finish(int64_t) override { return Ok(); }

 private:
  // The schemas the catalog gained (a template's subhook cases come together).
  Result<void> AddSchemas() {
    const schema::Catalog& catalog = decoder_.catalog();
    for (; named_ < catalog.size(); ++named_) {
      const schema::Schema& s = catalog.at(named_);
      insert_schema_.BindInt(1, s.id);
      insert_schema_.BindText(2, s.name);
      insert_schema_.BindText(3, typed_.NameOf(s.id));
      insert_schema_.BindText(4, schema::FamilyName(s.family));
      insert_schema_.BindText(5, s.title);
      insert_schema_.BindText(6, s.described_by);
      if (auto done = insert_schema_.Run(); !done) return done;
    }
    return Ok();
  }

  EventStore& store_;
  Statement insert_schema_;
  schema::Decoder& decoder_;
  TypedTables& typed_;
  uint32_t named_ = 0;  // schemas of the catalog in the schemas table
};

}  // namespace

Result<std::unique_ptr<Filler>> MakeEventFiller(Database& db, EventStore& store,
                                                schema::Decoder& decoder, TypedTables& typed) {
  auto insert_schema = db.PrepareForLoad("INSERT INTO schemas VALUES(?, ?, ?, ?, ?, ?)");
  if (!insert_schema) return insert_schema.error();
  return std::unique_ptr<Filler>(
      std::make_unique<EventFiller>(store, std::move(insert_schema).value(), decoder, typed));
}

}  // namespace rastrace::query
