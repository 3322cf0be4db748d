// Maps tracefs events to AIX-style hooks (docs/session.md has the table):
//   101 SYSTEM CALL, 104 RETURN FROM SYSTEM CALL, 106 DISPATCH, 10C DISPATCH IDLE PROCESS,
//   134 EXEC, 139 FORK, 465 EXIT, 1B0 PAGE FAULT, 100 INTERRUPT, 200 RESUME (end of interrupt),
// keeps the process table of the log current (00A/100 for threads first seen, 00A/103 for
// execs), and, as the recorder does for hooks, writes 00A/108 (word: cpu) before an event of a
// thread whose last event was on another cpu, so trcrpt's CPU column holds for kernel events.
#pragma once

#include <bitset>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "event/format.h"
#include "session/kernel_event.h"
#include "session/syscall_table.h"

namespace rastrace::session {

// The kernel hook ids are part of the log format (event/format.h).
using event::kHookDispatch;
using event::kHookExec;
using event::kHookExit;
using event::kHookFork;
using event::kHookIdle;
using event::kHookInterrupt;
using event::kHookPageFault;
using event::kHookResume;
using event::kHookSyscallReturn;
using event::kHookSystemCall;

// A tracefs event to enable ("sched/sched_switch") and the hook it becomes. A name ending in '*'
// stands for every event of the system whose name starts so ("syscalls/sys_enter_*": one per
// system call, each with the arguments of its call); when this kernel has none, `fallback` is
// enabled instead ("raw_syscalls/sys_enter": six unnamed arguments).
struct KernelSource {
  const char* tracepoint;
  uint16_t hook;
  const char* fallback = nullptr;
};
std::span<const KernelSource> KernelSources();

// The tracepoints ("system/event") to enable for the hooks `allowed` lets through, as the events
// directory `events_dir` (tracefs's events/, or an instance's) has them.
std::vector<std::string> KernelTracepoints(const std::string& events_dir,
                                           const std::bitset<65536>& allowed);

class KernelEventMapper {
 public:
  using ExePath = std::function<std::string(uint32_t pid)>;
  using ParentOf = std::function<uint32_t(uint32_t pid)>;
  // `allowed`: the hooks -j/-k let through. `exe_path` reads a process's executable when a
  // thread is seen for the first time, `parent_of` its parent's pid (0 when gone) when no FORK
  // told it.
  KernelEventMapper(const std::bitset<65536>& allowed, ExePath exe_path,
                    ParentOf parent_of = nullptr);

  // Threads already in the process table written at the start of the session.
  void KnowThread(uint32_t tid, uint32_t pid);

  // Appends the events for one kernel event; returns how many were appended (not counting the
  // 00A/100 and 00A/108 events that describe the thread).
  size_t Map(const KernelEvent& event, std::vector<uint8_t>& out);

 private:
  size_t MapEvent(const KernelEvent& event, std::vector<uint8_t>& out);
  // Inserts 00A/108 at `at` when `event`'s thread last ran on another cpu.
  void NoteCpu(const KernelEvent& event, size_t at, std::vector<uint8_t>& out);
  void SeeThread(uint32_t tid, uint32_t pid, std::string_view comm, uint64_t timestamp,
                 std::vector<uint8_t>& out);
  // A new thread of `pid` (a fork that made a thread, not a process): 00A/100 ties it to its
  // process when it is made.
  void NewThread(uint32_t tid, uint32_t pid, uint64_t timestamp, std::vector<uint8_t>& out);
  // The parent of process `pid`: from its FORK, else from `parent_of_`.
  uint32_t ParentOfProcess(uint32_t pid);
  // The executable of `pid` now, else the last one known.
  const std::string& PathOf(uint32_t pid);

  std::bitset<65536> allowed_;
  ExePath exe_path_;
  ParentOf parent_of_;
  std::unordered_set<uint32_t> known_threads_;
  std::unordered_map<uint32_t, std::string> paths_;  // pid -> executable, as far as known
  std::unordered_map<uint32_t, uint32_t> parents_;   // pid -> parent pid, as far as known
  std::unordered_map<uint32_t, uint32_t> cpu_of_;    // tid -> the cpu of its last event
  std::vector<uint8_t> cpu_event_;
  std::vector<uint8_t> buffer_;  // a generic event's buffer, reused
  // The thread and cpu of the last event written: the next event of the same thread on the same
  // cpu (most of them, in a storm of system calls) needs no lookup of either.
  uint32_t last_tid_ = UINT32_MAX;
  uint32_t last_cpu_ = UINT32_MAX;
};

}  // namespace rastrace::session
