#include "dyntrace/ptrace_engine.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "dyntrace/elf_module.h"
#include "dyntrace/process_maps.h"
#include "dyntrace/record_builder.h"
#include "dyntrace/target_memory.h"
#include "dyntrace/x86_emulator.h"

namespace rastrace::dyntrace {
namespace {

constexpr uint8_t kInt3 = 0xCC;
constexpr long kOptions =
    PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC;

int EventOf(int status) {
  return status >> 16;
}

// True when thread `tid` belongs to process `pid` (a new thread may report before its CLONE
// event, and must not be mistaken for a forked child).
bool SameProcess(pid_t tid, pid_t pid) {
  return ::access(fmt::format("/proc/{}/task/{}", pid, tid).c_str(), F_OK) == 0;
}

// waitpid for any traced task, surviving the tracer's own timer and stop signals.
pid_t WaitAnyTask(int& status) {
  for (;;) {
    pid_t got = waitpid(-1, &status, __WALL);
    if (got >= 0 || errno != EINTR) return got;
  }
}

void ToRegisterFile(const user_regs_struct& in, RegisterFile& out) {
  out.Set(Reg::kRax, in.rax);
  out.Set(Reg::kRbx, in.rbx);
  out.Set(Reg::kRcx, in.rcx);
  out.Set(Reg::kRdx, in.rdx);
  out.Set(Reg::kRsi, in.rsi);
  out.Set(Reg::kRdi, in.rdi);
  out.Set(Reg::kRbp, in.rbp);
  out.Set(Reg::kRsp, in.rsp);
  out.Set(Reg::kR8, in.r8);
  out.Set(Reg::kR9, in.r9);
  out.Set(Reg::kR10, in.r10);
  out.Set(Reg::kR11, in.r11);
  out.Set(Reg::kR12, in.r12);
  out.Set(Reg::kR13, in.r13);
  out.Set(Reg::kR14, in.r14);
  out.Set(Reg::kR15, in.r15);
  out.Set(Reg::kRip, in.rip);
  out.Set(Reg::kEflags, in.eflags);
  out.Set(Reg::kCs, in.cs);
  out.Set(Reg::kSs, in.ss);
  out.Set(Reg::kDs, in.ds);
  out.Set(Reg::kEs, in.es);
  out.Set(Reg::kFs, in.fs);
  out.Set(Reg::kGs, in.gs);
}

// user_regs_struct fields in x86 register-number order (rax, rcx, rdx, rbx, rsp, rbp, ...).
constexpr unsigned long long user_regs_struct::*kGpr[16] = {
    &user_regs_struct::rax, &user_regs_struct::rcx, &user_regs_struct::rdx, &user_regs_struct::rbx,
    &user_regs_struct::rsp, &user_regs_struct::rbp, &user_regs_struct::rsi, &user_regs_struct::rdi,
    &user_regs_struct::r8,  &user_regs_struct::r9,  &user_regs_struct::r10, &user_regs_struct::r11,
    &user_regs_struct::r12, &user_regs_struct::r13, &user_regs_struct::r14, &user_regs_struct::r15};

// A stopped thread's memory for the emulator: process_vm_readv/writev fail (EFAULT) where the
// instruction itself would fault, and then it is single-stepped and faults for real.
class ThreadMemory : public EmulatedMemory {
 public:
  explicit ThreadMemory(pid_t tid) : tid_(tid) {}
  bool Read(uint64_t address, std::span<uint8_t> out) override {
    iovec local{out.data(), out.size()};
    iovec remote{reinterpret_cast<void*>(address), out.size()};
    return process_vm_readv(tid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(out.size());
  }
  bool Write(uint64_t address, std::span<const uint8_t> in) override {
    iovec local{const_cast<uint8_t*>(in.data()), in.size()};
    iovec remote{reinterpret_cast<void*>(address), in.size()};
    return process_vm_writev(tid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(in.size());
  }

 private:
  pid_t tid_;
};

struct Breakpoint {
  uint8_t original = 0;
  // The displaced instruction, when the tracer can emulate it (the int3 then stays in place).
  std::optional<X86Instruction> instruction;
  std::vector<size_t> record;      // tracepoints recorded at this address
  std::vector<size_t> arm_return;  // RETEP tracepoints armed here (procedure entry)
  bool return_site = false;        // a return address some RETEP armed
  bool loader_hook = false;        // _dl_debug_state: the link map changed
  bool late = false;               // placed for a module mapped after the attach
};

struct PendingReturn {
  size_t tracepoint;
  uint64_t address;
  uint64_t stack_pointer;  // RSP after the return
};

struct Thread {
  bool stopped = false;
  int held_signal = 0;         // delivered when the thread resumes
  bool at_breakpoint = false;  // stopped on a site whose hit was recorded; rip == the site
  bool group_stop = false;
  std::vector<PendingReturn> returns;
};

}  // namespace

struct PtraceEngine::Impl {
  pid_t pid = 0;
  std::vector<CompiledTracepoint> tracepoints;
  HitSink* sink = nullptr;
  int mem_fd = -1;
  std::map<uint64_t, Breakpoint> breakpoints;
  std::map<pid_t, Thread> threads;
  std::set<pid_t> fork_children;   // seized by TRACEFORK, to be cleaned and let go
  std::set<pid_t> vfork_children;  // share our memory: traced like threads until exec/exit
  ProcessMemory memory{0};
  std::vector<uint8_t> record;
  EngineStats stats;
  bool detached = false;
  std::optional<LateModule> late;
  bool late_attached = false;  // the late module's breakpoints are in place
  bool emulate = true;
  // Statuses of other tasks that arrived while one was waited for; handled before new ones.
  std::deque<std::pair<pid_t, int>> deferred;
  std::optional<int> leader_exit;  // the process's main thread ended with this wait status

