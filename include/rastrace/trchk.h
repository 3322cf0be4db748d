/* rastrace hook API (C): the AIX trace hook macros and trace control functions.
 *
 * A hook word is 0xHHHHSSSS: hook id HHHH (a 12-bit AIX id hhh is hhh0) and subhook SSSS.
 * TRCHKLn records n data words on channel 0; the T forms add a timestamp. TRCGEN(T) records one
 * data word and `len` bytes of `buf` on channel `ch` (0-7).
 *
 * A hook on a channel that is off costs one load and one predictable branch: the macros test the
 * channel bit inline. A hook on a channel that is on stores its event inline when it fits in the
 * thread's ring, and calls into the library only when it does not (<rastrace/trchk_inline.h>).
 *
 * Control: trcstart(args) starts recording in this process with `rastrace record` options
 * ("-o LOG -l -T 4M ..."; NULL uses the RASTRACE_* environment variables); trcon/trcoff turn one
 * channel on or off; trcstop(0) ends recording and completes the log (trcstop(ch) for ch 1-7
 * only turns that channel off). See docs/recorder.md.
 */
#ifndef RASTRACE_TRCHK_H_
#define RASTRACE_TRCHK_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RASTRACE_CHANNELS 8

/* Bit n set: channel n is being recorded. Written only by the library. */
extern uint32_t rastrace_channel_mask;

#if defined(__GNUC__) || defined(__clang__)
#define RASTRACE_CHANNEL_ON(ch) \
  __builtin_expect((__atomic_load_n(&rastrace_channel_mask, __ATOMIC_RELAXED) >> (ch)) & 1u, 0)
#else
#define RASTRACE_CHANNEL_ON(ch) ((rastrace_channel_mask >> (ch)) & 1u)
#endif

/* Out-of-line recording functions: call them through the macros below. */
void rastrace_hook0(uint32_t hkwd);
void rastrace_hook1(uint32_t hkwd, uint64_t d1);
void rastrace_hook2(uint32_t hkwd, uint64_t d1, uint64_t d2);
void rastrace_hook3(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3);
void rastrace_hook4(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4);
void rastrace_hook5(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4, uint64_t d5);
void rastrace_hook0t(uint32_t hkwd);
void rastrace_hook1t(uint32_t hkwd, uint64_t d1);
void rastrace_hook2t(uint32_t hkwd, uint64_t d1, uint64_t d2);
void rastrace_hook3t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3);
void rastrace_hook4t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4);
void rastrace_hook5t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                     uint64_t d5);
void rastrace_gen(uint32_t hkwd, uint64_t d1, size_t len, const void* buf);
void rastrace_gent(uint32_t hkwd, uint64_t d1, size_t len, const void* buf);

#ifdef __cplusplus
}
#endif

/* The TRCHKLn(T) fast path inline (x86-64 with GCC or Clang, unless RASTRACE_OUT_OF_LINE_HOOKS
 * is defined): RASTRACE_CALL_HOOK_(hook5t, ...) is the call a macro makes. */
#include <rastrace/trchk_inline.h>
#ifdef RASTRACE_INLINE_HOOKS
#define RASTRACE_CALL_HOOK_(name, ...) rastrace_inline_##name(__VA_ARGS__)
#else
#define RASTRACE_CALL_HOOK_(name, ...) rastrace_##name(__VA_ARGS__)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Trace control (AIX names). trcstart returns the channel it turned on, or -1 (the reason is
 * printed on standard error); the others return 0, or -1 for a channel outside 0-7 or when no
 * recording is running. */
int trcstart(const char* args);
int trcon(int channel);
int trcoff(int channel);
int trcstop(int channel);

#define RASTRACE_W_(d) ((uint64_t)(d))

#define TRCHKL0(hkwd)                                                         \
  do {                                                                        \
    if (RASTRACE_CHANNEL_ON(0)) RASTRACE_CALL_HOOK_(hook0, (uint32_t)(hkwd)); \
  } while (0)
#define TRCHKL1(hkwd, d1)                                                                      \
  do {                                                                                         \
    if (RASTRACE_CHANNEL_ON(0)) RASTRACE_CALL_HOOK_(hook1, (uint32_t)(hkwd), RASTRACE_W_(d1)); \
  } while (0)
