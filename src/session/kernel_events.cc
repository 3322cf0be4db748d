#include "session/kernel_events.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>

#include "event/format.h"
#include "session/event_builder.h"

namespace rastrace::session {

std::span<const KernelSource> KernelSources() {
  static constexpr KernelSource kSources[] = {
      {"syscalls/sys_enter_*", kHookSystemCall, "raw_syscalls/sys_enter"},
      {"syscalls/sys_exit_*", kHookSyscallReturn, "raw_syscalls/sys_exit"},
      {"sched/sched_switch", kHookDispatch},
      {"sched/sched_process_fork", kHookFork},
      {"sched/sched_process_exec", kHookExec},
      {"sched/sched_process_exit", kHookExit},
      {"exceptions/page_fault_user", kHookPageFault},
      {"exceptions/page_fault_kernel", kHookPageFault},
      {"irq/irq_handler_entry", kHookInterrupt},
      {"irq/irq_handler_exit", kHookResume},
  };
  return kSources;
}

std::vector<std::string> KernelTracepoints(const std::string& events_dir,
                                           const std::bitset<65536>& allowed) {
  std::vector<std::string> out;
  for (const KernelSource& source : KernelSources()) {
    if (!allowed.test(source.hook)) continue;
    const std::string_view tracepoint = source.tracepoint;
    const size_t found = out.size();
    if (tracepoint.ends_with('*')) {
      const size_t slash = tracepoint.find('/');
      const std::string system(tracepoint.substr(0, slash));
      const std::string_view prefix = tracepoint.substr(slash + 1, tracepoint.size() - slash - 2);
      std::vector<std::string> names;
      if (DIR* dir = opendir((events_dir + "/" + system).c_str())) {
        while (const dirent* entry = readdir(dir)) {
          const std::string_view name = entry->d_name;
          if (name.starts_with(prefix) && name.size() > prefix.size()) names.emplace_back(name);
        }
        closedir(dir);
      }
      std::sort(names.begin(), names.end());
      for (const std::string& name : names) out.push_back(system + "/" + name);
    } else if (access((events_dir + "/" + std::string(tracepoint)).c_str(), F_OK) == 0) {
      out.emplace_back(tracepoint);
    }
    if (out.size() == found && source.fallback != nullptr &&
        access((events_dir + "/" + source.fallback).c_str(), F_OK) == 0) {
      out.emplace_back(source.fallback);
    }
  }
  return out;
}

KernelEventMapper::KernelEventMapper(const std::bitset<65536>& allowed, ExePath exe_path,
                                     ParentOf parent_of)
    : allowed_(allowed), exe_path_(std::move(exe_path)), parent_of_(std::move(parent_of)) {}

void KernelEventMapper::KnowThread(uint32_t tid, uint32_t /*pid*/) {
  known_threads_.insert(tid);
}

const std::string& KernelEventMapper::PathOf(uint32_t pid) {
  // Read again for every new thread, after its event: a path kept from an earlier read may be
  // from before an exec whose EXEC event was lost, and would name the process by its old
  // executable from this event on. The kept one serves only when the process is gone.
  std::string& path = paths_[pid];
  if (exe_path_) {
    if (std::string now = exe_path_(pid); !now.empty()) path = std::move(now);
  }
  return path;
}

uint32_t KernelEventMapper::ParentOfProcess(uint32_t pid) {
  auto [it, added] = parents_.try_emplace(pid, 0);
  if (added && parent_of_) it->second = parent_of_(pid);
  return it->second;
}

void KernelEventMapper::SeeThread(uint32_t tid, uint32_t pid, std::string_view comm,
                                  uint64_t timestamp, std::vector<uint8_t>& out) {
  if (tid == 0 || pid == 0 || !known_threads_.insert(tid).second) return;
  const std::string& path = PathOf(pid);
  // A process already gone: its main thread's name is the best there is. Another thread's name
  // (a worker's) must not rename the process.
  std::string_view name = path;
  if (name.empty() && tid == pid) name = comm;
  // With no name at all the event would erase the path the report may know from elsewhere.
  if (name.empty()) return;
  AppendProcessEvent(pid, ParentOfProcess(pid), tid, name, timestamp, out);
}

void KernelEventMapper::NewThread(uint32_t tid, uint32_t pid, uint64_t timestamp,
                                  std::vector<uint8_t>& out) {
  if (!known_threads_.insert(tid).second) return;
  const std::string& path = PathOf(pid);
  if (path.empty()) return;  // named at its first event, or by the process's own log
  AppendProcessEvent(pid, ParentOfProcess(pid), tid, path, timestamp, out);
}

size_t KernelEventMapper::Map(const KernelEvent& event, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  const bool same_thread = event.tid == last_tid_ && event.cpu == last_cpu_;
  if (!same_thread) SeeThread(event.tid, event.tgid, event.comm, event.timestamp, out);
  const size_t count = MapEvent(event, out);
  if (count != 0 && !same_thread) {
    NoteCpu(event, start, out);
    last_tid_ = event.tid;
    last_cpu_ = event.cpu;
  }
  return count;
}

void KernelEventMapper::NoteCpu(const KernelEvent& event, size_t at, std::vector<uint8_t>& out) {
  // The idle tasks of all cpus share tid 0: their cpu is in their DISPATCH IDLE events instead.
  if (event.tid == 0) return;
  const auto [it, first] = cpu_of_.try_emplace(event.tid, event.cpu);
  if (!first && it->second == event.cpu) return;
  it->second = event.cpu;
  cpu_event_.clear();
  AppendWords(event::kHookUtil, event::kUtilCpu, {event.cpu}, event.tid, event.timestamp, true,
              cpu_event_);
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), cpu_event_.begin(), cpu_event_.end());
}