  // The next status of any task: deferred ones first. Waiting for one task by its id could
  // hang: a main thread that has exited is not reported before its other threads are reaped.
  pid_t WaitAny(int& status) {
    if (!deferred.empty()) {
      auto [tid, deferred_status] = deferred.front();
      deferred.pop_front();
      status = deferred_status;
      return tid;
    }
    return WaitAnyTask(status);
  }

  // The next status of `tid`; those of other tasks are deferred.
  pid_t WaitTask(pid_t tid, int& status) {
    for (auto it = deferred.begin(); it != deferred.end(); ++it) {
      if (it->first == tid) {
        status = it->second;
        deferred.erase(it);
        return tid;
      }
    }
    for (;;) {
      pid_t got = WaitAnyTask(status);
      if (got < 0 || got == tid) return got;
      deferred.emplace_back(got, status);
      if (got == pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
        return -1;  // the whole process is gone, `tid` with it
      }
    }
  }

  ~Impl() {
    if (mem_fd >= 0) ::close(mem_fd);
  }

  Result<void> WriteByte(pid_t target, uint64_t address, uint8_t byte) {
    int fd = mem_fd;
    int own = -1;
    if (target != pid) {
      own = ::open(fmt::format("/proc/{}/mem", target).c_str(), O_RDWR | O_CLOEXEC);
      fd = own;
    }
    ssize_t n = ::pwrite(fd, &byte, 1, static_cast<off_t>(address));
    if (own >= 0) ::close(own);
    if (n != 1)
      return MakeError("cannot write process {} memory at 0x{:x}: {}", target, address,
                       std::strerror(errno));
    return Ok();
  }

  Result<uint8_t> ReadByte(uint64_t address) {
    uint8_t byte = 0;
    if (::pread(mem_fd, &byte, 1, static_cast<off_t>(address)) != 1) {
      return MakeError("cannot read process {} memory at 0x{:x}: {}", pid, address,
                       std::strerror(errno));
    }
    return byte;
  }

  // The byte a new breakpoint at `address` saves, to put back when it goes. An int3 there already
  // is another tracer's breakpoint (a uprobe: bpftrace, perf probe, `trace -B`; a debugger's):
  // saved as the original it would stay in the program after this tracer detached, and the
  // program would die of SIGTRAP at its next pass. Refused instead.
  Result<uint8_t> ReadOriginalByte(uint64_t address, std::string_view what) {
    auto byte = ReadByte(address);
    if (byte && *byte == kInt3) {
      return MakeError(
          "{}: 0x{:x} holds a breakpoint already (int3): another tracer (a uprobe, a debugger) "
          "probes this instruction; not patched",
          what, address);
    }
    return byte;
  }

  Result<void> Seize(pid_t tid) {
    if (ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(kOptions)) != 0) {
      if (errno == ESRCH) return Ok();  // exited meanwhile
      return MakeError("cannot attach to thread {}: {} (ptrace)", tid, std::strerror(errno));
    }
    threads[tid];
    return Ok();
  }

