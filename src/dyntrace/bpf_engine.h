// The BPF engine: every tracepoint is a uprobe (a uprobe on each `ret` for RETEP, or a uretprobe
// when its returns could not all be found) running one BPF program (bpf/hit.bpf.c) that executes
// the tracepoint's data statements in the kernel at the hit, in the traced thread, and sends the
// record through a BPF ring buffer; the tracer only copies records to the output. Memory is read
// at the hit, so the records equal the ptrace engine's (docs/dyntrace.md); a hit costs a trap,
// not two context switches. The probes follow the process's memory (every thread, present and
// future; not forked children), the program's text is never written by the tracer, and detaching
// is closing the probes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/hit_sink.h"

namespace rastrace::dyntrace {

inline constexpr size_t kDefaultBpfRingBytes = size_t{32} << 20;

struct BpfOptions {
  // Bytes of the ring buffer between the program and the tracer: a power of two, at least a page.
  size_t ring_bytes = kDefaultBpfRingBytes;
  // A module not mapped yet (probes placed on its file): looked for in the process's maps until
  // it is seen, so that a session can tell whether it ever appeared.
  std::string watch_module;
};

struct BpfStats {
  uint64_t hits = 0;             // records delivered
  uint64_t lost = 0;             // hits not recorded: the ring was full (or no scratch slot)
  uint64_t bad_records = 0;      // records that did not decode (never seen; counted all the same)
  uint64_t classified_late = 0;  // failed reads whose status came from the maps in user space
  bool module_seen = false;      // BpfOptions::watch_module was mapped (or a probe was hit)
};

// Whether the program can be loaded here (this kernel, these privileges); the error says why not.
// Loads it once and remembers the answer.
Result<void> BpfAvailable();

// Whether the ring size is one the kernel takes (a power of two of at least a page).
Result<void> CheckBpfRingBytes(size_t bytes);

class BpfEngine {
 public:
  // Loads the program with the tracepoints' statements and attaches a uprobe for each probe site
  // of process `pid` (and its threads). OPCODE= is checked against the process first.
  static Result<std::unique_ptr<BpfEngine>> Attach(pid_t pid,
                                                   std::vector<CompiledTracepoint> tracepoints,
                                                   HitSink& sink, const BpfOptions& options = {});
  ~BpfEngine();

  // Delivers records until `stop` becomes true or the process has exited (`is_alive` returns
  // false); then delivers what is left.
  Result<void> Run(const std::atomic<bool>& stop, bool (*is_alive)(pid_t));
  // Removes the probes (the program runs on untouched) and delivers what is left.
  void Detach();
  // Hits so far (delivered, lost), reading the program's loss counter.
  const BpfStats& stats();
  size_t ring_bytes() const;

  struct Impl;  // defined in the .cc; only Attach can make one
  explicit BpfEngine(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
