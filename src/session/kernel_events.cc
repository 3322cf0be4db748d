#include "session/kernel_events.h"

#include <array>
#include <cstddef>

#include "event/format.h"
#include "session/event_builder.h"

namespace rastrace::session {

namespace {

struct SyscallEntry {
  uint16_t nr;
  const char* name;
};

// Generated at build time from <asm/unistd_64.h> (src/session/CMakeLists.txt).
constexpr SyscallEntry kSyscalls[] = {
#include "syscall_names.inc"
};

uint64_t Number(std::optional<std::string_view> text, int base = 10) {
  if (!text) return 0;
  return ParseNumber(*text, base).value_or(0);
}

}  // namespace

std::span<const KernelSource> KernelSources() {
  static constexpr KernelSource kSources[] = {
      {"raw_syscalls/sys_enter", kHookSystemCall},
      {"raw_syscalls/sys_exit", kHookSyscallReturn},
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

std::string_view SyscallName(uint64_t nr, std::string& scratch) {
  // The table is sorted by number (the header defines them in order); search it.
  size_t low = 0, high = std::size(kSyscalls);
  while (low < high) {
    const size_t mid = (low + high) / 2;
    if (kSyscalls[mid].nr < nr) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low < std::size(kSyscalls) && kSyscalls[low].nr == nr) return kSyscalls[low].name;
  scratch = "nr" + std::to_string(nr);
  return scratch;
}

KernelEventMapper::KernelEventMapper(const std::bitset<65536>& allowed, ExePath exe_path)
    : allowed_(allowed), exe_path_(std::move(exe_path)) {}

void KernelEventMapper::KnowThread(uint32_t tid, uint32_t /*pid*/) {
  known_threads_.insert(tid);
}

void KernelEventMapper::SeeThread(uint32_t tid, uint32_t pid, std::string_view comm,
                                  uint64_t timestamp, std::vector<uint8_t>& out) {
  if (tid == 0 || pid == 0 || !known_threads_.insert(tid).second) return;
  // Read again for every new thread, after its event: a path kept from an earlier read may be
  // from before an exec whose EXEC event was lost, and would name the process by its old
  // executable from this event on. The kept one serves only when the process is gone.
  std::string& path = paths_[pid];
  if (exe_path_) {
    if (std::string now = exe_path_(pid); !now.empty()) path = std::move(now);
  }
  // A process already gone: its main thread's name is the best there is. Another thread's name
  // (a worker's) must not rename the process.
  std::string_view name = path;
  if (name.empty() && tid == pid) name = comm;
  // With no name at all the event would erase the path the report may know from elsewhere.
  if (name.empty()) return;
  AppendProcessEvent(pid, 0, tid, name, timestamp, out);
}

size_t KernelEventMapper::Map(const TraceLine& line, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  const size_t count = MapEvent(line, out);
  if (count != 0) NoteCpu(line, start, out);
  return count;
}

void KernelEventMapper::NoteCpu(const TraceLine& line, size_t at, std::vector<uint8_t>& out) {
  // The idle tasks of all cpus share tid 0: their cpu is in their DISPATCH IDLE events instead.
  if (line.tid == 0) return;
  const auto [it, first] = cpu_of_.try_emplace(line.tid, line.cpu);
  if (!first && it->second == line.cpu) return;
  it->second = line.cpu;
  cpu_event_.clear();
  AppendWords(event::kHookUtil, event::kUtilCpu, {line.cpu}, line.tid, line.timestamp_ns, true,
              cpu_event_);
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), cpu_event_.begin(), cpu_event_.end());
}

size_t KernelEventMapper::MapEvent(const TraceLine& line, std::vector<uint8_t>& out) {
  size_t count = 0;
  const uint64_t ts = line.timestamp_ns;
  const uint64_t tid = line.tid;
  auto allowed = [&](uint16_t hook) { return allowed_.test(hook); };
  SeeThread(line.tid, line.tgid, line.comm, ts, out);
  const std::string_view ev = line.event;
  const std::string_view body = line.body;

  if (ev == "sys_enter" || ev == "sys_exit") {
    // "NR 33 (b, 1, 55d16ae7b9bc, 0, 7, b)" / "NR 33 = 1"
    if (body.substr(0, 3) != "NR ") return 0;
    std::string_view rest = body.substr(3);
    const size_t end = rest.find(' ');
    const uint64_t nr = Number(rest.substr(0, end));
    const std::string_view name = SyscallName(nr, scratch_);
    std::vector<uint8_t> buffer;
    if (ev == "sys_enter") {
      if (!allowed(kHookSystemCall)) return 0;
      const size_t open = rest.find('(');
      std::string_view args = open == std::string_view::npos ? "" : rest.substr(open + 1);
      for (int i = 0; i < 6; ++i) {
        const size_t comma = args.find_first_of(",)");
        AppendU64(Number(args.substr(0, comma), 16), buffer);
        args = comma == std::string_view::npos ? "" : args.substr(comma + 1);
        while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
      }
      AppendS2(name, buffer);
      AppendGeneric(kHookSystemCall, 0, nr, buffer, tid, ts, true, out);
    } else {
      if (!allowed(kHookSyscallReturn)) return 0;
      const size_t equals = rest.find("= ");
      int64_t value = 0;
      if (equals != std::string_view::npos) {
        std::string_view number = rest.substr(equals + 2);
        const bool negative = !number.empty() && number.front() == '-';
        if (negative) number.remove_prefix(1);
        const uint64_t magnitude = Number(number);
        value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
      }
      AppendS2(name, buffer);
      AppendGeneric(kHookSyscallReturn, 0, static_cast<uint64_t>(value), buffer, tid, ts, true,
                    out);
    }
    count = 1;
  } else if (ev == "sched_switch") {
    const uint64_t next = Number(FieldValue(body, "next_pid"));
    const uint64_t prev = Number(FieldValue(body, "prev_pid"));
    const uint64_t next_prio = Number(FieldValue(body, "next_prio"));
    std::string_view state = FieldValue(body, "prev_state").value_or("?");
    const uint64_t state_char = state.empty() ? '?' : static_cast<uint8_t>(state.front());
    if (next == 0) {
      if (!allowed(kHookIdle)) return 0;
      AppendWords(kHookIdle, 0, {prev, state_char, line.cpu}, tid, ts, true, out);
    } else {
      if (!allowed(kHookDispatch)) return 0;
      AppendWords(kHookDispatch, 0, {next, next_prio, prev, state_char, line.cpu}, tid, ts, true,
                  out);
    }
    count = 1;
  } else if (ev == "sched_process_fork") {
    const uint64_t parent = Number(FieldValue(body, "pid"));
    const uint64_t child = Number(FieldValue(body, "child_pid"));
    // The child (a process or a thread: the event does not say) enters the process table when
    // it is first seen running, with the process id its lines carry.
    if (!allowed(kHookFork)) return 0;
    AppendWords(kHookFork, 0, {child, parent}, tid, ts, true, out);
    count = 1;
  } else if (ev == "sched_process_exec") {
    const std::string_view path = FieldValue(body, "filename").value_or("");
    const uint64_t pid = Number(FieldValue(body, "pid"));
    paths_[static_cast<uint32_t>(pid)] = path;
    std::vector<uint8_t> buffer;
    AppendS2(path, buffer);
    AppendGeneric(event::kHookUtil, event::kUtilExec, pid, buffer, tid, ts, true, out);
    if (allowed(kHookExec)) AppendGeneric(kHookExec, 0, pid, buffer, tid, ts, true, out);
    count = 1;
  } else if (ev == "sched_process_exit") {
    if (!allowed(kHookExit)) return 0;
    AppendWords(kHookExit, 0, {Number(FieldValue(body, "pid")), Number(FieldValue(body, "prio"))},
                tid, ts, true, out);
    count = 1;
  } else if (ev == "page_fault_user" || ev == "page_fault_kernel") {
    if (!allowed(kHookPageFault)) return 0;
    AppendWords(kHookPageFault, ev == "page_fault_user" ? 0 : 1,
                {Number(FieldValue(body, "address"), 16), Number(FieldValue(body, "ip"), 16),
                 Number(FieldValue(body, "error_code"), 16)},
                tid, ts, true, out);
    count = 1;
  } else if (ev == "irq_handler_entry") {
    if (!allowed(kHookInterrupt)) return 0;
    std::vector<uint8_t> buffer;
    AppendS2(FieldValue(body, "name").value_or(""), buffer);
    AppendGeneric(kHookInterrupt, 0, Number(FieldValue(body, "irq")), buffer, tid, ts, true, out);
    count = 1;
  } else if (ev == "irq_handler_exit") {
    if (!allowed(kHookResume)) return 0;
    const bool handled = FieldValue(body, "ret").value_or("") == "handled";
    AppendWords(kHookResume, 0, {Number(FieldValue(body, "irq")), handled ? 1u : 0u}, tid, ts, true,
                out);
    count = 1;
  }
  return count;
}

}  // namespace rastrace::session
