// The events of one or more logs as one time-ordered stream: each log is read with constant
// memory, logs are merged by time (events without a timestamp stay behind their predecessor), and
// each event comes with what the report derives from the events before it: elapsed time, pid,
// process table, the thread's CPU, cpu counts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "event/event.h"
#include "event/reader.h"
#include "event/timebase.h"
#include "report/cpu_tracker.h"
#include "report/process_table.h"
#include "report/thread_map.h"

namespace rastrace::report {

struct SourcedEvent {
  const event::Event* event = nullptr;  // valid until the next call of Next
  std::string_view logfile;
  ByteOrder byte_order = ByteOrder::kLittle;
  event::Layout trace_layout = event::Layout::k64;
  uint64_t sequence = 0;   // 1-based ordinal among all events read
  int64_t elapsed_ns = 0;  // from the first timestamp of the report
  bool timestamped = false;
  uint64_t tid = 0;
  uint32_t cpu = 0;                     // of the event's thread, from 00A/108
  uint32_t priority = 0;                // of the event's thread, from the kernel's 106 DISPATCH
  std::optional<int64_t> wall_seconds;  // when the log's header (003) gave the start time
};

class EventSource {
 public:
  // Opens every log; fails on the first that cannot be opened or is not a trace log. With
  // `verbose`, names each file on it as it is opened. `reformat` applies seed 002 part C (off for
  // the raw report, which shows the bytes as logged).
  static Result<std::unique_ptr<EventSource>> Open(const std::vector<std::string>& paths,
                                                   std::FILE* verbose, bool reformat = true);
  ~EventSource();

  // The next event of the merged stream; false when every log has ended.
  bool Next(SourcedEvent& out);

  // One message per log that ended inside an event or held a corrupt event.
  const std::vector<std::string>& warnings() const { return warnings_; }
  ProcessTable& processes() { return processes_; }
  uint32_t total_cpus() const { return total_cpus_; }
  uint32_t traced_cpus() const { return traced_cpus_; }
  // $REPORTEDCPUS: the CPUs the report's threads are on now (00A/108); before any thread's CPU
  // is known (and in logs without 00A/108), every traced CPU counts as active.
  uint32_t reported_cpus() const { return cpus_.known() ? cpus_.ActiveCpus() : traced_cpus_; }
  // Bytes read so far and the size of every log (0 when one is not a regular file).
  uint64_t bytes_read() const;
  uint64_t total_bytes() const { return total_bytes_; }

 private:
  struct Input;
  EventSource() = default;
  bool Fill(Input& input);
  void SetKey(Input& input);
  void HoldTraceOns(Input& input);
  void Learn(Input& input, const event::Event& event);

  std::vector<std::unique_ptr<Input>> inputs_;
  std::vector<std::string> warnings_;
  ProcessTable processes_;
  CpuTracker cpus_;
  ThreadMap priorities_;
  uint64_t sequence_ = 0;
  bool have_first_ = false;
  uint64_t first_ns_ = 0;
  const Input* first_input_ = nullptr;  // the log that had the first timestamp
  uint32_t total_cpus_ = 1;
  uint32_t traced_cpus_ = 1;
  uint64_t total_bytes_ = 0;
};

}  // namespace rastrace::report
