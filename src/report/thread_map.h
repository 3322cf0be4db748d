// A number per thread that the report learns from events (its CPU, its priority), keyed by thread
// id within a thread space: a log, or a source inside a merged log, since equal thread ids of
// different logs are different threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace rastrace::report {

class ThreadMap {
 public:
  // A corrupt or hostile log could name a new thread in every event: past this many threads,
  // new ones are not followed (they keep the value 0), so memory stays bounded.
  static constexpr size_t kMaxThreads = size_t{1} << 20;

  enum class SetResult { kAdded, kReplaced, kFull };
  // Sets the value; on kReplaced, `previous` is the value it had.
  SetResult Set(uint64_t space, uint64_t tid, uint32_t value, uint32_t& previous);
  // The last value set for the thread; 0 before one.
  uint32_t Get(uint64_t space, uint64_t tid);
  bool empty() const { return values_.empty(); }

 private:
  struct Key {
    uint64_t space, tid;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>(k.tid * 0x9E3779B97F4A7C15ull ^ k.space);
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> values_;
  // Events of one thread come in runs: the last answer is usually the next one.
  Key last_{~uint64_t{0}, ~uint64_t{0}};
  uint32_t last_value_ = 0;
};

}  // namespace rastrace::report