#define TRCHKL2(hkwd, d1, d2)                                                         \
  do {                                                                                \
    if (RASTRACE_CHANNEL_ON(0))                                                       \
      RASTRACE_CALL_HOOK_(hook2, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2)); \
  } while (0)
#define TRCHKL3(hkwd, d1, d2, d3)                                                    \
  do {                                                                               \
    if (RASTRACE_CHANNEL_ON(0))                                                      \
      RASTRACE_CALL_HOOK_(hook3, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3));                                          \
  } while (0)
#define TRCHKL4(hkwd, d1, d2, d3, d4)                                                \
  do {                                                                               \
    if (RASTRACE_CHANNEL_ON(0))                                                      \
      RASTRACE_CALL_HOOK_(hook4, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3), RASTRACE_W_(d4));                         \
  } while (0)
#define TRCHKL5(hkwd, d1, d2, d3, d4, d5)                                            \
  do {                                                                               \
    if (RASTRACE_CHANNEL_ON(0))                                                      \
      RASTRACE_CALL_HOOK_(hook5, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3), RASTRACE_W_(d4), RASTRACE_W_(d5));        \
  } while (0)

#define TRCHKL0T(hkwd)                                                         \
  do {                                                                         \
    if (RASTRACE_CHANNEL_ON(0)) RASTRACE_CALL_HOOK_(hook0t, (uint32_t)(hkwd)); \
  } while (0)
#define TRCHKL1T(hkwd, d1)                                                                      \
  do {                                                                                          \
    if (RASTRACE_CHANNEL_ON(0)) RASTRACE_CALL_HOOK_(hook1t, (uint32_t)(hkwd), RASTRACE_W_(d1)); \
  } while (0)
#define TRCHKL2T(hkwd, d1, d2)                                                         \
  do {                                                                                 \
    if (RASTRACE_CHANNEL_ON(0))                                                        \
      RASTRACE_CALL_HOOK_(hook2t, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2)); \
  } while (0)
#define TRCHKL3T(hkwd, d1, d2, d3)                                                    \
  do {                                                                                \
    if (RASTRACE_CHANNEL_ON(0))                                                       \
      RASTRACE_CALL_HOOK_(hook3t, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3));                                           \
  } while (0)
#define TRCHKL4T(hkwd, d1, d2, d3, d4)                                                \
  do {                                                                                \
    if (RASTRACE_CHANNEL_ON(0))                                                       \
      RASTRACE_CALL_HOOK_(hook4t, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3), RASTRACE_W_(d4));                          \
  } while (0)
#define TRCHKL5T(hkwd, d1, d2, d3, d4, d5)                                            \
  do {                                                                                \
    if (RASTRACE_CHANNEL_ON(0))                                                       \
      RASTRACE_CALL_HOOK_(hook5t, (uint32_t)(hkwd), RASTRACE_W_(d1), RASTRACE_W_(d2), \
                          RASTRACE_W_(d3), RASTRACE_W_(d4), RASTRACE_W_(d5));         \
  } while (0)

/* The channel is evaluated once; a channel outside 0-7 records nothing. */
#define TRCGEN(ch, hkwd, d1, len, buf)                                         \
  do {                                                                         \
    unsigned rastrace_ch_ = (unsigned)(ch);                                    \
    if (rastrace_ch_ < RASTRACE_CHANNELS && RASTRACE_CHANNEL_ON(rastrace_ch_)) \
      rastrace_gen((uint32_t)(hkwd), RASTRACE_W_(d1), (size_t)(len), (buf));   \
  } while (0)
#define TRCGENT(ch, hkwd, d1, len, buf)                                        \
  do {                                                                         \
    unsigned rastrace_ch_ = (unsigned)(ch);                                    \
    if (rastrace_ch_ < RASTRACE_CHANNELS && RASTRACE_CHANNEL_ON(rastrace_ch_)) \
      rastrace_gent((uint32_t)(hkwd), RASTRACE_W_(d1), (size_t)(len), (buf));  \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* RASTRACE_TRCHK_H_ */
