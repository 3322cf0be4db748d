// What the crash writer and the crash test share: the counter file's layout and the hook ids.
#pragma once

#include <atomic>
#include <cstdint>

namespace rastrace::reliability {

// Mapped MAP_SHARED by both processes; the writer's stores survive its SIGKILL.
struct Counters {
  std::atomic<uint64_t> started{0};
  std::atomic<uint64_t> committed[2]{};  // per thread: the last hook number that returned
  std::atomic<uint64_t> pid{0};           // the writer's, for a test that started it through
                                          // `rastrace record`
};

// The writer's second argument: end with _exit(0) once thread 0 has committed this many hooks.
constexpr uint64_t kExitAfter = 20000;

// Thread `index` records hook 0x0E1n (template E1n), subhook 0.
constexpr uint32_t HookWord(unsigned index) {
  return (0x0E10u + index) << 16;
}

}  // namespace rastrace::reliability
