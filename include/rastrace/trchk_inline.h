/* rastrace: the TRCHKLn(T) fast path, inline in the caller. Included by <rastrace/trchk.h>
 * after its declarations.
 *
 * A hook whose event fits in its thread's ring stores the event's words itself and publishes
 * them; only a hook that cannot (no ring yet, another CPU than the ring's, a ring that looks
 * full or wraps, filters on, a clock that is not the TSC) calls into the library, which then does
 * everything (docs/recorder.md, "The inline fast path"). That saves the call into the shared
 * library (its PLT jump, the call and return, the argument moves): 1.5-2 ns of a hook that costs
 * rdtsc + 4-5 ns (docs/performance.md).
 *
 * The price is that the layout below is compiled into every program: it is version 1 of it, named
 * in the thread-local pointer's name. A library with another layout exports a new name (and keeps
 * this one pointing at a closed line, so that programs built against this header take the
 * library's path for every hook): old programs keep working, never write a layout they do not
 * know.
 *
 * Define RASTRACE_OUT_OF_LINE_HOOKS before including <rastrace/trchk.h> to call the library for
 * every hook; other compilers and CPUs than GCC or Clang on x86-64 always do.
 */
#ifndef RASTRACE_TRCHK_INLINE_H_
#define RASTRACE_TRCHK_INLINE_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(RASTRACE_OUT_OF_LINE_HOOKS)
#define RASTRACE_INLINE_HOOKS 1

/* C++: inline (one definition for every translation unit, as trace.hpp's inline templates need);
 * C: static inline (no external definition needed). */
#ifdef __cplusplus
#define RASTRACE_INLINE_ inline __attribute__((__always_inline__))
extern "C" {
#else
#define RASTRACE_INLINE_ static __inline__ __attribute__((__always_inline__))
#endif

/* The line of the thread's ring that the fast path reads and writes (written by this thread
 * only). */
struct rastrace_producer_v1 {
  uint64_t head;  /* the next word to write */
  uint64_t limit; /* an event of n words fits, unbroken, when head + n <= limit */
  uint64_t* data; /* the ring's words; word w at data[w & mask] */
  uint64_t mask;
  uint64_t thread_id;  /* the event's thread word */
  uint64_t* published; /* every word before it is an event the writer may read (release store) */
  uint64_t events;     /* events published */
  uint32_t cpu;        /* the fast path runs only on this CPU (never matches while it may not) */
};

/* The thread's line; while it has no ring, a closed line (cpu matches no CPU), so that the fast
 * path needs no test for it. Initial-exec: one %fs-relative load. */
extern __thread struct rastrace_producer_v1* rastrace_thread_producer_v1
    __attribute__((__tls_model__("initial-exec")));
/* Where glibc's rseq area lies from the thread pointer (its cpu_id at +4). */
extern ptrdiff_t rastrace_rseq_offset;

/* The library's slow path for a hook the fast path did not take (it does all the fast path
 * leaves out: registering the thread, filters, the CPU marker, a full or wrapping ring). */
void rastrace_hook0_slow(uint32_t hkwd);
void rastrace_hook1_slow(uint32_t hkwd, uint64_t d1);
void rastrace_hook2_slow(uint32_t hkwd, uint64_t d1, uint64_t d2);
void rastrace_hook3_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3);
void rastrace_hook4_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4);
void rastrace_hook5_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                         uint64_t d5);
void rastrace_hook0t_slow(uint32_t hkwd);
void rastrace_hook1t_slow(uint32_t hkwd, uint64_t d1);
void rastrace_hook2t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2);
void rastrace_hook3t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3);
void rastrace_hook4t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4);
void rastrace_hook5t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                          uint64_t d5);

/* Stores a TRCHKLn(T) event of n data words (t: with a timestamp) and returns 1, or returns 0
 * with nothing done. n and t are constants where it is inlined. */
