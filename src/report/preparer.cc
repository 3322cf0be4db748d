#include "report/preparer.h"

#include "event/format.h"

namespace rastrace::report {

Preparer::Preparer(const ReportOptions& options, EventSource& source)
    : source_(source), filter_(options) {}

const Preparer::ThreadFacts& Preparer::Lookup(uint64_t tid) {
  ProcessTable& processes = source_.processes();
  uint64_t version = processes.version();
  ThreadFacts& facts = threads_[(tid ^ (tid >> 6)) % threads_.size()];
  if (facts.tid != tid || facts.version != version) {
    facts.tid = tid;
    facts.version = version;
    facts.pid = processes.PidOfThread(tid);
    facts.path = processes.PathOf(facts.pid);
    facts.name = processes.ProcessName(facts.pid, tid);
  }
  return facts;
}

bool Preparer::Next(PreparedEvent& out) {
  while (source_.Next(sourced_)) {
    const event::Event& event = *sourced_.event;
    const ThreadFacts& thread = Lookup(sourced_.tid);
    // Tracked before filtering: a call entered by a filtered-out event is still the one the
    // thread is in.
    const std::string_view svc = syscalls_.Observe(event, sourced_.tid, sourced_.byte_order);
    if (event.hook_id != event::kHookHeader) {
      FilterFacts facts;
      facts.hook_id = event.hook_id;
      facts.pid = thread.pid;
      facts.tid = sourced_.tid;
      facts.exec_path = thread.path;
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
    out.pid = thread.pid;
    out.tid = sourced_.tid;
    out.cpu = sourced_.cpu;
    out.priority = sourced_.priority;
    out.exec_path = thread.path;
    out.process_name = thread.name.empty() ? std::string_view("-") : thread.name;
    out.svc = svc;
    out.total_cpus = source_.total_cpus();
    out.traced_cpus = source_.traced_cpus();
    out.reported_cpus = source_.reported_cpus();
    return true;
  }
  return false;
}

}  // namespace rastrace::report
