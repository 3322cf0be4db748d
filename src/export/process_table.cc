#include "export/process_table.h"

#include "event/format.h"
#include "event/s2.h"

namespace rastrace::exporter {

namespace {
constexpr size_t kProcessIdsBytes = 16;  // ppid:8 tid:8 before the path of a 0x100 event
}  // namespace

std::optional<uint16_t> UtilitySubhook(const event::Event& e) {
  if (e.hook_id != event::kHookUtil) return std::nullopt;
  if (e.generic && e.layout == event::Layout::k32 && !e.reformatted) {
    return static_cast<uint16_t>(e.generic_word);
  }
  return e.subhook;
}

std::string_view BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos || path.size() == 1 ? path : path.substr(slash + 1);
}

bool ProcessTable::Observe(const event::Event& event, ByteOrder order) {
  if (event.layout != event::Layout::k64) return false;  // rastrace writes these 64-bit only
  if (event.hook_id == event::kHookExec && event.generic) {
    const auto path = event::ReadS2(event.buffer, 0, order);
    if (!path) return false;
    exec_path_[event.generic_word] = std::string(*path);
    ++generation_;
    return true;
  }
  if (event.hook_id == event::kHookFork && !event.generic && event.word_count >= 2) {
    // The child runs the parent's program until it execs; its main thread is its pid.
    const uint64_t child = event.words[0];
    const auto parent = exec_path_.find(event.words[1]);
    if (parent != exec_path_.end()) exec_path_[child] = parent->second;
    pid_of_tid_[child] = child;
    ++generation_;
    return true;
  }
  if (event.hook_id == event::kHookDynamicTracepoint && event.generic) {
    // The data word carries the hitting process's pid in its high half.
    const uint64_t pid = event.generic_word >> 32;
    auto [it, added] = pid_of_tid_.try_emplace(event.thread_id, pid);
    if (!added && it->second == pid) return false;
    it->second = pid;
    ++generation_;
    return true;
  }
  if (event.hook_id != event::kHookUtil || !event.generic) return false;
  switch (event.subhook) {
    case event::kUtilProcess: {
      if (event.buffer.size() < kProcessIdsBytes) return false;
      const auto path = event::ReadS2(event.buffer, kProcessIdsBytes, order);
      if (!path) return false;
      const uint64_t pid = event.generic_word;
      const uint64_t tid = Load64(event.buffer.data() + 8, order);
      pid_of_tid_[tid] = pid;
      if (!path->empty()) exec_path_[pid] = std::string(*path);
      ++generation_;
      return true;
    }
    case event::kUtilExec: {
      const auto path = event::ReadS2(event.buffer, 0, order);
      if (!path) return false;
      exec_path_[event.generic_word] = std::string(*path);
      ++generation_;
      return true;
    }
    case event::kUtilThreadName: {
      const auto name = event::ReadS2(event.buffer, 0, order);
      if (!name) return false;
      thread_name_[event.generic_word] = std::string(*name);
      // The recorder puts the thread's pid after the name (docs/log-format.md, 00A/104).
      if (const auto at = event::S2End(event.buffer, 0, order); event.buffer.size() >= *at + 8) {
        if (const uint64_t pid = Load64(event.buffer.data() + *at, order); pid != 0) {
          pid_of_tid_[event.generic_word] = pid;
        }
      }
      ++generation_;
      return true;
    }
    default:
      return false;
  }
}

std::optional<uint64_t> ProcessTable::PidOf(uint64_t tid) const {
  const auto it = pid_of_tid_.find(tid);
  if (it == pid_of_tid_.end()) return std::nullopt;
  return it->second;
}

std::string_view ProcessTable::ExecPath(uint64_t pid) const {
  const auto it = exec_path_.find(pid);
  return it == exec_path_.end() ? std::string_view() : std::string_view(it->second);
}

std::string_view ProcessTable::ThreadName(uint64_t tid) const {
  const auto it = thread_name_.find(tid);
  return it == thread_name_.end() ? std::string_view() : std::string_view(it->second);
}

void ProcessTable::InstallProcess(uint64_t pid, std::string_view path) {
  exec_path_[pid] = std::string(path);
  ++generation_;
}

}  // namespace rastrace::exporter
