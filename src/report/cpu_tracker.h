// The CPU each thread runs on, from the 00A/108 events the recorder and the kernel session write
// into a thread's stream whenever it changes CPU: it fills $CPUID, the CPU column (-O cpuid=on)
// and $REPORTEDCPUS.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "report/thread_map.h"

namespace rastrace::report {

class CpuTracker {
 public:
  // Thread `tid` of thread space `space` (see ThreadMap) runs on `cpu` from now on.
  void Move(uint64_t space, uint64_t tid, uint32_t cpu);
  // The CPU of the last Move of that thread; 0 before its first one.
  uint32_t CpuOf(uint64_t space, uint64_t tid) { return cpu_of_thread_.Get(space, tid); }
  // True once a Move was seen: logs written before 00A/108 existed never have one.
  bool known() const { return !cpu_of_thread_.empty(); }
  // How many distinct CPUs the threads seen so far are on now. Falls when every thread has left
  // a CPU (seed 002: "the number of CPUs active in this report ... can decrease").
  uint32_t ActiveCpus() const { return static_cast<uint32_t>(threads_on_cpu_.size()); }

 private:
  ThreadMap cpu_of_thread_;
  std::unordered_map<uint32_t, uint64_t> threads_on_cpu_;  // only CPUs with at least one thread
};

}  // namespace rastrace::report
