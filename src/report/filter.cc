#include "report/filter.h"

namespace rastrace::report {

EventFilter::EventFilter(const ReportOptions& options)
    : include_(options.include_ids),
      exclude_(options.exclude_ids),
      include_all_(options.include_ids.empty()),
      by_process_(!options.pids.empty() || !options.process_names.empty()),
      by_thread_(!options.tids.empty()),
      pids_(options.pids.begin(), options.pids.end()),
      process_names_(options.process_names),
      tids_(options.tids.begin(), options.tids.end()),
      start_ns_(options.start_elapsed_ns),
      end_ns_(options.end_elapsed_ns),
      start_date_(options.start_date),
      end_date_(options.end_date) {
  by_time_ = start_ns_ || end_ns_ || start_date_ || end_date_;
}

bool EventFilter::AcceptsProcess(const FilterFacts& facts) const {
  if (pids_.count(facts.pid) != 0) return true;
  if (facts.exec_path.empty()) return false;
  size_t slash = facts.exec_path.rfind('/');
  std::string_view base =
      slash == std::string_view::npos ? facts.exec_path : facts.exec_path.substr(slash + 1);
  for (const std::string& name : process_names_) {
    if (name == base || name == facts.exec_path) return true;
  }
  return false;
}

bool EventFilter::Accepts(const FilterFacts& facts) const {
  if (!include_all_ && !include_.Contains(facts.hook_id)) return false;
  if (exclude_.Contains(facts.hook_id)) return false;
  if (by_thread_ && tids_.count(facts.tid) == 0) return false;
  if (by_process_ && !AcceptsProcess(facts)) return false;
  if (by_time_) {
    if (start_ns_ && facts.elapsed_ns < *start_ns_) return false;
    if (end_ns_ && facts.elapsed_ns > *end_ns_) return false;
    if (start_date_ || end_date_) {
      // Without a start time from the header the date of an event is unknown: a date window
      // then shows nothing rather than guessing.
      if (!facts.wall_seconds) return false;
      if (start_date_ && *facts.wall_seconds < *start_date_) return false;
      if (end_date_ && *facts.wall_seconds > *end_date_) return false;
    }
  }
  return true;
}

}  // namespace rastrace::report