  // Seizes threads until a pass over /proc/PID/task finds none new.
  Result<void> SeizeAll() {
    for (bool found = true; found;) {
      found = false;
      std::string dir = fmt::format("/proc/{}/task", pid);
      DIR* d = opendir(dir.c_str());
      if (d == nullptr) return MakeError("{}: cannot list threads: {}", dir, std::strerror(errno));
      while (dirent* entry = readdir(d)) {
        if (entry->d_name[0] == '.') continue;
        pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (threads.count(tid) != 0) continue;
        auto seized = Seize(tid);
        if (!seized) {
          closedir(d);
          return seized;
        }
        found = true;
      }
      closedir(d);
    }
    return Ok();
  }

  // Stops every running thread except `except` (PTRACE_INTERRUPT) and waits for each stop,
  // recording breakpoint hits that arrive meanwhile.
  void StopAll(pid_t except) {
    // Tasks that already reported are stopped (or gone): handle them first.
    while (!deferred.empty()) {
      auto [tid, status] = deferred.front();
      deferred.pop_front();
      HandleStop(tid, status, /*resume=*/false);
    }
    std::set<pid_t> waiting;
    for (auto& [tid, thread] : threads) {
      if (tid == except || thread.stopped) continue;
      if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0) waiting.insert(tid);
    }
    while (!waiting.empty()) {
      int status = 0;
      pid_t tid = WaitAny(status);
      if (tid < 0) {  // no task left to report: those still waited for are gone
        for (pid_t gone : waiting) threads.erase(gone);
        break;
      }
      waiting.erase(tid);
      HandleStop(tid, status, /*resume=*/false);
    }
  }

