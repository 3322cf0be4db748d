#include "export/process_table.h"

#include "event/format.h"
#include "event/process_events.h"

namespace rastrace::exporter {

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
  if (event.hook_id == event::kHookDynamicTracepoint && event.generic) {
    // The data word carries the hitting process's pid in its high half.
    const uint64_t pid = event.generic_word >> 32;
    auto [it, added] = pid_of_tid_.try_emplace(event.thread_id, pid);
    if (!added && it->second == pid) return false;
    it->second = pid;
    ++generation_;
    return true;
  }
  const auto decoded = event::DecodeProcessEvent(event, order);
  if (!decoded) return false;
  // A string that does not fit its buffer makes the whole event malformed: it is ignored.
  if (decoded->kind != event::ProcessEvent::Kind::kFork && !decoded->text) return false;
  switch (decoded->kind) {
    case event::ProcessEvent::Kind::kExec:
      exec_path_[decoded->pid] = std::string(*decoded->text);
      break;
    case event::ProcessEvent::Kind::kFork: {
      // The child runs the parent's program until it execs; its main thread is its pid.
      const auto parent = exec_path_.find(decoded->parent);
      if (parent != exec_path_.end()) exec_path_[decoded->pid] = parent->second;
      pid_of_tid_[decoded->pid] = decoded->pid;
      break;
    }
    case event::ProcessEvent::Kind::kProcess:
      pid_of_tid_[decoded->tid] = decoded->pid;
      if (!decoded->text->empty()) exec_path_[decoded->pid] = std::string(*decoded->text);
      break;
    case event::ProcessEvent::Kind::kThreadName:
      thread_name_[decoded->tid] = std::string(*decoded->text);
      if (decoded->thread_pid != 0) pid_of_tid_[decoded->tid] = decoded->thread_pid;
      break;
  }
  ++generation_;
  return true;
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