RASTRACE_INLINE_ int rastrace_fast_hook_(uint32_t hkwd, unsigned n, unsigned t, uint64_t d1,
                                         uint64_t d2, uint64_t d3, uint64_t d4, uint64_t d5) {
  struct rastrace_producer_v1* const p = rastrace_thread_producer_v1;
  const uint64_t head = p->head;
  const uint64_t end = head + 2 + n + t;
  /* The hookword's upper half: flags (0x8000: timestamp) and the data length in bytes. */
  const uint32_t upper = (t ? 0x80000000u : 0u) | (n * 8u);
  uint64_t* e;
  uint32_t cpu;
  __asm__ __volatile__("movl %%fs:4(%1), %0" : "=r"(cpu) : "r"(rastrace_rseq_offset));
  if (__builtin_expect(cpu != p->cpu || end > p->limit, 0)) return 0;
  e = p->data + (head & p->mask);
  /* The line 1 KiB ahead, asked for writing (a prefetch never faults). */
  __asm__ __volatile__("prefetchw %0" : : "m"(*((const char*)e + 1024)));
  __builtin_memcpy(e, &hkwd, 4);
  __builtin_memcpy((char*)e + 4, &upper, 4);
  if (n >= 1) e[1] = d1;
  if (n >= 2) e[2] = d2;
  if (n >= 3) e[3] = d3;
  if (n >= 4) e[4] = d4;
  if (n >= 5) e[5] = d5;
  e[1 + n] = p->thread_id;
  if (t) e[2 + n] = __builtin_ia32_rdtsc();
  p->head = end;
  p->events++;
  __atomic_store_n(p->published, end, __ATOMIC_RELEASE);
  return 1;
}

/* TRCHKLn(T) through the fast path, or the library when it cannot take the event. */
RASTRACE_INLINE_ void rastrace_inline_hook0(uint32_t hkwd) {
  if (!rastrace_fast_hook_(hkwd, 0, 0, 0, 0, 0, 0, 0)) rastrace_hook0_slow(hkwd);
}
RASTRACE_INLINE_ void rastrace_inline_hook1(uint32_t hkwd, uint64_t d1) {
  if (!rastrace_fast_hook_(hkwd, 1, 0, d1, 0, 0, 0, 0)) rastrace_hook1_slow(hkwd, d1);
}
RASTRACE_INLINE_ void rastrace_inline_hook2(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  if (!rastrace_fast_hook_(hkwd, 2, 0, d1, d2, 0, 0, 0)) rastrace_hook2_slow(hkwd, d1, d2);
}
RASTRACE_INLINE_ void rastrace_inline_hook3(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  if (!rastrace_fast_hook_(hkwd, 3, 0, d1, d2, d3, 0, 0)) rastrace_hook3_slow(hkwd, d1, d2, d3);
}
RASTRACE_INLINE_ void rastrace_inline_hook4(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3,
                                            uint64_t d4) {
  if (!rastrace_fast_hook_(hkwd, 4, 0, d1, d2, d3, d4, 0))
    rastrace_hook4_slow(hkwd, d1, d2, d3, d4);
}
RASTRACE_INLINE_ void rastrace_inline_hook5(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3,
                                            uint64_t d4, uint64_t d5) {
  if (!rastrace_fast_hook_(hkwd, 5, 0, d1, d2, d3, d4, d5))
    rastrace_hook5_slow(hkwd, d1, d2, d3, d4, d5);
}
RASTRACE_INLINE_ void rastrace_inline_hook0t(uint32_t hkwd) {
  if (!rastrace_fast_hook_(hkwd, 0, 1, 0, 0, 0, 0, 0)) rastrace_hook0t_slow(hkwd);
}
RASTRACE_INLINE_ void rastrace_inline_hook1t(uint32_t hkwd, uint64_t d1) {
  if (!rastrace_fast_hook_(hkwd, 1, 1, d1, 0, 0, 0, 0)) rastrace_hook1t_slow(hkwd, d1);
}
RASTRACE_INLINE_ void rastrace_inline_hook2t(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  if (!rastrace_fast_hook_(hkwd, 2, 1, d1, d2, 0, 0, 0)) rastrace_hook2t_slow(hkwd, d1, d2);
}
RASTRACE_INLINE_ void rastrace_inline_hook3t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  if (!rastrace_fast_hook_(hkwd, 3, 1, d1, d2, d3, 0, 0)) rastrace_hook3t_slow(hkwd, d1, d2, d3);
}
RASTRACE_INLINE_ void rastrace_inline_hook4t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3,
                                             uint64_t d4) {
  if (!rastrace_fast_hook_(hkwd, 4, 1, d1, d2, d3, d4, 0))
    rastrace_hook4t_slow(hkwd, d1, d2, d3, d4);
}
RASTRACE_INLINE_ void rastrace_inline_hook5t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3,
                                             uint64_t d4, uint64_t d5) {
  if (!rastrace_fast_hook_(hkwd, 5, 1, d1, d2, d3, d4, d5))
    rastrace_hook5t_slow(hkwd, d1, d2, d3, d4, d5);
}

#ifdef __cplusplus
}
#endif

#endif /* x86-64, GCC or Clang */
#endif /* RASTRACE_TRCHK_INLINE_H_ */
