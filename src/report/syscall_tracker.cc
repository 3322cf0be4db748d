#include "report/syscall_tracker.h"

namespace rastrace::report {

namespace {

constexpr uint16_t kHookSyscall = 0x1010;        // 101: buffer = 6 arguments, then S2 name
constexpr uint16_t kHookSyscallReturn = 0x1040;  // 104: buffer = S2 name
constexpr size_t kArgumentBytes = 6 * 8;

// The S2 string at `offset` of a generic buffer; empty when it does not fit.
std::string_view S2At(std::span<const uint8_t> buffer, size_t offset, ByteOrder order) {
  if (buffer.size() < offset + 2) return {};
  const size_t length = Load16(buffer.data() + offset, order);
  if (buffer.size() - offset - 2 < length) return {};
  return {reinterpret_cast<const char*>(buffer.data() + offset + 2), length};
}

}  // namespace

std::string_view SyscallTracker::Intern(std::string_view name) {
  return *names_.emplace(name).first;
}

std::string_view SyscallTracker::Observe(const event::Event& event, uint64_t tid, ByteOrder order) {
  if (event.generic && event.hook_id == kHookSyscall) {
    std::string_view name = Intern(S2At(event.buffer, kArgumentBytes, order));
    current_[tid] = name;
    return name;
  }
  if (event.generic && event.hook_id == kHookSyscallReturn) {
    // A return whose entry came before the trace started still names its call.
    auto it = current_.find(tid);
    if (it == current_.end()) return Intern(S2At(event.buffer, 0, order));
    std::string_view name = it->second;
    current_.erase(it);
    return name;
  }
  if (current_.empty()) return {};  // logs without system calls pay nothing more
  auto it = current_.find(tid);
  return it != current_.end() ? it->second : std::string_view{};
}

}  // namespace rastrace::report
