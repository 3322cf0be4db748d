// Event timestamps: the TSC when it is constant and non-stop (a few ns, against ~20 ns for
// clock_gettime in a VM), converted to CLOCK_REALTIME when events are read; otherwise
// CLOCK_REALTIME nanoseconds directly.
#pragma once

#include <time.h>

#include <cstdint>

#include "posix/layout.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace rastrace::posix {

// Decided once per process, the same way in every process of the machine.
extern bool g_use_tsc;

inline uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t NowTicks() {
#if defined(__x86_64__) || defined(__i386__)
  if (g_use_tsc) return __rdtsc();
#endif
  return RealtimeNs();
}

// The calibration streams created now should carry (measures the TSC once per process).
TickCalibration CurrentCalibration();

uint64_t TicksToRealtimeNs(const TickCalibration& calibration, uint64_t ticks);
timespec NsToTimespec(uint64_t ns);

}  // namespace rastrace::posix
