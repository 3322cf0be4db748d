// Cost of a hook as a program sees it: ns/event for TRCHKL0(T), TRCHKL5(T) and TRCGEN(T) of 64
// bytes on 1 and 2 threads, the dormant hook (channel off), a bare rdtsc loop for reference, and
// the distribution (median, p99, p99.9) of single TRCHKL5T calls.
//
// The rings are consumed by the producing thread itself, one store every 1000 events, so what is
// measured is the producer path alone (the writer's cost is in drain_benchmark.cc).
#include <benchmark/benchmark.h>
#include <rastrace/trchk.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "recorder/clock.h"
#include "recorder/recorder.h"

namespace rastrace::recorder {
namespace {

constexpr int kEventsPerIteration = 1000;
const char kBuffer64[64] = "sixty-four bytes of generic trace data for the TRCGEN benchmark";

double g_ns_per_tick = 1.0;

// Recording in circular mode (the writer does not drain while it runs), into a throwaway log.
class Session {
 public:
  Session() {
    RecorderOptions options;
    const char* dir = std::getenv("TMPDIR");
    options.log_path = std::string(dir ? dir : "/tmp") + "/rastrace-hooks-benchmark.log";
    options.mode = buffer::Mode::kCircular;
    // RASTRACE_BENCH_BUFFER=256K: rings that stay in the L2 cache, to tell the hook's own cost
    // from the memory bandwidth that streaming events into 4 MiB rings takes.
    if (const char* size = std::getenv("RASTRACE_BENCH_BUFFER")) {
      auto bytes = ParseSize(size, "RASTRACE_BENCH_BUFFER");
      if (!bytes) {
        std::fprintf(stderr, "%s\n", bytes.error().message.c_str());
        std::exit(1);
      }
      options.buffer_bytes = *bytes;
    }
    if (auto started = Recorder::Get().Start(options); !started) {
      std::fprintf(stderr, "%s\n", started.error().message.c_str());
      std::exit(1);
    }
  }
  ~Session() {
    (void)Recorder::Get().Stop();
    std::remove(Recorder::Get().log_path().c_str());
  }
};

// The consumer's part, done by the producer: hand the whole ring back.
inline void Consume(buffer::RingBuffer* ring) {
  ring->Release(ring->head());
}

template <class Hook>
void RunHooks(benchmark::State& state, Hook hook) {
  buffer::RingBuffer* ring = CurrentThreadRing();  // registers this thread, off the clock
  if (ring == nullptr) {
    state.SkipWithError("not recording");
    return;
  }
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) hook(i);
    Consume(ring);
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  if (ring->lost() != 0) state.SkipWithError("events were lost: the measurement is not valid");
}

void BM_BareRdtsc(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) benchmark::DoNotOptimize(__rdtsc());
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}

void BM_Dormant(benchmark::State& state) {
  // Every channel off, as in a program that is not being traced.
  const uint32_t channels = __atomic_exchange_n(&rastrace_channel_mask, 0, __ATOMIC_SEQ_CST);
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) {
      TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
      benchmark::ClobberMemory();
    }
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  __atomic_store_n(&rastrace_channel_mask, channels, __ATOMIC_SEQ_CST);
}

void BM_TRCHKL0(benchmark::State& state) {
  RunHooks(state, [](int) { TRCHKL0(0x01000000); });
}
void BM_TRCHKL0T(benchmark::State& state) {
  RunHooks(state, [](int) { TRCHKL0T(0x01000000); });
}
void BM_TRCHKL5(benchmark::State& state) {
  RunHooks(state, [](int i) { TRCHKL5(0x01200000, i, 2, 3, 4, 5); });
}
void BM_TRCHKL5T(benchmark::State& state) {
  RunHooks(state, [](int i) { TRCHKL5T(0x01200000, i, 2, 3, 4, 5); });
}
void BM_TRCGEN64(benchmark::State& state) {
  RunHooks(state, [](int i) { TRCGEN(0, 0x01400000, i, 64, kBuffer64); });
}
void BM_TRCGENT64(benchmark::State& state) {
  RunHooks(state, [](int i) { TRCGENT(0, 0x01400000, i, 64, kBuffer64); });
}

