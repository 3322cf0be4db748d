#include "report/thread_map.h"

namespace rastrace::report {

ThreadMap::SetResult ThreadMap::Set(uint64_t space, uint64_t tid, uint32_t value,
                                    uint32_t& previous) {
  Key key{space, tid};
  auto it = values_.find(key);
  if (it != values_.end()) {
    previous = it->second;
    it->second = value;
  } else if (values_.size() >= kMaxThreads) {
    return SetResult::kFull;
  } else {
    values_.emplace(key, value);
  }
  if (last_ == key) last_value_ = value;
  return it != values_.end() ? SetResult::kReplaced : SetResult::kAdded;
}

uint32_t ThreadMap::Get(uint64_t space, uint64_t tid) {
  if (values_.empty()) return 0;
  Key key{space, tid};
  if (key == last_) return last_value_;
  auto it = values_.find(key);
  last_ = key;
  last_value_ = it == values_.end() ? 0 : it->second;
  return last_value_;
}

}  // namespace rastrace::report
