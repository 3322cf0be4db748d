// Cost of a tracepoint hit for each engine: dt_loop calls probe_target() N times and reports the
// mean time per iteration of its loop; the difference to the untraced loop is the cost per hit.
// Also the cost of assembling one record.
#include <benchmark/benchmark.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "dyntrace/bpf_engine.h"
#include "dyntrace/launcher.h"
#include "dyntrace/ptrace_engine.h"
#include "dyntrace/record_builder.h"
#include "dyntrace/resolver.h"

namespace rastrace::dyntrace {
namespace {

class CountingSink : public HitSink {
 public:
  void OnHit(const CompiledTracepoint&, const Hit&) override { ++hits; }
  uint64_t hits = 0;
};

std::string LoopProgram() {
  return std::string(RASTRACE_BINARY_DIR) + "/tests/dyntrace/dt_loop";
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  return text;
}

bool ChildAlive(pid_t pid) {
  return waitpid(pid, nullptr, WNOHANG) != pid;
}

enum class Mode { kUntraced, kBpf, kPtrace };

// Runs dt_loop `calls` times under `mode` with the TSF `site` (a TP= value and data); returns the
// loop's ns per iteration, or a negative value on failure (the reason in `error`).
double RunLoop(Mode mode, const std::string& site, long calls, uint64_t& hits, std::string& error,
               bool arm_return_addresses, bool single_step) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  auto child = LaunchStopped({LoopProgram(), std::to_string(calls)}, pipe_fds[1]);
  close(pipe_fds[1]);
  if (!child) {
    error = child.error().message;
    return -1;
  }
  CountingSink sink;
  std::atomic<bool> stop{false};
  if (mode == Mode::kUntraced) {
    ptrace(PTRACE_DETACH, *child, nullptr, nullptr);
    waitpid(*child, nullptr, 0);
  } else {
    tsf::ParseOutput parsed =
        tsf::ParseTsf("MODNAME = dt_loop\nMAJOR = 0x70\nTRACE " + site + "\n", "bench.tsf");
    auto maps = ReadMaps(*child);
    auto selected = parsed.module
                        ? SelectTracepoints(*parsed.module, {})
                        : Result<std::vector<const tsf::Tracepoint*>>(Error{"bad benchmark TSF"});
    if (!maps || !selected) {
      error = !maps ? maps.error().message : selected.error().message;
      kill(*child, SIGKILL);
      return -1;
    }
    auto compiled = ResolveTracepoints(*parsed.module, *selected, *child, *maps, "");
    if (!compiled) {
      error = compiled.error().message;
      kill(*child, SIGKILL);
      return -1;
    }
    if (arm_return_addresses) {
      for (CompiledTracepoint& tracepoint : *compiled) tracepoint.site.return_sites.clear();
    }
    if (mode == Mode::kBpf) {
      auto engine = BpfEngine::Attach(*child, *compiled, sink);
      if (!engine) {
        error = engine.error().message;
        kill(*child, SIGKILL);
        return -1;
      }
      ptrace(PTRACE_DETACH, *child, nullptr, nullptr);
      (void)(*engine)->Run(stop, ChildAlive);
      (*engine)->Detach();
    } else {
      auto engine = PtraceEngine::Attach(*child, *compiled, sink, true);
      if (!engine) {
        error = engine.error().message;
        kill(*child, SIGKILL);
        return -1;
      }
      if (single_step) (*engine)->SingleStepEverySite();
      int status = 0;
      bool exited = false;
      (void)(*engine)->Run(stop, status, exited);
    }
  }
  hits = sink.hits;
  std::string output = ReadAll(pipe_fds[0]);
  close(pipe_fds[0]);
  size_t at = output.find("ns_per_iteration ");
  if (at == std::string::npos) {
    error = "dt_loop printed no timing";
    return -1;
  }
  return std::atof(output.c_str() + at + 17);
}

// CPU time (user + system) of this process and of its reaped children, in ns: the tracer and the
// traced program together, which is what a hit costs the machine whatever else runs on it.
double CpuNs() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    for (const timeval& t : {usage.ru_utime, usage.ru_stime}) {
      total += static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_usec) * 1e3;
    }
  }
  return total;
}

