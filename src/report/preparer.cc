#include "report/preparer.h"

#include "event/format.h"

namespace rastrace::report {

Preparer::Preparer(const ReportOptions& options, EventSource& source)
    : source_(source), filter_(options) {}

bool Preparer::Next(PreparedEvent& out) {
  while (source_.Next(sourced_)) {
    const event::Event& event = *sourced_.event;
    ProcessTable& processes = source_.processes();
    uint64_t version = processes.version();
    if (sourced_.tid != cached_tid_ || version != cached_version_) {
      cached_tid_ = sourced_.tid;
      cached_version_ = version;
      cached_pid_ = processes.PidOfThread(sourced_.tid);
      cached_path_ = processes.PathOf(cached_pid_);
      cached_name_ = processes.ProcessName(cached_pid_, sourced_.tid);
    }
    if (event.hook_id != event::kHookHeader) {
      FilterFacts facts;
      facts.hook_id = event.hook_id;
      facts.pid = cached_pid_;
      facts.tid = sourced_.tid;
      facts.exec_path = cached_path_;
      facts.elapsed_ns = sourced_.elapsed_ns;
      facts.wall_seconds = sourced_.wall_seconds;
      if (!filter_.Accepts(facts)) continue;
    }
    out.event = &event;
    out.logfile = sourced_.logfile;
    out.byte_order = sourced_.byte_order;
    out.trace_layout = sourced_.trace_layout;
    out.sequence = sourced_.sequence;
    out.line_no = ++line_no_;
    out.elapsed_ns = sourced_.elapsed_ns;
    out.timestamped = sourced_.timestamped;
    out.pid = cached_pid_;
    out.tid = sourced_.tid;
    out.exec_path = cached_path_;
    out.process_name = cached_name_.empty() ? std::string_view("-") : cached_name_;
    out.total_cpus = source_.total_cpus();
    out.traced_cpus = source_.traced_cpus();
    return true;
  }
  return false;
}

}  // namespace rastrace::report