  void Resume(pid_t tid, Thread& thread) {
    int signal = thread.held_signal;
    thread.held_signal = 0;
    thread.stopped = false;
    if (thread.group_stop) {
      thread.group_stop = false;
      ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
      return;
    }
    ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal)));
  }

  // Runs the displaced instruction of the site `tid` is stopped on, then puts the int3 back.
  // `known`: the thread's registers, already rewound onto the site but not yet stored (saves a
  // GETREGS/SETREGS pair per hit).
  void StepOver(pid_t tid, Thread& thread, user_regs_struct* known = nullptr) {
    thread.at_breakpoint = false;
    user_regs_struct regs;
    if (known != nullptr) {
      regs = *known;
    } else if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) {
      return;
    }
    auto it = breakpoints.find(regs.rip);
    if (it == breakpoints.end()) {
      if (known != nullptr) ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
      return;
    }
    if (Emulate(tid, regs, it->second)) {
      ++stats.emulated;
      return;
    }
    if (known != nullptr) ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
    ++stats.single_steps;
    bool others_running = false;
    for (auto& [other, state] : threads) {
      if (other != tid && !state.stopped) others_running = true;
    }
    if (others_running) StopAll(tid);
    (void)WriteByte(pid, regs.rip, it->second.original);
    for (;;) {
      if (ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) break;
      int status = 0;
      if (WaitTask(tid, status) < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
        if (tid == pid && (WIFEXITED(status) || WIFSIGNALED(status))) leader_exit = status;
        threads.erase(tid);
        break;
      }
      if (!WIFSTOPPED(status)) break;
      if (WSTOPSIG(status) == SIGTRAP && EventOf(status) == 0) break;
      if (EventOf(status) != 0) {
        HandleEvent(tid, status);
        continue;
      }
      // A signal arrived before the step: hold it back until the thread resumes.
      thread.held_signal = WSTOPSIG(status);
    }
    (void)WriteByte(pid, regs.rip, kInt3);
    // Threads that stopped on a site while this one stepped step over it now, one at a time.
    StepOverStopped(tid);
    if (others_running) ResumeStopped(tid);
  }

  // Stepping can end threads (erasing them) and add new ones, so these loops go over a copy of
  // the thread ids.
  std::vector<pid_t> ThreadIds(pid_t except) const {
    std::vector<pid_t> ids;
    for (const auto& [tid, thread] : threads) {
      if (tid != except) ids.push_back(tid);
    }
    return ids;
  }

  void StepOverStopped(pid_t except) {
    for (pid_t tid : ThreadIds(except)) {
      auto it = threads.find(tid);
      if (it != threads.end() && it->second.at_breakpoint) StepOver(tid, it->second);
    }
  }

  void ResumeStopped(pid_t except) {
    for (pid_t tid : ThreadIds(except)) {
      auto it = threads.find(tid);
      if (it != threads.end() && it->second.stopped) Resume(tid, it->second);
    }
  }

  // Runs the displaced instruction in the tracer when the decoder knows it: one stop per hit,
  // and the int3 never leaves the site, so other threads cannot run past it.
  bool Emulate(pid_t tid, user_regs_struct& regs, const Breakpoint& breakpoint) {
    if (!breakpoint.instruction || !emulate) return false;
    X86State state;
    for (size_t i = 0; i < state.gpr.size(); ++i) state.gpr[i] = regs.*kGpr[i];
    state.rip = regs.rip;
    state.rflags = regs.eflags;
    state.fs_base = regs.fs_base;
    state.gs_base = regs.gs_base;
    ThreadMemory thread_memory(tid);
    if (!EmulateX86(*breakpoint.instruction, state, thread_memory)) return false;
    for (size_t i = 0; i < state.gpr.size(); ++i) regs.*kGpr[i] = state.gpr[i];
    regs.rip = state.rip;
    regs.eflags = state.rflags;
    return ptrace(PTRACE_SETREGS, tid, nullptr, &regs) == 0;
  }

  // Decodes the instruction at `address` as the program has it: bytes already replaced by our
  // int3s (a site right after another) read as their originals.
  std::optional<X86Instruction> DecodeOriginal(uint64_t address, uint8_t original) {
    uint8_t code[15] = {};
    ssize_t got = ::pread(mem_fd, code, sizeof code, static_cast<off_t>(address));
    if (got <= 0) return std::nullopt;
    code[0] = original;
    for (size_t i = 1; i < static_cast<size_t>(got); ++i) {
      auto other = breakpoints.find(address + i);
      if (other != breakpoints.end()) code[i] = other->second.original;
    }
    return DecodeX86(std::span<const uint8_t>(code, static_cast<size_t>(got)));
  }

  void RecordHit(size_t index, pid_t tid, const RegisterFile& registers) {
    const CompiledTracepoint& tracepoint = tracepoints[index];
    BuiltRecord built = BuildRecord(tracepoint, registers, memory, record);
    Hit hit;
    hit.pid = pid;
    hit.tid = tid;
    hit.realtime_ns = RealtimeNow();
    hit.data = record;
    hit.built = built;
    ++stats.hits;
    sink->OnHit(tracepoint, hit);
  }

  // A thread stopped on an int3 of ours: record, arm returns, rewind onto the site (in `regs`;
  // stored into the thread when `store`).
  void OnBreakpoint(pid_t tid, Thread& thread, user_regs_struct& regs, bool store) {
    uint64_t site = regs.rip - 1;
    Breakpoint& breakpoint = breakpoints[site];
    regs.rip = site;
    RegisterFile registers;
    ToRegisterFile(regs, registers);
    // Returns first: the caller's own tracepoint at its next instruction comes after the callee
    // returned.
    if (breakpoint.return_site) {
      while (!thread.returns.empty() && thread.returns.back().stack_pointer <= regs.rsp) {
        PendingReturn pending = thread.returns.back();
        thread.returns.pop_back();
        if (pending.address == site && pending.stack_pointer == regs.rsp) {
          RecordHit(pending.tracepoint, tid, registers);
        }
      }
    }
    for (size_t index : breakpoint.record) RecordHit(index, tid, registers);
    if (breakpoint.loader_hook) LinkMapChanged();
    if (!breakpoint.arm_return.empty()) {
      uint64_t return_address = 0;
      iovec local{&return_address, sizeof return_address};
      iovec remote{reinterpret_cast<void*>(regs.rsp), sizeof return_address};
      if (process_vm_readv(tid, &local, 1, &remote, 1, 0) == sizeof return_address) {
        for (size_t index : breakpoint.arm_return) {
          thread.returns.push_back({index, return_address, regs.rsp + 8});
        }
        (void)ArmReturnSite(return_address);
      }
    }
    if (store) {
      ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
      thread.at_breakpoint = true;
    }
  }

  Result<void> ArmReturnSite(uint64_t address) {
    auto it = breakpoints.find(address);
    if (it != breakpoints.end()) {
      it->second.return_site = true;
      return Ok();
    }
    auto original = ReadOriginalByte(address, "return address");
    if (!original) return original.error();
    Breakpoint breakpoint;
    breakpoint.original = *original;
    breakpoint.return_site = true;
    breakpoint.instruction = DecodeOriginal(address, *original);
    breakpoints[address] = breakpoint;
    return WriteByte(pid, address, kInt3);
  }

  void HandleEvent(pid_t tid, int status) {
    int event = EventOf(status);
    unsigned long message = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message);
    pid_t child = static_cast<pid_t>(message);
    if (event == PTRACE_EVENT_CLONE) {
      // Its first stop may have been handled already (and left it stopped, e.g. while the world
      // was stopped for a step): an existing entry is kept as it is.
      threads.try_emplace(child);
    } else if (event == PTRACE_EVENT_FORK) {
      fork_children.insert(child);
    } else if (event == PTRACE_EVENT_VFORK) {
      vfork_children.insert(child);
      threads[child];
    } else if (event == PTRACE_EVENT_EXEC && tid == pid) {
      // The image with our sites is gone; nothing of ours is left to remove.
      breakpoints.clear();
    }
  }

  // Handles one wait status of a traced task; resumes it unless asked not to or it must stay
  // stopped on a breakpoint for a step.
  void HandleStop(pid_t tid, int status, bool resume) {
    if (fork_children.count(tid) != 0) {
      ReleaseForkChild(tid, status);
      return;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == pid) leader_exit = status;
      threads.erase(tid);
      vfork_children.erase(tid);
      return;
    }
    if (!WIFSTOPPED(status)) return;
    Thread& thread = threads[tid];
    thread.stopped = true;
    int signal = WSTOPSIG(status);
    int event = EventOf(status);
    if (event == PTRACE_EVENT_STOP) {
      thread.group_stop =
          signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
    } else if (event != 0) {
      HandleEvent(tid, status);
      if (event == PTRACE_EVENT_EXEC && vfork_children.count(tid) != 0) {
        vfork_children.erase(tid);
        threads.erase(tid);
        ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
        return;
      }
    } else if (signal == SIGTRAP) {
      user_regs_struct regs;
      if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0 &&
          breakpoints.count(regs.rip - 1) != 0) {
        OnBreakpoint(tid, thread, regs, /*store=*/!resume);
        if (resume) {
          StepOver(tid, thread, &regs);
          if (threads.count(tid) != 0) Resume(tid, threads[tid]);
        }
        return;
      }
      thread.held_signal = signal;  // the program's own SIGTRAP
    } else {
      thread.held_signal = signal;
    }
    if (resume) Resume(tid, thread);
  }

  // A forked child has a copy of our int3s: put the original bytes back, then let it go.
  void ReleaseForkChild(pid_t child, int status) {
    if (!WIFSTOPPED(status)) {
      fork_children.erase(child);
      return;
    }
    for (const auto& [address, breakpoint] : breakpoints) {
      (void)WriteByte(child, address, breakpoint.original);
    }
    fork_children.erase(child);
    ptrace(PTRACE_DETACH, child, nullptr, nullptr);
  }

  Result<void> InsertAll() { return Insert(0, /*late_module=*/false); }

  // Checks and places the breakpoints of tracepoints[first..]; nothing is written when one fails.
  Result<void> Insert(size_t first, bool late_module) {
    std::set<uint64_t> added;
    for (size_t i = first; i < tracepoints.size(); ++i) {
      const CompiledTracepoint& tracepoint = tracepoints[i];
      uint64_t address = tracepoint.site.address;
      auto existing = breakpoints.find(address);
      auto original = existing != breakpoints.end() ? ReadByte(address)
                                                    : ReadOriginalByte(address, tracepoint.name);
      if (!original) return original.error();
      uint8_t actual = existing != breakpoints.end() ? existing->second.original : *original;
      if (tracepoint.opcode && *tracepoint.opcode != actual) {
        return MakeError(
            "{}: OPCODE=0x{:02X} expected at 0x{:x} but the process has 0x{:02X}; "
            "not patched",
            tracepoint.name, *tracepoint.opcode, address, actual);
      }
      if (tracepoint.site.retep && !tracepoint.site.return_sites.empty()) {
        // Records at each ret of the procedure: the emulated ret makes a return one stop, and
        // the entry needs no breakpoint.
        for (uint64_t ret : tracepoint.site.return_sites) {
          auto known = breakpoints.find(ret);
          uint8_t byte = 0;
          if (known != breakpoints.end()) {
            byte = known->second.original;
          } else {
            auto read = ReadOriginalByte(ret, tracepoint.name);
            if (!read) return read.error();
            byte = *read;
          }
          if (known == breakpoints.end()) added.insert(ret);
          Breakpoint& breakpoint = breakpoints[ret];
          breakpoint.original = byte;
          breakpoint.late = breakpoint.late || late_module;
          breakpoint.record.push_back(i);
        }
        continue;
      }
      if (existing == breakpoints.end()) added.insert(address);
      Breakpoint& breakpoint = breakpoints[address];
      if (existing == breakpoints.end()) breakpoint.original = actual;
      breakpoint.late = breakpoint.late || late_module;
      (tracepoint.site.retep ? breakpoint.arm_return : breakpoint.record).push_back(i);
    }
    // Every original byte is known before the instructions are decoded (sites may be adjacent).
    for (uint64_t address : added) {
      Breakpoint& breakpoint = breakpoints[address];
      breakpoint.instruction = DecodeOriginal(address, breakpoint.original);
    }
    for (auto it = added.begin(); it != added.end(); ++it) {
      auto written = WriteByte(pid, *it, kInt3);
      if (!written) {
        // Take back what was written: no int3 may stay without its bookkeeping.
        for (auto undo = added.begin(); undo != it; ++undo) {
          (void)WriteByte(pid, *undo, breakpoints[*undo].original);
        }
        return written;
      }
    }
    return Ok();
  }

  // The dynamic linker changed its link map (a dlopen or dlclose). Attaches the late module's
  // tracepoints once it is mapped; forgets its breakpoints when it is gone (its code is unmapped,
  // and whatever is mapped there later is not ours to restore).
  void LinkMapChanged() {
    if (!late) return;
    bool mapped = late->mapped();
    if (late_attached && !mapped) {
      std::erase_if(breakpoints, [](const auto& entry) { return entry.second.late; });
      late_attached = false;
    }
    if (late_attached || !mapped) return;
    auto resolved = late->resolve();
    if (!resolved) {
      stats.late_errors.push_back(resolved.error().message);
      late.reset();
      return;
    }
    size_t first = tracepoints.size();
    for (CompiledTracepoint& tracepoint : *resolved) tracepoints.push_back(std::move(tracepoint));
    auto inserted = Insert(first, /*late_module=*/true);
    if (!inserted) {
      // Nothing was written for them: drop their bookkeeping and stop trying.
      std::erase_if(breakpoints, [](const auto& entry) { return entry.second.late; });
      stats.late_errors.push_back(inserted.error().message);
      late.reset();
      return;
    }
    late_attached = true;
    ++stats.late_attaches;
  }

  // A breakpoint on the dynamic linker's _dl_debug_state, the function glibc calls (as the r_debug
  // protocol's r_brk) before and after each change of the loaded objects.
  Result<void> HookLoader() {
    auto maps = ReadMaps(pid);
    if (!maps) return maps.error();
    std::string loader;
    for (const Mapping& mapping : *maps) {
      std::string_view name = mapping.path;
      name = name.substr(name.rfind('/') + 1);
      if (name.starts_with("ld-linux") || name.starts_with("ld.so") ||
          name.starts_with("ld64.so")) {
        loader = mapping.path;
        break;
      }
    }
    if (loader.empty()) {
      return MakeError(
          "process {} has no dynamic linker mapped; a module it has not loaded cannot be "
          "waited for",
          pid);
    }
    auto elf = ElfModule::Open(loader);
    if (!elf) return elf.error();
    auto symbol = elf->FindSymbol("_dl_debug_state");
    if (!symbol) return symbol.error();
    auto bias = elf->LoadBias(*maps);
    if (!bias) return bias.error();
    uint64_t address = symbol->value + *bias;
    auto original = ReadByte(address);
    if (!original) return original.error();
    Breakpoint& breakpoint = breakpoints[address];
    breakpoint.original = *original;
    breakpoint.loader_hook = true;
    breakpoint.instruction = DecodeOriginal(address, *original);
    return WriteByte(pid, address, kInt3);
  }
};

