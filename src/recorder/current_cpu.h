// The CPU the calling thread runs on, for the 00A/108 events that give reports their CPU column.
//
// glibc (2.35 and later) registers a restartable-sequences area for every thread, and the kernel
// rewrites its cpu_id field whenever the thread migrates. Reading it is one %fs-relative load:
// cheap enough for every hook, unlike sched_getcpu or rdtscp.
#pragma once

#include <sys/rseq.h>

#include <cstddef>
#include <cstdint>

namespace rastrace::recorder {

// A value at or above this is not a CPU: glibc did not register the area (disabled by
// GLIBC_TUNABLES, or the kernel refused), and cpu_id holds one of rseq's negative markers.
inline constexpr uint32_t kFirstInvalidCpu = 0xFFFFFFF0;

// glibc's __rseq_offset, copied into the library (hidden, so the hooks reach it with one
// RIP-relative load instead of a GOT load and then the value). Set before any hook runs.
[[gnu::visibility("hidden")]] extern ptrdiff_t g_rseq_offset;
// Sets g_rseq_offset and its exported copy for the programs' inline hooks (rastrace_rseq_offset,
// <rastrace/trchk_inline.h>). In hooks.cc.
void SetRseqOffset(ptrdiff_t offset);

[[gnu::always_inline]] inline uint32_t CurrentCpu() {
  uint32_t cpu;
  // volatile: the kernel changes the field behind the compiler's back.
  asm volatile("movl %%fs:4(%1), %0" : "=r"(cpu) : "r"(g_rseq_offset));
  return cpu;
}

}  // namespace rastrace::recorder
