// What trcstop does for an attached process that died without completing its log (SIGKILL, or a
// crash its signal handler could not finish): its rings live in flight-recorder files under
// procs/p<pid>-<id>.shm/ (session_attach.cc), so every event it had committed is rebuilt with the
// recovery of `rastrace recover` (buffer/recover.h) and the process's log replaced by the result
// before the merge.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rastrace::session {

struct RecoveryTotals {
  uint64_t processes = 0;  // logs rebuilt
  uint64_t events = 0;     // events taken from their rings
  uint64_t lost = 0;       // losses found in the rings that their logs did not count yet
  std::vector<std::string> messages;
};

// Rebuilds the log of every process that left flight-recorder files in a .shm directory of
// `procs_dir` and whose pid is in `finished` (its lock was released: it will write no more). A
// recovered log replaces the process's log only when that log is a file of `procs_dir`.
RecoveryTotals RecoverEndedProcesses(const std::string& procs_dir,
                                     std::span<const uint64_t> finished);

}  // namespace rastrace::session
