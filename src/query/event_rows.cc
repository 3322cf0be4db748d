// The events' records (event_store.h) and the schemas table (the names their schema column
// points at, and the typed table of each).
#include "query/event_store.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

class EventFiller : public Filler {
 public:
  EventFiller(EventStore& store, SchemaNames* names) : store_(store), names_(names) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    StoredEvent record;
    record.offset = e.offset;
    record.ts = row.ts;
    if (row.pid) record.pid = *row.pid;
    if (row.cpu) record.cpu = *row.cpu;
    record.source = static_cast<uint32_t>(row.source);
    if (names_ != nullptr) {
      auto id = names_->Name(e, row.item->byte_order, row.item->trace_layout);
      if (!id) return id.error();
      record.schema = *id;
    }
    return store_.Append(record);
  }

  Result<void> Finish(int64_t) override { return Ok(); }

 private:
  EventStore& store_;
  SchemaNames* names_;  // null: the events stay unnamed (no statement reads their schema)
};

}  // namespace

Result<SchemaNames> SchemaNames::Create(Database& db, schema::Decoder& decoder,
                                        TypedTables& typed) {
  auto insert_schema = db.PrepareForLoad("INSERT INTO schemas VALUES(?, ?, ?, ?, ?, ?)");
  if (!insert_schema) return insert_schema.error();
  return SchemaNames(std::move(insert_schema).value(), decoder, typed);
}

Result<void> SchemaNames::AddSchemas() {
  const schema::Catalog& catalog = decoder_->catalog();
  for (; named_ < catalog.size(); ++named_) {
    const schema::Schema& s = catalog.at(named_);
    insert_schema_.BindInt(1, s.id);
    insert_schema_.BindText(2, s.name);
    insert_schema_.BindText(3, typed_->NameOf(s.id));
    insert_schema_.BindText(4, schema::FamilyName(s.family));
    insert_schema_.BindText(5, s.title);
    insert_schema_.BindText(6, s.described_by);
    if (auto done = insert_schema_.Run(); !done) return done;
  }
  return Ok();
}

Result<void> SchemaNames::NameStored(EventStore& store) {
  event::Event e;
  return store.Rewrite([&](StoredEvent& record) -> Result<void> {
    const EventStore::Input* input = store.InputOf(record);
    if (input == nullptr) return Ok();
    if (auto read = store.Decode(record, e); !read) return read;
    auto id = Name(e, input->byte_order, input->layout);
    if (!id) return id.error();
    record.schema = *id;
    return Ok();
  });
}

std::unique_ptr<Filler> MakeEventFiller(EventStore& store, SchemaNames* names) {
  return std::make_unique<EventFiller>(store, names);
}

}  // namespace rastrace::query
