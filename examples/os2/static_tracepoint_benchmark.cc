// Cost of the functions `trcust --header` generates (os2bench.tsf): recording registers only,
// one 16-byte memory statement (read with process_vm_readv, never faulting), and an unmapped
// pointer (status 2). Figures: docs/performance.md, section "OS/2: trcust, STDA, tracefmt".
#include <benchmark/benchmark.h>

#include <cstdint>

#include "os2bench_trace.h"

namespace {

void BM_StaticRegs(benchmark::State& state) {
  rastrace_os2_configure(1, 0x10000);
  for (auto _ : state) benchmark::DoNotOptimize(trace_os2_bench_0001(1, 2));
}
BENCHMARK(BM_StaticRegs);

void BM_StaticMem16(benchmark::State& state) {
  rastrace_os2_configure(1, 0x10000);
  uint8_t data[16] = {1, 2, 3};
  for (auto _ : state) benchmark::DoNotOptimize(trace_os2_bench_0002(data));
}
BENCHMARK(BM_StaticMem16);

void BM_StaticUnmapped(benchmark::State& state) {
  rastrace_os2_configure(1, 0x10000);
  const void* unmapped = reinterpret_cast<const void*>(uintptr_t{0x1000});
  for (auto _ : state) benchmark::DoNotOptimize(trace_os2_bench_0002(unmapped));
}
BENCHMARK(BM_StaticUnmapped);

}  // namespace

BENCHMARK_MAIN();
