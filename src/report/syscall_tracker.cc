#include "report/syscall_tracker.h"

#include "event/format.h"
#include "event/s2.h"

namespace rastrace::report {

namespace {

constexpr size_t kArgumentBytes = 6 * 8;

}  // namespace

std::string_view SyscallTracker::Intern(std::string_view name) {
  return *names_.emplace(name).first;
}

std::string_view SyscallTracker::Observe(const event::Event& event, uint64_t tid, ByteOrder order) {
  if (event.generic && event.hook_id == event::kHookSystemCall) {
    std::string_view name = Intern(event::ReadS2(event.buffer, kArgumentBytes, order).value_or(""));
    current_[tid] = name;
    return name;
  }
  if (event.generic && event.hook_id == event::kHookSyscallReturn) {
    // A return whose entry came before the trace started still names its call.
    auto it = current_.find(tid);
    if (it == current_.end()) return Intern(event::ReadS2(event.buffer, 0, order).value_or(""));
    std::string_view name = it->second;
    current_.erase(it);
    return name;
  }
  if (current_.empty()) return {};  // logs without system calls pay nothing more
  auto it = current_.find(tid);
  return it != current_.end() ? it->second : std::string_view{};
}

}  // namespace rastrace::report