size_t KernelEventMapper::MapEvent(const KernelEvent& event, std::vector<uint8_t>& out) {
  const uint64_t ts = event.timestamp;
  const uint64_t tid = event.tid;
  const auto& v = event.values;
  auto allowed = [&](uint16_t hook) { return allowed_.test(hook); };

  switch (event.kind) {
    case KernelEventKind::kSysEnter: {
      if (!allowed(kHookSystemCall) || event.syscall == nullptr) return 0;
      buffer_.clear();
      event.syscall->AppendBuffer(
          std::span<const uint64_t>(v.data(), event.syscall->arguments().size()), buffer_);
      AppendGeneric(kHookSystemCall, kSyscallNamedArguments, event.nr, buffer_, tid, ts, true, out);
      return 1;
    }
    case KernelEventKind::kSysExit: {
      if (!allowed(kHookSyscallReturn) || event.syscall == nullptr) return 0;
      buffer_.clear();
      AppendS2(event.syscall->name(), buffer_);
      AppendGeneric(kHookSyscallReturn, 0, v[0], buffer_, tid, ts, true, out);
      return 1;
    }
    case KernelEventKind::kSwitch: {
      // prev pid, prev priority, prev state, next pid, next priority
      if (v[3] == 0) {
        if (!allowed(kHookIdle)) return 0;
        AppendWords(kHookIdle, 0, {v[0], v[2], event.cpu}, tid, ts, true, out);
      } else {
        if (!allowed(kHookDispatch)) return 0;
        AppendWords(kHookDispatch, 0, {v[3], v[4], v[0], v[2], event.cpu}, tid, ts, true, out);
      }
      return 1;
    }
    case KernelEventKind::kFork: {
      const uint32_t child = static_cast<uint32_t>(v[1]);
      const uint32_t parent = event.tgid != 0 ? event.tgid : static_cast<uint32_t>(v[0]);
      // sched_process_fork is written for a new thread as for a new process: the child's
      // process tells them apart. A thread (librastrace's writer, a program's workers) belongs
      // to its process from the start; it is no FORK.
      if (event.child_tgid != 0 && event.child_tgid != child) {
        NewThread(child, event.child_tgid, ts, out);
        return 0;
      }
      parents_[child] = parent;
      // The child enters the process table when it is first seen running, with the process id
      // its events carry.
      if (!allowed(kHookFork)) return 0;
      AppendWords(kHookFork, 0, {child, parent}, tid, ts, true, out);
      return 1;
    }
    case KernelEventKind::kExec: {
      const uint32_t pid = static_cast<uint32_t>(v[0]);
      paths_[pid] = event.text;
      buffer_.clear();
      AppendS2(event.text, buffer_);
      AppendGeneric(event::kHookUtil, event::kUtilExec, pid, buffer_, tid, ts, true, out);
      if (allowed(kHookExec)) AppendGeneric(kHookExec, 0, pid, buffer_, tid, ts, true, out);
      return 1;
    }
    case KernelEventKind::kExit:
      if (!allowed(kHookExit)) return 0;
      AppendWords(kHookExit, 0, {v[0], v[1]}, tid, ts, true, out);
      return 1;
    case KernelEventKind::kPageFaultUser:
    case KernelEventKind::kPageFaultKernel:
      if (!allowed(kHookPageFault)) return 0;
      AppendWords(kHookPageFault, event.kind == KernelEventKind::kPageFaultUser ? 0 : 1,
                  {v[0], v[1], v[2]}, tid, ts, true, out);
      return 1;
    case KernelEventKind::kIrqEntry:
      if (!allowed(kHookInterrupt)) return 0;
      buffer_.clear();
      AppendS2(event.text, buffer_);
      AppendGeneric(kHookInterrupt, 0, v[0], buffer_, tid, ts, true, out);
      return 1;
    case KernelEventKind::kIrqExit:
      if (!allowed(kHookResume)) return 0;
      AppendWords(kHookResume, 0, {v[0], v[1]}, tid, ts, true, out);
      return 1;
  }
  return 0;
}

}  // namespace rastrace::session
