// The events table's storage: not rows in SQLite (whose b-tree inserts cost more than the rest of
// a load together) but a fixed-size record per event in a temporary file (its number, time, pid,
// cpu, source and schema), and the event's own bytes read back from its log when a query asks for
// them. A load appends records at the speed of reading the log; the `_events` virtual table
// (events_table.h) serves them to SQLite.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"
#include "query/block_reader.h"

namespace rastrace::query {

struct StoredEvent {
  static constexpr uint64_t kNoPid = UINT64_MAX;
  static constexpr uint32_t kNone = UINT32_MAX;
  uint64_t offset = 0;  // of the event in its log
  int64_t ts = 0;       // nanoseconds since the trace start
  uint64_t pid = kNoPid;
  uint32_t cpu = kNone;
  uint32_t source = 0;
  uint32_t schema = kNone;
  uint32_t reserved = 0;
};
static_assert(sizeof(StoredEvent) == 40);

// A file made for the process alone: unlinked at once (O_TMPFILE where the file system has it), so
// nothing is left behind whatever happens; in $TMPDIR, else /tmp.
Result<int> CreateTemporaryFile();

class EventStore {
 public:
  struct Input {
    std::string path;  // as opened; its bytes are read again by offset
    event::Layout layout = event::Layout::k64;
    ByteOrder byte_order = ByteOrder::kLittle;
  };

  static Result<std::unique_ptr<EventStore>> Create();
  ~EventStore();

  // Before the first Append: the logs the events come from, and which of them each source is in.
  Result<void> SetInputs(std::vector<Input> inputs);
  Result<void> Append(const StoredEvent& record) {
    if (buffer_.size() + sizeof(record) > kBufferBytes) {
      if (auto flushed = FlushBuffer(); !flushed) return flushed;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(&record);
    buffer_.insert(buffer_.end(), bytes, bytes + sizeof(record));
    ts_sorted_ = ts_sorted_ && record.ts >= last_ts_;
    last_ts_ = record.ts;
    ++count_;
    return Ok();
  }
  // After the last Append: `source_inputs[s]` is the input of source s.
  Result<void> Finish(std::vector<size_t> source_inputs);

  uint64_t size() const { return count_; }
  bool finished() const { return finished_; }
  // Whether ts never decreases with the event number (a log whose clock went backwards breaks
  // it): then a time range is found by binary search.
  bool ts_sorted() const { return ts_sorted_; }

  // After Finish: calls `change` on every record in order and writes the records back (the naming
  // of events loaded before their names were asked for).
  Result<void> Rewrite(const std::function<Result<void>(StoredEvent&)>& change);

  // Record `index` (from 0).
  Result<StoredEvent> Get(uint64_t index);
  // The event itself, read from its log (spans valid until the next Decode).
  Result<void> Decode(const StoredEvent& record, event::Event& out);
  // The log `record` was read from (its layout and byte order); nullptr for an unknown source.
  const Input* InputOf(const StoredEvent& record) const {
    if (record.source >= source_inputs_.size() || source_inputs_[record.source] >= inputs_.size()) {
      return nullptr;
    }
    return &inputs_[source_inputs_[record.source]].input;
  }

 private:
  static constexpr size_t kBufferBytes = 1 << 20;
  EventStore(int fd);
  Result<void> FlushBuffer();

  int fd_ = -1;
  std::vector<uint8_t> buffer_;
  uint64_t count_ = 0;
  uint64_t written_ = 0;
  int64_t last_ts_ = INT64_MIN;
  bool ts_sorted_ = true;
  bool finished_ = false;
  std::unique_ptr<BlockReader> index_;
  struct OpenInput {
    Input input;
    int fd = -1;
    std::unique_ptr<BlockReader> reader;
  };
  std::vector<OpenInput> inputs_;
  std::vector<size_t> source_inputs_;
};

}  // namespace rastrace::query
