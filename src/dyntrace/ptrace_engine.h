// The breakpoint engine: int3 at each probe site through ptrace, records taken while the thread
// is stopped (so memory is read exactly at the hit), then the original instruction run again:
// emulated when the decoder knows it (x86_emulator.h), otherwise single-stepped with every other
// thread of the process stopped so none can run past the site while the int3 is out. All threads
// are attached; new ones are followed (PTRACE_O_TRACECLONE); forked children get their int3s
// removed and are let go; RETEP records at the procedure's rets (or arms the return address at each
// entry); a module dlopened later is attached when the dynamic linker maps it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/hit_sink.h"

namespace rastrace::dyntrace {

// A module the process has not mapped yet (a future dlopen), asked about each time the dynamic
// linker reports a change of its link map.
struct LateModule {
  std::function<bool()> mapped;  // is it mapped now?
  // Its tracepoints, resolved against the process as it is now (called once it is mapped).
  std::function<Result<std::vector<CompiledTracepoint>>()> resolve;
};

struct EngineStats {
  uint64_t hits = 0;
  uint64_t single_steps = 0;             // hits that needed stop-the-world single-stepping
  uint64_t emulated = 0;                 // hits whose displaced instruction was emulated
  uint64_t late_attaches = 0;            // times a dlopened module's tracepoints were attached
  std::vector<std::string> late_errors;  // why a dlopened module's tracepoints were not
};

class PtraceEngine {
 public:
  // Attaches to every thread of `pid` (PTRACE_SEIZE), or adopts it when `already_seized` (the
  // launcher's child, stopped). Checks every OPCODE= and inserts the int3s; the process runs on
  // when Run() is called.
  // With `late`, the tracepoints of a module mapped later: a breakpoint on the dynamic linker's
  // _dl_debug_state (which it calls around every dlopen and dlclose) asks `late` again; they are
  // attached when it appears and forgotten when it is unmapped (attached again if it comes back).
  static Result<std::unique_ptr<PtraceEngine>> Attach(
      pid_t pid, std::vector<CompiledTracepoint> tracepoints, HitSink& sink, bool already_seized,
      std::optional<LateModule> late = std::nullopt);
  ~PtraceEngine();

  // Lets the process run and records hits until it exits (returns its wait status in `status`)
  // or `stop` becomes true.
  Result<void> Run(const std::atomic<bool>& stop, int& exit_status, bool& exited);
  // Removes every int3, rewinds threads stopped on one, re-delivers signals held back, and
  // detaches; the process runs on unharmed.
  Result<void> Detach();

  // Runs every displaced instruction on the CPU (single step) instead of emulating it: the
  // reference the emulation is compared with in tests and benchmarks.
  void SingleStepEverySite();

  const EngineStats& stats() const;

  struct Impl;  // defined in the .cc; only Attach can make one
  explicit PtraceEngine(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
