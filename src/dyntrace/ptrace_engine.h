// The breakpoint engine: int3 at each probe site through ptrace, records taken while the thread
// is stopped (so memory is read exactly at the hit), then the original instruction run again:
// emulated when it is a push/nop/endbr64, otherwise single-stepped with every other thread of the
// process stopped so none can run past the site while the int3 is out. All threads are attached;
// new ones are followed (PTRACE_O_TRACECLONE); forked children get their int3s removed and are
// let go; RETEP arms a breakpoint at the return address on every entry.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/hit_sink.h"

namespace rastrace::dyntrace {

struct EngineStats {
  uint64_t hits = 0;
  uint64_t single_steps = 0;  // hits that needed stop-the-world single-stepping
  uint64_t emulated = 0;      // hits whose displaced instruction was emulated
};

class PtraceEngine {
 public:
  // Attaches to every thread of `pid` (PTRACE_SEIZE), or adopts it when `already_seized` (the
  // launcher's child, stopped). Checks every OPCODE= and inserts the int3s; the process runs on
  // when Run() is called.
  static Result<std::unique_ptr<PtraceEngine>> Attach(pid_t pid,
                                                      std::vector<CompiledTracepoint> tracepoints,
                                                      HitSink& sink, bool already_seized);
  ~PtraceEngine();

  // Lets the process run and records hits until it exits (returns its wait status in `status`)
  // or `stop` becomes true.
  Result<void> Run(const std::atomic<bool>& stop, int& exit_status, bool& exited);
  // Removes every int3, rewinds threads stopped on one, re-delivers signals held back, and
  // detaches; the process runs on unharmed.
  Result<void> Detach();

  const EngineStats& stats() const;

  struct Impl;  // defined in the .cc; only Attach can make one
  explicit PtraceEngine(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
