// The system call each thread is in, from the kernel's 101 (SYSTEM CALL) and 104 (RETURN FROM
// SYSTEM CALL) hooks that sessions write (templates/kernel.trcfmt): it fills $SVC and the
// SYSTEM CALL column (-O svc=on).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::report {

class SyscallTracker {
 public:
  // Returns the system call `tid` is in at `event` (the call's own entry and return included),
  // or an empty view. The view stays valid for the tracker's lifetime: names are interned, so a
  // parallel report may hold it while later events are prepared.
  std::string_view Observe(const event::Event& event, uint64_t tid, ByteOrder order);

 private:
  std::string_view Intern(std::string_view name);
  std::unordered_set<std::string> names_;
  std::unordered_map<uint64_t, std::string_view> current_;
};

}  // namespace rastrace::report
