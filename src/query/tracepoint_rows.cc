// tracepoint_hits: the OS/2-style records of dynamic tracepoints that `trace on --log` writes
// as generic hook 00C (docs/dyntrace.md): subhook = minor; data word = major | flags << 16 |
// pid << 32; buffer = the record's data. The procedure and kind come from the log's 00A/109
// definitions.
#include "event/format.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

std::string_view KindName(exporter::TracepointKind kind) {
  switch (kind) {
    case exporter::TracepointKind::kInside:
      return "inside";
    case exporter::TracepointKind::kEntry:
      return "entry";
    case exporter::TracepointKind::kReturn:
      return "return";
    case exporter::TracepointKind::kOther:
      break;
  }
  return "other";
}

class TracepointHitFiller : public Filler {
 public:
  explicit TracepointHitFiller(RecordTable& rows) : rows_(rows) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    if (e.hook_id != event::kHookDynamicTracepoint || !e.generic) return Ok();
    RecordTable& r = rows_;
    r.Int(row.id);
    r.Int(row.ts);
    r.Int(static_cast<int64_t>(row.source));
    r.Int(AsSql(e.thread_id));
    r.Int(AsSql(e.generic_word >> 32));
    r.Int(static_cast<int64_t>(e.generic_word & 0xFFFF));
    r.Int(e.subhook);
    r.Int(static_cast<int64_t>((e.generic_word >> 16) & 0xFFFF));
    if (const exporter::TracepointDef* def = row.origin->tracepoints.FindHit(e)) {
      r.Text(def->name);
      r.Text(KindName(def->kind));
    } else {
      r.Null();
      r.Null();
    }
    r.Blob(e.buffer);
    return r.EndRow();
  }

  bool Wants(uint16_t hook_id) const override { return hook_id == event::kHookDynamicTracepoint; }

  Result<void> Finish(int64_t) override { return rows_.Finish(); }

 private:
  RecordTable& rows_;
};

// losses: every 006 event (word 1: events lost, word 2: the thread whose events were lost; the
// kernel's losses name thread 0).
class LossFiller : public Filler {
 public:
  explicit LossFiller(RecordTable& rows) : rows_(rows) {}

  bool Wants(uint16_t hook_id) const override { return hook_id == event::kHookLost; }

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    if (e.hook_id != event::kHookLost) return Ok();
    std::optional<uint64_t> count;
    uint64_t tid = e.thread_id;
    if (e.generic) {
      count = e.generic_word;
    } else {
      if (e.word_count >= 1) count = e.words[0];
      if (e.word_count >= 2) tid = e.words[1];
    }
    RecordTable& r = rows_;
    r.Int(row.id);
    r.Int(row.ts);
    r.Int(static_cast<int64_t>(row.source));
    r.Int(AsSql(e.offset));
    r.Int(AsSql(tid));
    r.Optional(tid == e.thread_id ? row.pid : row.origin->processes.PidOf(tid));
    r.Optional(count);
    return r.EndRow();
  }

  Result<void> Finish(int64_t) override { return rows_.Finish(); }

 private:
  RecordTable& rows_;
};

}  // namespace

std::unique_ptr<Filler> MakeTracepointHitFiller(RecordTable& hits) {
  return std::make_unique<TracepointHitFiller>(hits);
}

std::unique_ptr<Filler> MakeLossFiller(RecordTable& losses) {
  return std::make_unique<LossFiller>(losses);
}

}  // namespace rastrace::query
