// Rebuilding a trace log from the flight recorder's files (buffer/shm_ring.h) of a process that
// died without completing its log (docs/reliability.md).
//
// The result is the log as the process had written it up to its last checkpoint (or, before the
// first one, the header events the process recorded in its .proc file), then every event committed
// to a ring after that checkpoint, merged by timestamp with thread names first, then one 006 per
// thread whose losses were not yet in the log, then one 00A/107 "trace cut" event per thread that
// had a ring: the point where the process died.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::buffer {

// 00A subhook of the cut event recovery writes for each thread: words pid, thread id, events
// recovered from that thread's ring.
inline constexpr uint16_t kUtilTraceCut = 0x0107;  // 00A/106 is the session's loader entry

struct RecoverOptions {
  std::string dir;
  std::string output;
  bool force = false;           // replace an existing output file
  std::optional<uint64_t> pid;  // which process, when DIR holds several
  bool remove_files = false;    // remove the process's files after a successful recovery
};

struct RecoverSummary {
  uint64_t pid = 0;
  bool completed_normally = false;  // the process had closed its log: nothing was cut
  uint64_t log_prefix_bytes = 0;    // bytes taken from the process's own log
  std::string log_path;
  uint64_t rings = 0;
  uint64_t events_recovered = 0;  // events taken from rings
  uint64_t events_lost = 0;       // in the 006 events recovery wrote
  std::vector<std::string> warnings;
};

// The pids with a .proc file in DIR.
Result<std::vector<uint64_t>> ListRecordedProcesses(const std::string& dir);

Result<RecoverSummary> Recover(const RecoverOptions& options);

}  // namespace rastrace::buffer
