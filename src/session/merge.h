// Merges the logs of a session (one per attached process, the kernel's, the daemon's own) into
// the session's log, in timestamp order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "recorder/log_sink.h"

namespace rastrace::session {

struct MergeInput {
  std::string path;
  // The process that wrote the log (0 for the kernel's and the daemon's logs). Threads first seen
  // in a process log get a 00A/100 event that ties them to this pid.
  uint64_t pid = 0;
};

struct MergeTotals {
  uint64_t events = 0;                // events copied
  uint64_t lost_events = 0;           // sum of the 006 counts copied
  uint64_t dropped_by_log = 0;        // events that did not fit a full log (-s)
  std::vector<std::string> warnings;  // damaged inputs (a crashed process's log ends mid-event)
};

// Copies every event of `inputs` to `sink` in timestamp order (an event without a timestamp keeps
// its place after the previous event of its own log). The header events, time conversion and
// trace on/off events of process logs are left out: the session log has its own.
Result<MergeTotals> MergeLogs(std::span<const MergeInput> inputs, recorder::LogSink& sink);

// The pid a process log's file name says wrote it: "p<pid>-<id>.trc", or "<...>.trc.<pid>" for
// the log of a forked child; 0 when the name is neither.
uint64_t PidFromLogName(std::string_view name);

}  // namespace rastrace::session
