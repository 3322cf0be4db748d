#include "report/cpu_tracker.h"

namespace rastrace::report {

void CpuTracker::Move(uint64_t source, uint64_t tid, uint32_t cpu) {
  Key key{source, tid};
  auto [it, added] = cpu_of_thread_.try_emplace(key, cpu);
  if (!added) {
    if (it->second == cpu) return;
    auto old = threads_on_cpu_.find(it->second);
    if (old != threads_on_cpu_.end() && --old->second == 0) threads_on_cpu_.erase(old);
    it->second = cpu;
  }
  ++threads_on_cpu_[cpu];
  if (last_ == key) last_cpu_ = cpu;
}

uint32_t CpuTracker::CpuOf(uint64_t source, uint64_t tid) {
  if (cpu_of_thread_.empty()) return 0;
  Key key{source, tid};
  if (key == last_) return last_cpu_;
  auto it = cpu_of_thread_.find(key);
  last_ = key;
  last_cpu_ = it == cpu_of_thread_.end() ? 0 : it->second;
  return last_cpu_;
}

}  // namespace rastrace::report
