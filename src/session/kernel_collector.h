// Reads the kernel's events from a tracefs instance while the session runs and writes them, as
// hooks, to a log of their own that the daemon merges at the end.
#pragma once

#include <atomic>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "common/result.h"
#include "event/writer.h"
#include "session/kernel_events.h"
#include "session/raw_reader.h"
#include "session/syscall_table.h"
#include "session/tracefs.h"

namespace rastrace::session {

struct KernelTotals {
  uint64_t events = 0;     // hooks written
  uint64_t lost = 0;       // events the kernel could not keep (written as one 006 event)
  uint64_t bad_lines = 0;  // lines that could not be parsed (skipped)
};

class KernelCollector {
 public:
  // `known_threads`: (tid, pid) already in the session's process table. With `per_cpu` (trace
  // -C) the events of cpu N go to `log_path` with "-N" inserted before ".trc"; `log_path` then
  // only holds the lost-events count. With `binary` the per-cpu binary buffers are read
  // (raw_reader.h); when they cannot be, or without it, the text trace_pipe, and `notice` says why.
  static Result<std::unique_ptr<KernelCollector>> Start(
      const std::string& tracefs, const std::string& instance_name, const std::string& log_path,
      const std::bitset<65536>& allowed, uint64_t buffer_kb, std::span<const unsigned> cpus,
      bool per_cpu, const std::string& clock,
      std::span<const std::pair<uint32_t, uint32_t>> known_threads, bool binary,
      std::string& notice);
  ~KernelCollector();

  // trcon / trcoff.
  Result<void> SetTracing(bool on);
  // The kernel records nothing of these tasks (the daemon's threads):
  // TracefsInstance::ExcludeTasks.
  Result<void> ExcludeTasks(std::span<const uint32_t> tids);
  // Turns tracing off, reads everything left, writes the lost-events count and closes the log.
  Result<KernelTotals> Finish();

 private:
  KernelCollector(std::string tracefs, TracefsInstance instance, event::LogWriter writer,
                  const std::bitset<65536>& allowed);
  void Run();
  // Reads what the pipe holds now; false at end of data.
  bool ReadAvailable();
  void Consume(std::string_view line);
  void ConsumeEvent(const KernelEvent& event);
  void FlushStaged(bool all);

  std::string tracefs_;
  TracefsInstance instance_;
  SyscallTable syscalls_;               // before raw_, which refers to it
  std::unique_ptr<RawPipeReader> raw_;  // the binary buffers, when used
  std::optional<event::LogWriter> writer_;
  KernelEventMapper mapper_;
  std::string pending_;  // a line read only in part
  std::vector<uint8_t> staged_;
  bool per_cpu_ = false;
  std::string log_path_;
  std::map<uint32_t, std::pair<event::LogWriter, std::vector<uint8_t>>> cpu_logs_;
  std::vector<uint8_t> line_events_;
  KernelTotals totals_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::optional<Error> error_;
};

// Every thread of every process now running: (tid, pid).
std::vector<std::pair<uint32_t, uint32_t>> RunningThreads();
// The threads of process `pid` now.
std::vector<uint32_t> ThreadsOf(uint32_t pid);
// /proc/<pid>/exe, or "" when it cannot be read.
std::string ExePath(uint32_t pid);
// The parent of process `pid` from /proc/<pid>/stat, or 0 when it cannot be read.
uint32_t ParentPid(uint32_t pid);

}  // namespace rastrace::session
