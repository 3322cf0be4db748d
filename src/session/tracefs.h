// A private tracefs instance (instances/rastrace-<pid>): its own ring buffers and event switches,
// so the session never disturbs the top-level trace or another tool's instance.
#pragma once

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::session {

// The mounted tracefs (mounting it on /sys/kernel/tracing when it is not), or an error that says
// why kernel events are unavailable.
Result<std::string> FindTracefs();

// Removes the instances left by session daemons that died without cleaning up (their buffers
// would otherwise stay allocated and tracing).
void RemoveStaleInstances(const std::string& tracefs);

class TracefsInstance {
 public:
  // Creates the instance, selects `clock` ("mono" or "x86-tsc"), enables the tracepoints of every
  // hook that `allowed` lets through, sets the per-cpu buffer size and, when `cpus` is not empty,
  // the cpus traced. Tracing stays off until SetTracing(true).
  static Result<TracefsInstance> Create(const std::string& tracefs, const std::string& name,
                                        const std::bitset<65536>& allowed, uint64_t buffer_kb,
                                        std::span<const unsigned> cpus, const std::string& clock);
  TracefsInstance(TracefsInstance&& other) noexcept;
  TracefsInstance& operator=(TracefsInstance&&) = delete;
  ~TracefsInstance();  // turns tracing off and removes the instance

  Result<void> SetTracing(bool on);
  // The kernel drops every event of these tasks before it is written (set_event_notrace_pid),
  // and the scheduler switches to or from them (a filter on sched_switch, whose events name two
  // tasks): the session's daemon never records itself. Adds to the tasks excluded before.
  Result<void> ExcludeTasks(std::span<const uint32_t> tids);
  // Wakes a reader polling a cpu's buffer only once the buffer is `percent` full (or at its
  // timeout), so that busy cpus are read in large batches.
  Result<void> SetWakeupPercent(unsigned percent);
  // trace_pipe, opened non-blocking (reading consumes events).
  int pipe_fd() const { return pipe_fd_; }
  // Events the kernel overwrote or dropped because this instance's buffers were full.
  uint64_t LostEvents() const;
  const std::string& path() const { return path_; }
  // The tracepoints enabled ("sched/sched_switch", "syscalls/sys_enter_read", ...).
  const std::vector<std::string>& tracepoints() const { return tracepoints_; }

 private:
  friend void RemoveStaleInstances(const std::string& tracefs);
  TracefsInstance(std::string path, int pipe_fd) : path_(std::move(path)), pipe_fd_(pipe_fd) {}
  std::string path_;
  int pipe_fd_ = -1;
  std::vector<uint32_t> excluded_;
  std::vector<std::string> tracepoints_;
};

}  // namespace rastrace::session