PtraceEngine::PtraceEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PtraceEngine::~PtraceEngine() {
  if (!impl_->detached) (void)Detach();
}

void PtraceEngine::SingleStepEverySite() {
  impl_->emulate = false;
}

const EngineStats& PtraceEngine::stats() const {
  return impl_->stats;
}

Result<std::unique_ptr<PtraceEngine>> PtraceEngine::Attach(
    pid_t pid, std::vector<CompiledTracepoint> tracepoints, HitSink& sink, bool already_seized,
    std::optional<LateModule> late) {
  auto impl = std::make_unique<Impl>();
  impl->pid = pid;
  impl->tracepoints = std::move(tracepoints);
  impl->sink = &sink;
  impl->memory = ProcessMemory(pid);
  impl->mem_fd = ::open(fmt::format("/proc/{}/mem", pid).c_str(), O_RDWR | O_CLOEXEC);
  if (impl->mem_fd < 0) {
    return MakeError("/proc/{}/mem: cannot open: {}", pid, std::strerror(errno));
  }
  if (already_seized) {
    impl->threads[pid].stopped = true;
  }
  auto seized = impl->SeizeAll();
  if (!seized) {
    impl->detached = true;
    for (auto& [tid, thread] : impl->threads) ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    return seized.error();
  }
  impl->StopAll(0);
  auto inserted = impl->InsertAll();
  if (inserted && late) {
    impl->late = std::move(late);
    inserted = impl->HookLoader();
    // Mapped meanwhile (between the session's look and the stop)?
    if (inserted) impl->LinkMapChanged();
  }
  auto engine = std::make_unique<PtraceEngine>(std::move(impl));
  if (!inserted) {
    (void)engine->Detach();
    return inserted.error();
  }
  return engine;
}

