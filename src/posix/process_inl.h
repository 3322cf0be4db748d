#pragma once

namespace rastrace::posix {

template <class F>
void ForEachLocalName(F f) {
  unsigned count = LocalNameCount();
  std::string name;
  for (unsigned id = kFirstUserId; id < kFirstUserId + count; ++id) {
    if (LocalEventName(id, name)) f(id, name);
  }
}

}  // namespace rastrace::posix
