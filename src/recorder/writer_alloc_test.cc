// The writer thread's steady state does not allocate (recorder/drain.h says why: a fork must
// never catch it inside the allocator). This binary replaces the global operator new to count
// every allocation of every thread, so it holds only this test.
#include <gtest/gtest.h>
#include <rastrace/trchk.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "event/temp_dir.h"
#include "recorder/recorder.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// Not inlined: gcc would then see free() of what `new` returned and warn of a mismatch.
[[gnu::noinline]] void* operator new(std::size_t bytes) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace rastrace::recorder {
namespace {

// Hooks `events` events in bursts small enough for the default ring, sleeping between them so
// that the writer drains many rounds. Neither the hooks nor nanosleep allocate.
void HookInBursts(uint64_t events) {
  constexpr uint64_t kBurst = 20000;
  for (uint64_t i = 0; i < events; i += kBurst) {
    for (uint64_t j = 0; j < kBurst; ++j) TRCHKL3T(0x0E000000, i, j, 7);
    timespec pause{0, 2'000'000};
    nanosleep(&pause, nullptr);
  }
}

TEST(WriterAllocationTest, DrainRoundsAfterTheFirstDoNotAllocate) {
  event::testing::TempDir dir;
  RecorderOptions options;
  options.log_path = dir.File("log");
  ASSERT_TRUE(Recorder::Get().Start(options));
  HookInBursts(200'000);  // first rounds: the writer's vectors and the main thread's ring
  const uint64_t before = g_allocations.load();
  // 2.4 M events of 40 bytes: about 96 MB, so that the log writer cycles its chunks many times.
  HookInBursts(2'400'000);
  const uint64_t after = g_allocations.load();
  auto stopped = Recorder::Get().Stop();
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_GT(stopped->events_written, 2'000'000u);
  EXPECT_EQ(after - before, 0u) << "allocations while the writer drained";
}

}  // namespace
}  // namespace rastrace::recorder