Result<void> PtraceEngine::Run(const std::atomic<bool>& stop, int& exit_status, bool& exited) {
  Impl& impl = *impl_;
  exited = false;
  impl.StepOverStopped(0);
  impl.ResumeStopped(0);
  while (!stop.load(std::memory_order_relaxed)) {
    if (impl.leader_exit) {
      // Seen while the world was stopped for a step.
      exited = true;
      exit_status = *impl.leader_exit;
      impl.detached = true;
      return Ok();
    }
    int status = 0;
    // An interrupted wait goes back to `stop` (trace off's SIGTERM lands here).
    pid_t tid = !impl.deferred.empty() ? impl.WaitAny(status) : waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      if (errno == ECHILD) {
        exited = true;
        return Ok();
      }
      return MakeError("waitpid: {}", std::strerror(errno));
    }
    if (tid == impl.pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
      impl.threads.erase(tid);
      exited = true;
      exit_status = status;
      impl.detached = true;
      return Ok();
    }
    if (impl.threads.count(tid) == 0 && impl.fork_children.count(tid) == 0 && WIFSTOPPED(status) &&
        !SameProcess(tid, impl.pid)) {
      // A fork child whose first stop came before its parent's event.
      impl.fork_children.insert(tid);
    }
    impl.HandleStop(tid, status, /*resume=*/true);
  }
  return Ok();
}

Result<void> PtraceEngine::Detach() {
  Impl& impl = *impl_;
  if (impl.detached) return Ok();
  impl.detached = true;
  impl.StopAll(0);
  for (const auto& [address, breakpoint] : impl.breakpoints) {
    (void)impl.WriteByte(impl.pid, address, breakpoint.original);
  }
  for (auto& [tid, thread] : impl.threads) {
    // A thread rewound onto a site now finds the original instruction there.
    auto signal = reinterpret_cast<void*>(static_cast<long>(thread.held_signal));
    if (ptrace(PTRACE_DETACH, tid, nullptr, signal) == 0 || tid == impl.pid) continue;
    // Not in a ptrace stop: it exited just before the stop (a zombie that only its tracer can
    // reap, and whose main thread cannot be reaped by anyone until then) or still runs.
    ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    for (int attempt = 0; attempt < 1000; ++attempt) {
      int status = 0;
      pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
      if (got == tid && WIFSTOPPED(status)) ptrace(PTRACE_DETACH, tid, nullptr, signal);
      if (got != 0) break;
      usleep(1000);
    }
  }
  impl.threads.clear();
  return Ok();
}

}  // namespace rastrace::dyntrace
