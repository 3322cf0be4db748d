// Stage A of a report: turns each event of the source into a PreparedEvent (pid, exec path,
// process name, report line number) and applies the filters. The 003 header is never filtered.
#pragma once

#include <array>
#include <cstdint>

#include "report/event_source.h"
#include "report/filter.h"
#include "report/prepared_event.h"
#include "report/syscall_tracker.h"

namespace rastrace::report {

class Preparer {
 public:
  Preparer(const ReportOptions& options, EventSource& source);
  // Reads events until one passes the filters; false at the end of the logs.
  bool Next(PreparedEvent& out);

 private:
  EventSource& source_;
  EventFilter filter_;
  SourcedEvent sourced_;
  uint64_t line_no_ = 0;
  SyscallTracker syscalls_;
  // Recently seen threads: events of a few threads interleave, and the process table (behind a
  // lock) changes rarely. Direct-mapped by tid; an entry is valid for one table version.
  struct ThreadFacts {
    uint64_t tid = ~uint64_t{0};
    uint64_t version = ~uint64_t{0};
    uint64_t pid = 0;
    std::string_view path;
    std::string_view name;
  };
  const ThreadFacts& Lookup(uint64_t tid);
  std::array<ThreadFacts, 64> threads_{};
};

}  // namespace rastrace::report
