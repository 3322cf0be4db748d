#include "report/process_table.h"

#include <algorithm>
#include <mutex>

#include "event/format.h"
#include "event/process_events.h"

namespace rastrace::report {

bool ProcessTable::Observe(const event::Event& event, ByteOrder order, uint64_t sequence) {
  if (event.hook_id == event::kHookDynamicTracepoint && event.generic &&
      event.layout == event::Layout::k64) {
    // A tracepoint hit names its process (data word bits 32-63), as exports read it too.
    const uint64_t pid = event.generic_word >> 32;
    if (pid == 0 || PidOfThread(event.thread_id) == pid) return false;
    SetThread(event.thread_id, pid);
    return true;
  }
  const auto decoded = event::DecodeProcessEvent(event, order);
  if (!decoded) return false;
  // A string that does not fit its buffer reads as empty: the table still learns the ids.
  const std::string_view text = decoded->text.value_or(std::string_view{});
  switch (decoded->kind) {
    case event::ProcessEvent::Kind::kExec:
      SetPath(decoded->pid, text, sequence);
      return true;
    case event::ProcessEvent::Kind::kFork: {
      std::string parent_path(PathOf(decoded->parent));
      if (parent_path.empty()) return false;
      SetPath(decoded->pid, parent_path, sequence);
      return true;
    }
    case event::ProcessEvent::Kind::kProcess:
      SetPath(decoded->pid, text, sequence);
      if (decoded->tid != 0) SetThread(decoded->tid, decoded->pid);
      return true;
    case event::ProcessEvent::Kind::kThreadName:
      SetThreadName(decoded->tid, text);
      if (!text.empty() && decoded->thread_pid != 0) SetThread(decoded->tid, decoded->thread_pid);
      return true;
  }
  return false;
}

void ProcessTable::SetPath(uint64_t pid, std::string_view path, uint64_t sequence) {
  std::unique_lock lock(mutex_);
  auto& history = paths_[pid];
  if (!history.empty() && *history.back().path == path) return;
  strings_.emplace_back(path);
  // Changes come in sequence order from the reader; a pidinstall from a parallel formatter may
  // come late, so keep the history sorted.
  auto at = std::upper_bound(
      history.begin(), history.end(), sequence,
      [](uint64_t seq, const PathChange& change) { return seq < change.sequence; });
  history.insert(at, {sequence, &strings_.back()});
  version_.fetch_add(1, std::memory_order_release);
}

void ProcessTable::SetThread(uint64_t tid, uint64_t pid) {
  std::unique_lock lock(mutex_);
  thread_pid_[tid] = pid;
  version_.fetch_add(1, std::memory_order_release);
}

void ProcessTable::SetThreadName(uint64_t tid, std::string_view name) {
  std::unique_lock lock(mutex_);
  strings_.emplace_back(name);
  thread_names_[tid] = &strings_.back();
  version_.fetch_add(1, std::memory_order_release);
}

uint64_t ProcessTable::PidOfThread(uint64_t tid) const {
  std::shared_lock lock(mutex_);
  if (auto it = thread_pid_.find(tid); it != thread_pid_.end()) return it->second;
  if (paths_.count(tid) != 0) return tid;
  return 0;
}

std::string_view ProcessTable::PathOf(uint64_t pid) const {
  std::shared_lock lock(mutex_);
  auto it = paths_.find(pid);
  if (it == paths_.end() || it->second.empty()) return {};
  return *it->second.back().path;
}

std::string_view ProcessTable::PathAt(uint64_t pid, uint64_t sequence) const {
  std::shared_lock lock(mutex_);
  auto it = paths_.find(pid);
  if (it == paths_.end()) return {};
  const auto& history = it->second;
  // The last change made at or before `sequence`.
  auto after = std::upper_bound(
      history.begin(), history.end(), sequence,
      [](uint64_t seq, const PathChange& change) { return seq < change.sequence; });
  if (after == history.begin()) return {};
  return *std::prev(after)->path;
}

std::string_view ProcessTable::ThreadName(uint64_t tid) const {
  std::shared_lock lock(mutex_);
  auto it = thread_names_.find(tid);
  return it == thread_names_.end() ? std::string_view{} : std::string_view{*it->second};
}

std::string_view ProcessTable::ProcessName(uint64_t pid, uint64_t tid) const {
  std::string_view path = PathOf(pid);
  if (!path.empty()) {
    size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
  }
  return ThreadName(tid);
}

}  // namespace rastrace::report
