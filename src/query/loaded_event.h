// What one load pass knows about the event it is at, shared by every table filler: the event as
// recorded, its number and time, and its origin's state (process table, CPUs, tracepoints).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/result.h"
#include "event/event.h"
#include "export/merged_stream.h"
#include "export/process_table.h"
#include "export/tracepoints.h"

namespace rastrace::query {

// Per origin (a log, or a source inside a merged log): what its events so far have said.
struct OriginState {
  exporter::ProcessTable processes;
  exporter::TracepointTable tracepoints;
  // thread id -> the CPU its events run on (00A/108). Grows with the number of threads, like the
  // process table; a log naming more than kMaxThreads threads stops being followed there.
  std::unordered_map<uint64_t, uint32_t> cpus;
  uint64_t events = 0;
  // The last thread's pid and cpu: events come in runs of one thread, so most lookups end here.
  // Cleared whenever the process table or the cpus change.
  struct {
    bool valid = false;
    uint64_t tid = 0;
    std::optional<uint64_t> pid;
    std::optional<uint32_t> cpu;
  } last;
};

// A corrupt or hostile log could name a new thread (or cpu, or track) in every event: past this
// many, per-thread state stops growing, so memory stays bounded.
inline constexpr size_t kMaxThreads = size_t{1} << 20;

struct LoadedEvent {
  const exporter::SourceEvent* item = nullptr;
  const event::Event* event = nullptr;
  int64_t id = 0;  // events.id: from 1, in the merged time order
  int64_t ts = 0;  // nanoseconds since the trace start
  size_t source = 0;
  std::optional<uint64_t> pid;
  std::optional<uint32_t> cpu;
  OriginState* origin = nullptr;
};

// One table's share of a pass: sees every event in order, writes rows as it can, and the rest at
// the end (slices still open, the process table).
class Filler {
 public:
  virtual ~Filler() = default;
  virtual Result<void> Add(const LoadedEvent& event) = 0;
  // Whether Add must see events of hook `hook_id` (asked once per hook id and pass): a pass calls
  // each filler only for the hooks it wants.
  virtual bool Wants(uint16_t /*hook_id*/) const { return true; }
  // `last_ts`: the time of the last event of the pass.
  virtual Result<void> Finish(int64_t last_ts) = 0;
};

// SQLite integers are signed 64-bit: an unsigned word keeps its bits (2^64-1 reads as -1).
inline int64_t AsSql(uint64_t value) {
  return static_cast<int64_t>(value);
}

}  // namespace rastrace::query
