// The timestamp source of hooks: the invariant TSC where the CPU has one (raw ticks, converted by
// the 00A/25C event), otherwise CLOCK_MONOTONIC in nanoseconds.
#pragma once

#include <time.h>
#include <x86intrin.h>

#include <chrono>
#include <cstdint>

#include "event/timebase.h"
#include "recorder/options.h"

namespace rastrace::recorder {

// Chosen when a session starts, before any channel is turned on; read on every timestamped hook.
extern bool g_clock_is_tsc;

inline uint64_t MonotonicNanoseconds() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

inline uint64_t RealtimeNanoseconds() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

inline uint64_t Now() {
  if (g_clock_is_tsc) [[likely]]
    return __rdtsc();
  return MonotonicNanoseconds();
}

// CPUID says the TSC runs at a constant rate in every power state (leaf 0x80000007, EDX bit 8).
bool HasInvariantTsc();

// CPUID says the CPU has PREFETCHW (leaf 0x80000001, ECX bit 8), which the hooks' fast path uses.
bool HasPrefetchW();

// Sets g_clock_is_tsc for `choice` (kTsc falls back to the monotonic clock without an invariant
// TSC).
void SelectClock(ClockChoice choice);

// The conversion to write as 00A/25C for the selected clock: for the TSC, m/d measured against
// CLOCK_MONOTONIC over `span` (flag 2); for the monotonic clock 1/1 (flag 0).
event::TimeConversion CalibrateClock(std::chrono::microseconds span);

}  // namespace rastrace::recorder
