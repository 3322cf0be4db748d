// Which events a report shows: -d/-k hook ids, -p processes, -T threads, -s/-e dates and
// -O starttime/endtime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "report/options.h"

namespace rastrace::report {

// What the filter looks at in one event.
struct FilterFacts {
  uint16_t hook_id = 0;
  uint64_t pid = 0;
  uint64_t tid = 0;
  std::string_view exec_path;  // the whole path, or empty
  int64_t elapsed_ns = 0;
  // Wall-clock seconds since 1970, when the log's header gave the start time.
  std::optional<int64_t> wall_seconds;
};

class EventFilter {
 public:
  explicit EventFilter(const ReportOptions& options);
  bool Accepts(const FilterFacts& facts) const;
  // True when nothing but the hook id is looked at (lets the reader skip work).
  bool IdsOnly() const { return !by_process_ && !by_thread_ && !by_time_; }

 private:
  bool AcceptsProcess(const FilterFacts& facts) const;

  IdSet include_;
  IdSet exclude_;
  bool include_all_ = true;
  bool by_process_ = false;
  bool by_thread_ = false;
  bool by_time_ = false;
  std::unordered_set<uint64_t> pids_;
  std::vector<std::string> process_names_;
  std::unordered_set<uint64_t> tids_;
  std::optional<int64_t> start_ns_, end_ns_;
  std::optional<int64_t> start_date_, end_date_;
};

}  // namespace rastrace::report
