// The program the crash test kills: two threads record numbered hooks as fast as they can (a mix
// of TRCHKL2T and TRCGENT events of varying size) and, after each hook returns, store its number
// in a shared counter file, so the test knows which events were committed when SIGKILL came.
//
// Usage: reliability_crash_writer COUNTERS_FILE [_exit]. Tracing starts from RASTRACE_LOG and
// RASTRACE_SHM_PATH (set by the test, or by `rastrace record`) when the program loads. With
// `_exit`, the program ends with _exit(0) (no atexit, no flush of the log) once thread 0 has
// committed kExitAfter hooks; with `count=N` each thread records N hooks and the program exits
// normally (the full-disk test).
#include <fcntl.h>
#include <rastrace/trchk.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "tests/reliability/crash_protocol.h"

namespace {

bool g_exit_early = false;
uint64_t g_count = 0;  // hooks per thread; 0: no end

void Produce(unsigned index, std::atomic<uint64_t>* committed) {
  std::array<uint8_t, 64> buffer{};
  for (uint64_t seq = 1; g_count == 0 || seq <= g_count; ++seq) {
    const uint32_t hkwd = rastrace::reliability::HookWord(index);
    if (seq % 5 == 0) {
      buffer[0] = static_cast<uint8_t>(seq);
      TRCGENT(0, hkwd, seq, seq % buffer.size(), buffer.data());
    } else {
      TRCHKL2T(hkwd, seq, index);
    }
    committed->store(seq, std::memory_order_release);
    if (g_exit_early && index == 0 && seq == rastrace::reliability::kExitAfter) _exit(0);
    // A short pause now and then keeps the rings from overflowing, so most runs lose nothing
    // (the test accepts losses only when 006 events count them).
    if (seq % 256 == 0) std::this_thread::yield();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool counted = argc == 3 && std::strncmp(argv[2], "count=", 6) == 0;
  if (argc != 2 && !(argc == 3 && (std::strcmp(argv[2], "_exit") == 0 || counted))) {
    std::fprintf(stderr, "usage: %s COUNTERS_FILE [_exit | count=N]\n", argv[0]);
    return 2;
  }
  g_exit_early = argc == 3 && !counted;
  if (counted) g_count = std::strtoull(argv[2] + 6, nullptr, 10);
  const int fd = open(argv[1], O_RDWR | O_CLOEXEC);
  if (fd < 0) return 1;
  void* map = mmap(nullptr, sizeof(rastrace::reliability::Counters), PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return 1;
  auto* counters = static_cast<rastrace::reliability::Counters*>(map);
  counters->pid.store(static_cast<uint64_t>(getpid()), std::memory_order_relaxed);
  counters->started.store(1, std::memory_order_release);
  std::thread second(Produce, 1, &counters->committed[1]);
  Produce(0, &counters->committed[0]);
  second.join();
  return 0;
}