// Controls for the two-thread scaling figures, with no tracing at all: what this machine gives a
// second thread for the same work. BareStores writes the seven words of a TRCHKL5 event into a
// per-thread buffer of the ring's size (the hook without its bookkeeping); AluThroughput keeps
// the integer units busy with no memory traffic. If these scale below 2x as well, the limit is
// the machine (e.g. two vCPUs on one physical core), not the hook.
[[gnu::noinline]] void StoreSevenWords(uint64_t* data, uint64_t mask, uint64_t at, uint64_t word) {
  for (uint64_t k = 0; k < 7; ++k) data[(at + k) & mask] = word + k;
}

void BM_BareStores(benchmark::State& state) {
  size_t bytes = size_t{4} << 20;
  if (const char* size = std::getenv("RASTRACE_BENCH_BUFFER")) {
    if (auto parsed = ParseSize(size, "RASTRACE_BENCH_BUFFER")) bytes = *parsed;
  }
  std::vector<uint64_t> buffer(bytes / sizeof(uint64_t));
  const uint64_t mask = buffer.size() - 1;
  uint64_t at = 0;
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i, at += 7)
      StoreSevenWords(buffer.data(), mask, at, i);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}

// Eight independent adds per item, so the integer units, not a dependency chain, set the pace.
void BM_AluThroughput(benchmark::State& state) {
  uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
  for (auto _ : state) {
    for (uint64_t i = 0; i < kEventsPerIteration; ++i) {
      asm volatile(
          "add %[i], %0\n\tadd %[i], %1\n\tadd %[i], %2\n\tadd %[i], %3\n\t"
          "add %[i], %4\n\tadd %[i], %5\n\tadd %[i], %6\n\tadd %[i], %7"
          : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h)
          : [i] "r"(i));
    }
  }
  benchmark::DoNotOptimize(a + b + c + d + e + f + g + h);
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}

inline uint64_t FencedTicks() {
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

double Percentile(std::vector<uint64_t>& samples, double p) {
  const size_t at = std::min(samples.size() - 1, static_cast<size_t>(p * samples.size()));
  std::nth_element(samples.begin(), samples.begin() + static_cast<ptrdiff_t>(at), samples.end());
  return static_cast<double>(samples[at]);
}

// One TRCHKL5T between two fenced TSC reads; the same pair around nothing is subtracted.
void BM_TRCHKL5T_Latency(benchmark::State& state) {
  buffer::RingBuffer* ring = CurrentThreadRing();
  std::vector<uint64_t> hook_ticks, empty_ticks;
  hook_ticks.reserve(1 << 22);
  empty_ticks.reserve(1 << 22);
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) {
      const uint64_t t0 = FencedTicks();
      TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
      const uint64_t t1 = FencedTicks();
      const uint64_t t2 = FencedTicks();
      if (hook_ticks.size() < hook_ticks.capacity()) {
        hook_ticks.push_back(t1 - t0);
        empty_ticks.push_back(t2 - t1);
      }
    }
    Consume(ring);
  }
  const double overhead = Percentile(empty_ticks, 0.5);
  auto ns = [&](double p) {
    return std::max(0.0, (Percentile(hook_ticks, p) - overhead) * g_ns_per_tick);
  };
  state.counters["p50_ns"] = ns(0.5);
  state.counters["p99_ns"] = ns(0.99);
  state.counters["p99.9_ns"] = ns(0.999);
  state.counters["fence_pair_ns"] = overhead * g_ns_per_tick;
}

BENCHMARK(BM_BareRdtsc);
BENCHMARK(BM_Dormant);
BENCHMARK(BM_TRCHKL0)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCHKL0T)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCHKL5)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCHKL5T)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCGEN64)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCGENT64)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_TRCHKL5T_Latency);
BENCHMARK(BM_BareStores)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_AluThroughput)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace rastrace::recorder

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  {
    rastrace::recorder::Session session;
    const auto conversion = rastrace::recorder::CalibrateClock(std::chrono::milliseconds(50));
    rastrace::recorder::g_ns_per_tick =
        static_cast<double>(conversion.multiplier) / static_cast<double>(conversion.divisor);
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
