// The CPU each thread runs on, from the 00A/108 events the recorder and the kernel session write
// into a thread's stream whenever it changes CPU: it fills $CPUID, the CPU column (-O cpuid=on)
// and $REPORTEDCPUS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace rastrace::report {

class CpuTracker {
 public:
  // Thread `tid` of `source` (a log, or a source inside a merged log: thread ids of different
  // sources are different threads) runs on `cpu` from now on.
  void Move(uint64_t source, uint64_t tid, uint32_t cpu);
  // The CPU of the last Move of that thread; 0 before its first one.
  uint32_t CpuOf(uint64_t source, uint64_t tid);
  // True once a Move was seen: logs written before 00A/108 existed never have one.
  bool known() const { return !cpu_of_thread_.empty(); }
  // How many distinct CPUs the threads seen so far are on now. Falls when every thread has left
  // a CPU (seed 002: "the number of CPUs active in this report ... can decrease").
  uint32_t ActiveCpus() const { return static_cast<uint32_t>(threads_on_cpu_.size()); }

 private:
  struct Key {
    uint64_t source, tid;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>(k.tid * 0x9E3779B97F4A7C15ull ^ k.source);
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> cpu_of_thread_;
  std::unordered_map<uint32_t, uint64_t> threads_on_cpu_;  // only CPUs with at least one thread
  // Events of one thread come in runs: the last answer is usually the next one.
  Key last_{~uint64_t{0}, ~uint64_t{0}};
  uint32_t last_cpu_ = 0;
};

}  // namespace rastrace::report
