#include "recorder/clock.h"

#include <cpuid.h>

#include <numeric>

namespace rastrace::recorder {

bool g_clock_is_tsc = false;

bool HasInvariantTsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007) return false;
  if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx)) return false;
  return (edx >> 8) & 1;
}

bool HasPrefetchW() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx >> 8) & 1;
}

void SelectClock(ClockChoice choice) {
  g_clock_is_tsc = choice != ClockChoice::kMonotonic && HasInvariantTsc();
}

event::TimeConversion CalibrateClock(std::chrono::microseconds span) {
  if (!g_clock_is_tsc) return {1, 1, 0};
  // Pair each clock reading with the TSC read closest to it: the tightest of a few tries bounds
  // the error of each end to a few tens of nanoseconds.
  auto sample = [](uint64_t* ns, uint64_t* ticks) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
      const uint64_t before = __rdtsc();
      const uint64_t clock = MonotonicNanoseconds();
      const uint64_t after = __rdtsc();
      if (after - before < best) {
        best = after - before;
        *ns = clock;
        *ticks = before + (after - before) / 2;
      }
    }
  };
  uint64_t ns0 = 0, ticks0 = 0, ns1 = 0, ticks1 = 0;
  sample(&ns0, &ticks0);
  const uint64_t until = ns0 + static_cast<uint64_t>(span.count()) * 1000;
  while (MonotonicNanoseconds() < until) {
    timespec pause{0, 200000};
    nanosleep(&pause, nullptr);
  }
  sample(&ns1, &ticks1);
  uint64_t m = ns1 - ns0;
  uint64_t d = ticks1 - ticks0;
  if (m == 0 || d == 0) return {1, 1, 0};
  const uint64_t g = std::gcd(m, d);
  return {m / g, d / g, 2};
}

}  // namespace rastrace::recorder
