// Raw cost of the ring's producer path, without clocks or the recorder around it.
#include <benchmark/benchmark.h>

#include "buffer/ring_buffer.h"

namespace rastrace::buffer {
namespace {

void BM_RingWriteFiveWords(benchmark::State& state) {
  RingBuffer ring(1 << 20, Mode::kCircular, 1);
  const uint64_t hookword = MakeHookword(event::kFlagTimestamp, 0x28, 0x01200000);
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t at = 0;
    if (ring.Reserve(8, &at)) {
      ring.Put(at, hookword);
      for (uint64_t w = 1; w <= 5; ++w) ring.Put(at + w, w);
      ring.Put(at + 6, 1);
      ring.Put(at + 7, ++i);
      ring.Publish(at + 8);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_RingWriteFiveWords);

}  // namespace
}  // namespace rastrace::buffer

BENCHMARK_MAIN();
