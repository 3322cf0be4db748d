// One kernel event as both readers give it to the mapper (kernel_events.h): the binary reader
// fills it from a record's fields (raw_events.h), the text reader from a trace_pipe line
// (trace_line.h). Numbers stay numbers on the way: nothing is formatted as text to be parsed
// again, the daemon's main cost per event before.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace rastrace::session {

class SyscallSignature;

enum class KernelEventKind : uint8_t {
  kSysEnter,
  kSysExit,
  kSwitch,
  kFork,
  kExec,
  kExit,
  kPageFaultUser,
  kPageFaultKernel,
  kIrqEntry,
  kIrqExit,
};

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::kSysEnter;
  uint32_t tid = 0;   // the task the event happened in (0: an idle task)
  uint32_t tgid = 0;  // its process; 0 when unknown
  uint32_t cpu = 0;
  std::string_view comm;   // the task's name, when known
  uint64_t timestamp = 0;  // trace clock: nanoseconds (mono) or ticks (x86-tsc)
  // kSysEnter / kSysExit: the call (its name, and for an entry the arguments it takes); never
  // null for those kinds.
  const SyscallSignature* syscall = nullptr;
  uint64_t nr = 0;  // system call number
  // By kind:
  //   kSysEnter: the arguments, as many as `syscall` names
  //   kSysExit: [0] the return value
  //   kSwitch: [0] prev pid, [1] prev priority, [2] prev state (a letter), [3] next pid,
  //            [4] next priority
  //   kFork: [0] parent pid (the thread that forked), [1] child pid
  //   kExec: [0] pid; kExit: [0] pid, [1] priority
  //   page faults: [0] address, [1] ip, [2] error code
  //   kIrqEntry: [0] irq; kIrqExit: [0] irq, [1] 1 when handled
  std::array<uint64_t, 6> values{};
  std::string_view text;  // kExec: the path; kIrqEntry: the handler's name
  // kFork: the child's process, when known (0 otherwise): the parent's own process for a new
  // thread, the child itself for a new process.
  uint32_t child_tgid = 0;
};

}  // namespace rastrace::session
