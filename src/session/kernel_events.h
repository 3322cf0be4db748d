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
#include "session/trace_line.h"

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

// A tracefs event to enable ("raw_syscalls/sys_enter") and the hook it becomes.
struct KernelSource {
  const char* tracepoint;
  uint16_t hook;
};
std::span<const KernelSource> KernelSources();

// The name of system call `nr` on this machine ("nr<N>" when unknown).
std::string_view SyscallName(uint64_t nr, std::string& scratch);

class KernelEventMapper {
 public:
  using ExePath = std::function<std::string(uint32_t pid)>;
  // `allowed`: the hooks -j/-k let through. `exe_path` reads a process's executable when a
  // thread is seen for the first time.
  KernelEventMapper(const std::bitset<65536>& allowed, ExePath exe_path);

  // Threads already in the process table written at the start of the session.
  void KnowThread(uint32_t tid, uint32_t pid);

  // Appends the events for one parsed line; returns how many were appended (not counting the
  // 00A/100 and 00A/108 events that describe the thread).
  size_t Map(const TraceLine& line, std::vector<uint8_t>& out);

 private:
  size_t MapEvent(const TraceLine& line, std::vector<uint8_t>& out);
  // Inserts 00A/108 at `at` when `line`'s thread last ran on another cpu.
  void NoteCpu(const TraceLine& line, size_t at, std::vector<uint8_t>& out);
  void SeeThread(uint32_t tid, uint32_t pid, std::string_view comm, uint64_t timestamp,
                 std::vector<uint8_t>& out);

  std::bitset<65536> allowed_;
  ExePath exe_path_;
  std::unordered_set<uint32_t> known_threads_;
  std::unordered_map<uint32_t, std::string> paths_;  // pid -> executable, as far as known
  std::unordered_map<uint32_t, uint32_t> cpu_of_;    // tid -> the cpu of its last event
  std::vector<uint8_t> cpu_event_;
  std::string scratch_;
};

}  // namespace rastrace::session
