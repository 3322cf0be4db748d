// The report's process table, built from rastrace's own 00A subhooks: 0x100 process (pid, ppid,
// tid, exec path), 0x103 exec (pid, path) and 0x104 thread name (tid, name), and from the kernel
// EXEC (134) and FORK (139) hooks of system-wide sessions. It answers the pid of
// a thread, the exec path of a pid ($EXECPATH, Pm, the PROCESS NAME column) and keeps the history
// of each pid's path so that a parallel report sees the table as it was at each event.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::report {

// Kernel hooks of system-wide sessions (templates/kernel.trcfmt) that also feed the table.

class ProcessTable {
 public:
  // Learns from a 00A event of subhook 0x100, 0x103 or 0x104, or a kernel EXEC or FORK event
  // (other events are ignored).
  // `sequence` orders the change among events. Returns true when the table changed.
  bool Observe(const event::Event& event, ByteOrder order, uint64_t sequence);

  // Adds or replaces the path of `pid` (also used by the pidinstall built-in).
  void SetPath(uint64_t pid, std::string_view path, uint64_t sequence);
  void SetThread(uint64_t tid, uint64_t pid);
  void SetThreadName(uint64_t tid, std::string_view name);

  // The pid of a thread: from a process event, else the tid itself when it is a known pid (a
  // Linux main thread), else 0.
  uint64_t PidOfThread(uint64_t tid) const;
  // The latest path of `pid`; empty when unknown.
  std::string_view PathOf(uint64_t pid) const;
  // The path `pid` had when event `sequence` happened. Safe to call from other threads while
  // the table changes.
  std::string_view PathAt(uint64_t pid, uint64_t sequence) const;
  std::string_view ThreadName(uint64_t tid) const;

  // Changes with every change of the table: lets callers cache lookups.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // The PROCESS NAME column: the last component of the exec path, else the thread name.
  std::string_view ProcessName(uint64_t pid, uint64_t tid) const;

 private:
  struct PathChange {
    uint64_t sequence;
    const std::string* path;
  };
  mutable std::shared_mutex mutex_;
  std::atomic<uint64_t> version_{0};
  std::deque<std::string> strings_;  // stable addresses for every path and name ever seen
  std::unordered_map<uint64_t, std::vector<PathChange>> paths_;
  std::unordered_map<uint64_t, uint64_t> thread_pid_;
  std::unordered_map<uint64_t, const std::string*> thread_names_;
};

}  // namespace rastrace::report
