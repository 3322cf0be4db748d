#include "report/thread_map.h"

namespace rastrace::report {

bool ThreadMap::Set(uint64_t space, uint64_t tid, uint32_t value, uint32_t& previous) {
  Key key{space, tid};
  if (last_ == key) last_value_ = value;
  auto [it, added] = values_.try_emplace(key, value);
  if (added) return false;
  previous = it->second;
  it->second = value;
  return true;
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
