#include "session/merge.h"

#include <cstring>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_set>

#include "event/format.h"
#include "event/reader.h"
#include "session/event_builder.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

// Events of a process log that the session log replaces with its own.
bool DroppedFromProcessLog(const event::Event& ev) {
  switch (ev.hook_id) {
    case event::kHookTraceOn:
    case event::kHookTraceOff:
    case event::kHookHeader:
    case event::kHookLogWrapped:
      return true;
    case event::kHookUtil:
      return ev.subhook == event::kUtilTimeConversion || ev.subhook == event::kUtilCpus ||
             ev.subhook == event::kUtilBufferMode || ev.subhook == event::kUtilWallClock;
    default:
      return false;
  }
}

struct Stream {
  MergeInput input;
  std::optional<event::LogReader> reader;
  std::vector<uint8_t> bytes;  // the current event
  event::EventFields fields;   // of the current event (spans not kept)
  uint64_t key = 0;            // timestamp the current event sorts by
  uint64_t serial = 0;         // events read so far: ties keep log order
  std::string exe_path;        // from the log's own 00A/100 event
  uint64_t parent = 0;         // the process's parent, from the same event
  std::unordered_set<uint64_t> threads;
  bool done = false;

  // Reads the next event to copy; false at the end.
  bool Advance(MergeTotals& totals) {
    event::Event ev;
    for (;;) {
      const event::ReadStatus status = reader->Next(ev);
      if (status == event::ReadStatus::kError) {
        totals.warnings.push_back(reader->error().message);
        return false;
      }
      if (status == event::ReadStatus::kEnd) return false;
      ++serial;
      if (input.pid != 0 && ev.hook_id == event::kHookUtil && ev.generic &&
          ev.subhook == event::kUtilProcess && ev.buffer.size() >= 18) {
        uint16_t length = 0;
        std::memcpy(&length, ev.buffer.data() + 16, 2);
        if (18u + length <= ev.buffer.size()) {
          exe_path.assign(reinterpret_cast<const char*>(ev.buffer.data() + 18), length);
        }
        uint64_t tid = 0;
        std::memcpy(&parent, ev.buffer.data(), 8);
        std::memcpy(&tid, ev.buffer.data() + 8, 8);
        threads.insert(tid);
      }
      if (input.pid != 0 && DroppedFromProcessLog(ev)) continue;
      bytes.assign(ev.bytes.begin(), ev.bytes.end());
      fields = ev;
      fields.buffer = {};
      if (ev.timestamped) key = ev.timestamp;
      return true;
    }
  }
};

struct Later {
  bool operator()(const Stream* a, const Stream* b) const {
    if (a->key != b->key) return a->key > b->key;
    return a > b;
  }
};

bool Copy(std::span<const uint8_t> bytes, recorder::LogSink& sink) {
  // A log a full disk cut still takes every event, to count it in its last 006 (not written).
  if (sink.cut()) {
    sink.Append(bytes);
    return false;
  }
  if (sink.stopped()) return false;
  if (bytes.size() > sink.available() && !sink.OnFull()) return false;
  sink.Append(bytes);
  return true;
}

}  // namespace

uint64_t PidFromLogName(std::string_view name) {
  if (const size_t trc = name.find(".trc."); trc != std::string_view::npos) {
    return ParseNumber(name.substr(trc + 5)).value_or(0);
  }
  if (name.size() > 5 && name[0] == 'p' && name.ends_with(".trc")) {
    return ParseNumber(name.substr(1, name.find('-') - 1)).value_or(0);
  }
  return 0;
}

Result<MergeTotals> MergeLogs(std::span<const MergeInput> inputs, recorder::LogSink& sink) {
  MergeTotals totals;
  std::vector<std::unique_ptr<Stream>> streams;
  std::priority_queue<Stream*, std::vector<Stream*>, Later> queue;
  for (const MergeInput& input : inputs) {
    event::ReaderOptions options;
    options.reformat = false;
    auto reader = event::LogReader::Open(input.path, options);
    if (!reader) {
      // An attached process that died before writing its magic leaves an empty log.
      totals.warnings.push_back(reader.error().message);
      continue;
    }
    auto stream = std::make_unique<Stream>();
    stream->input = input;
    stream->reader.emplace(std::move(*reader));
    if (stream->Advance(totals)) queue.push(stream.get());
    streams.push_back(std::move(stream));
  }
  std::vector<uint8_t> extra;
  while (!queue.empty()) {
    Stream* stream = queue.top();
    queue.pop();
    const event::EventFields& ev = stream->fields;
    // A thread seen for the first time in a process log: tie it to its process.
    if (stream->input.pid != 0 && ev.thread_id != 0 &&
        stream->threads.insert(ev.thread_id).second) {
      extra.clear();
      AppendProcessEvent(stream->input.pid, stream->parent, ev.thread_id, stream->exe_path, 0,
                         extra);
      if (!Copy(extra, sink)) ++totals.dropped_by_log;
    }
    if (Copy(stream->bytes, sink)) {
      ++totals.events;
      if (ev.hook_id == event::kHookLost && ev.word_count >= 1) totals.lost_events += ev.words[0];
    } else {
      ++totals.dropped_by_log;
    }
    if (stream->Advance(totals)) queue.push(stream);
  }
  return totals;
}

}  // namespace rastrace::session
