#include "report/cpu_tracker.h"

namespace rastrace::report {

void CpuTracker::Move(uint64_t space, uint64_t tid, uint32_t cpu) {
  uint32_t previous = 0;
  if (cpu_of_thread_.Set(space, tid, cpu, previous)) {
    if (previous == cpu) return;
    auto old = threads_on_cpu_.find(previous);
    if (old != threads_on_cpu_.end() && --old->second == 0) threads_on_cpu_.erase(old);
  }
  ++threads_on_cpu_[cpu];
}

}  // namespace rastrace::report
