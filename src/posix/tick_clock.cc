#include "posix/tick_clock.h"

#include <cstdio>
#include <cstring>
#include <mutex>

namespace rastrace::posix {
namespace {

bool CpuHasInvariantTsc() {
#if defined(__x86_64__) || defined(__i386__)
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return false;
  char line[4096];
  bool constant = false;
  bool nonstop = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    constant = std::strstr(line, " constant_tsc") != nullptr;
    nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(f);
  return constant && nonstop;
#else
  return false;
#endif
}

// One (ticks, realtime) pair taken as close together as this machine allows.
void SamplePair(uint64_t& ticks, uint64_t& ns) {
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    uint64_t before = NowTicks();
    uint64_t now = RealtimeNs();
    uint64_t after = NowTicks();
    if (after - before < best_gap) {
      best_gap = after - before;
      ticks = before + (after - before) / 2;
      ns = now;
    }
  }
}

struct Calibrator {
  std::once_flag once;
  double ns_per_tick = 1.0;
};
Calibrator g_calibrator;

}  // namespace

bool g_use_tsc = CpuHasInvariantTsc();

TickCalibration CurrentCalibration() {
  TickCalibration c{};
  c.uses_tsc = g_use_tsc ? 1 : 0;
  if (!g_use_tsc) {
    c.ns_per_tick = 1.0;
    return c;  // ticks are realtime ns: base 0/0
  }
  std::call_once(g_calibrator.once, [] {
    // 10 ms against CLOCK_REALTIME: the rate is then good to a few parts per million.
    uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
    SamplePair(t0, n0);
    timespec pause{0, 10 * 1000 * 1000};
    nanosleep(&pause, nullptr);
    SamplePair(t1, n1);
    if (t1 > t0 && n1 > n0) {
      g_calibrator.ns_per_tick = static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0);
    }
  });
  uint64_t ticks = 0, ns = 0;
  SamplePair(ticks, ns);
  c.base_ticks = ticks;
  c.base_ns = static_cast<int64_t>(ns);
  c.ns_per_tick = g_calibrator.ns_per_tick;
  return c;
}

uint64_t TicksToRealtimeNs(const TickCalibration& c, uint64_t ticks) {
  if (!c.uses_tsc) return ticks;
  double delta = static_cast<double>(static_cast<int64_t>(ticks - c.base_ticks)) * c.ns_per_tick;
  int64_t ns = c.base_ns + static_cast<int64_t>(delta);
  return ns < 0 ? 0 : static_cast<uint64_t>(ns);
}

timespec NsToTimespec(uint64_t ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1000000000ULL);
  ts.tv_nsec = static_cast<long>(ns % 1000000000ULL);
  return ts;
}

}  // namespace rastrace::posix
