#include "report/cpu_tracker.h"

namespace rastrace::report {

void CpuTracker::Move(uint64_t space, uint64_t tid, uint32_t cpu) {
  uint32_t previous = 0;
  switch (cpu_of_thread_.Set(space, tid, cpu, previous)) {
    case ThreadMap::SetResult::kFull:
      return;
    case ThreadMap::SetResult::kReplaced: {
      if (previous == cpu) return;
      auto old = threads_on_cpu_.find(previous);
      if (old != threads_on_cpu_.end() && --old->second == 0) threads_on_cpu_.erase(old);
      break;
    }
    case ThreadMap::SetResult::kAdded:
      break;
  }
  ++threads_on_cpu_[cpu];
}

}  // namespace rastrace::report
