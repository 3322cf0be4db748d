// Stage A of a report: turns each event of the source into a PreparedEvent (pid, exec path,
// process name, report line number) and applies the filters. The 003 header is never filtered.
#pragma once

#include <cstdint>

#include "report/event_source.h"
#include "report/filter.h"
#include "report/prepared_event.h"

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
  // The last thread looked up: consecutive events of one thread are the common case.
  uint64_t cached_tid_ = ~uint64_t{0};
  uint64_t cached_version_ = ~uint64_t{0};
  uint64_t cached_pid_ = 0;
  std::string_view cached_path_;
  std::string_view cached_name_;
};

}  // namespace rastrace::report