void LoopBenchmark(benchmark::State& state, Mode mode, std::string site, long calls,
                   bool arm_return_addresses = false, bool single_step = false) {
  if (geteuid() != 0) {
    state.SkipWithError("needs root (ptrace of a child and BPF)");
    return;
  }
  double total = 0;
  double cpu = 0;
  uint64_t hits = 0;
  for (auto _ : state) {
    std::string error;
    double cpu_before = CpuNs();
    double ns = RunLoop(mode, site, calls, hits, error, arm_return_addresses, single_step);
    cpu += CpuNs() - cpu_before;
    if (ns < 0) {
      state.SkipWithError(error.c_str());
      return;
    }
    total += ns;
    state.SetIterationTime(ns * static_cast<double>(calls) / 1e9);
  }
  state.counters["ns_per_call"] = total / static_cast<double>(state.iterations());
  // Includes starting dt_loop (about 1 ms, under 0.1 us per call at these counts).
  state.counters["cpu_ns_per_call"] =
      cpu / static_cast<double>(state.iterations()) / static_cast<double>(calls);
  state.counters["hits"] = static_cast<double>(hits);
  state.SetItemsProcessed(state.iterations() * calls);
}

void BM_LoopUntraced(benchmark::State& state) {
  LoopBenchmark(state, Mode::kUntraced, "", 2000000);
}
void BM_LoopBpfRegs(benchmark::State& state) {
  LoopBenchmark(state, Mode::kBpf, "TP=.probe_target, REGS=(RDI)", 200000);
}
void BM_LoopBpfReturn(benchmark::State& state) {
  LoopBenchmark(state, Mode::kBpf, "TP=.probe_target,RETEP, REGS=(RAX)", 200000);
}
// With RSP in the record RETEP is taken at the `ret` (docs/dyntrace.md), which the kernel
// single-steps.
void BM_LoopBpfReturnAtTheRet(benchmark::State& state) {
  LoopBenchmark(state, Mode::kBpf, "TP=.probe_target,RETEP, REGS=(RAX,RSP)", 200000);
}
void BM_LoopBpfStackMemory(benchmark::State& state) {
  LoopBenchmark(state, Mode::kBpf, "TP=.probe_target, MEM32=(RSP,DIRECT,8)", 200000);
}
// The entry's push %rbp is emulated: no single step.
void BM_LoopPtraceEntry(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target, REGS=(RDI)", 20000);
}
// probe_target+4 is mov %rdi,-8(%rbp): emulated, a store through process_vm_writev.
void BM_LoopPtraceEmulatedStore(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target+4, REGS=(RDI)", 20000);
}
// probe_target+15 is add %rax,%rax: emulated (an ALU operation between registers, flags).
void BM_LoopPtraceEmulatedAlu(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target+15, REGS=(RDI)", 20000);
}
// The same site single-stepped (what an instruction the emulator refuses costs).
void BM_LoopPtraceSingleStep(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target+15, REGS=(RDI)", 20000, false, true);
}
// RETEP at probe_target's ret (emulated): one stop per call.
void BM_LoopPtraceReturn(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target,RETEP, REGS=(RAX)", 20000);
}
// RETEP the fallback way (tail calls, jump tables): entry arms the return address, two stops.
void BM_LoopPtraceReturnArmed(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target,RETEP, REGS=(RAX)", 20000, true);
}
void BM_LoopPtraceMemory(benchmark::State& state) {
  LoopBenchmark(state, Mode::kPtrace, "TP=.probe_target, REGS=(RDI), MEM32=(.sink,DIRECT,8)",
                20000);
}

BENCHMARK(BM_LoopUntraced)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopBpfRegs)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopBpfReturn)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopBpfReturnAtTheRet)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopBpfStackMemory)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceEntry)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceEmulatedStore)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceEmulatedAlu)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceSingleStep)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceReturn)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceReturnArmed)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoopPtraceMemory)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

// Record assembly alone (REGS, a MEM32 and an ASCIIZ32 from this process's memory).
void BM_BuildRecord(benchmark::State& state) {
  static char text[] = "CONFIG.SYS";
  static uint64_t value = 0x1234;
  CompiledTracepoint tracepoint;
  CompiledData regs;
  regs.kind = tsf::DataKind::kRegs;
  regs.registers = {*LookupRegister("EAX"), *LookupRegister("RDI")};
  CompiledData mem;
  mem.kind = tsf::DataKind::kMem32;
  mem.address.base_address = reinterpret_cast<uint64_t>(&value);
  mem.length = 8;
  CompiledData str;
  str.kind = tsf::DataKind::kAsciiz32;
  str.address.base_address = reinterpret_cast<uint64_t>(text);
  str.length = 64;
  tracepoint.data = {regs, mem, str};
  ProcessMemory memory(getpid());
  RegisterFile registers;
  std::vector<uint8_t> out;
  for (auto _ : state) {
    BuiltRecord built = BuildRecord(tracepoint, registers, memory, out);
    benchmark::DoNotOptimize(built);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_BuildRecord);

}  // namespace
}  // namespace rastrace::dyntrace

BENCHMARK_MAIN();
