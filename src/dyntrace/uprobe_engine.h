// The uprobe engine: the kernel places the breakpoints (uprobes), RETEP is a uretprobe. Each
// tracepoint is a tracefs uprobe event (uprobe_events, group rastrace_<tracer pid>) opened with
// perf_event_open per thread and CPU, inherited by threads and children created later; without
// tracefs, the uprobe PMU is used directly, whose events cannot be inherited, so new threads are
// picked up by rescanning /proc/PID/task. The kernel samples the user registers (and, for
// tracepoints that read memory, the top of the user stack) at the hit; the tracer assembles the
// records from the samples. No byte of the program is written by the tracer, and detaching is
// closing the events.
//
// Memory that lies in the sampled stack is read as it was at the hit; other memory is read from
// the live process when the sample is drained, which may be later. `auto` engine selection
// therefore uses uprobes only for register-only tracepoints (docs/dyntrace.md).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/hit_sink.h"

namespace rastrace::dyntrace {

// Whether this kernel offers the uprobe PMU (/sys/bus/event_source/devices/uprobe/type); the
// error says why not.
Result<void> UprobesAvailable();

struct UprobeStats {
  uint64_t hits = 0;
  uint64_t lost = 0;  // samples the kernel dropped because the ring was full
  // Hits of a thread before it had an event on every CPU, dropped: a thread being attached may
  // hit on a CPU not yet covered, and the hits it has before that moment could have gaps.
  uint64_t before_attach = 0;
};

class UprobeEngine {
 public:
  static Result<std::unique_ptr<UprobeEngine>> Attach(pid_t pid,
                                                      std::vector<CompiledTracepoint> tracepoints,
                                                      HitSink& sink);
  ~UprobeEngine();

  // Drains samples until `stop` becomes true or the process has exited (`is_alive` returns
  // false); then drains what is left.
  Result<void> Run(const std::atomic<bool>& stop, bool (*is_alive)(pid_t));
  // Closes every event; the probes leave the program.
  void Detach();
  const UprobeStats& stats() const;

  struct Impl;  // defined in the .cc; only Attach can make one
  explicit UprobeEngine(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
