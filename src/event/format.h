// Constants of the trace log format (docs/log-format.md, seed 002 parts A-C).
#pragma once

#include <cstdint>

namespace rastrace::event {

inline constexpr uint32_t kMagic64 = 0xEFDF1114;  // 64-bit events (what rastrace writes)
inline constexpr uint32_t kMagic32 = 0xEFDF1112;  // 32-bit events with 4-byte thread ids

// The layout of a log (its $TRACEENV) or of one event (its $HOOKENV).
enum class Layout : uint8_t { k32 = 32, k64 = 64 };

inline constexpr unsigned WordSize(Layout layout) {
  return layout == Layout::k64 ? 8 : 4;
}

// Flags of the 64-bit hookword (ffff in ffffllllhhhhssss).
inline constexpr uint16_t kFlagTimestamp = 0x8000;  // T
inline constexpr uint16_t kFlagGeneric = 0x4000;    // G
inline constexpr uint16_t kFlag32BitData = 0x2000;  // B

// Hook types of the 32-bit hookword (T in MMMTDDDD). The timestamped form is the plain one | 8.
inline constexpr uint8_t kType32Generic = 0x0;
inline constexpr uint8_t kType32HookOnly = 0x1;
inline constexpr uint8_t kType32OneWord = 0x2;
inline constexpr uint8_t kType32FiveWords = 0x6;
inline constexpr uint8_t kType32TimestampBit = 0x8;

inline constexpr unsigned kMaxDataWords = 5;

// 16-bit hook ids. A 12-bit AIX id hhh is the 16-bit id hhh0 (template id "hhh").
constexpr uint16_t HookIdFrom12(uint16_t id12) {
  return static_cast<uint16_t>(id12 << 4);
}
constexpr bool IsTwelveBitId(uint16_t id16) {
  return (id16 & 0xF) == 0;
}

// Reserved hooks, as 16-bit ids.
inline constexpr uint16_t kHookTraceOn = 0x0010;      // 001: data word 1 = channel
inline constexpr uint16_t kHookTraceOff = 0x0020;     // 002: data word 1 = channel
inline constexpr uint16_t kHookHeader = 0x0030;       // 003: trace header (generic)
inline constexpr uint16_t kHookTraceIdZero = 0x0040;  // 004
inline constexpr uint16_t kHookLogWrapped = 0x0050;   // 005
inline constexpr uint16_t kHookLost = 0x0060;         // 006: data word 1 = events lost
inline constexpr uint16_t kHookUndefined = 0x0070;    // 007: template for ids with none
inline constexpr uint16_t kHookDefault = 0x0080;      // 008: default template
inline constexpr uint16_t kHookUtil = 0x00A0;         // 00A: utility events, by subhook
inline constexpr uint16_t kHook64On32 = 0x00B0;       // 00B: 64-bit app data on a 32-bit kernel

// 00C: dynamic tracepoint hits (docs/dyntrace.md), generic: subhook = minor, data word =
// major | flags << 16 | pid << 32.
inline constexpr uint16_t kHookDynamicTracepoint = 0x00C0;

// Kernel events a system-wide session writes from tracefs (docs/session.md); AIX's ids where AIX
// has one. Defined here because the session writes them and the report and export read them.
inline constexpr uint16_t kHookInterrupt = 0x1000;      // 100
inline constexpr uint16_t kHookSystemCall = 0x1010;     // 101: buffer = 6 arguments, S2 name
inline constexpr uint16_t kHookSyscallReturn = 0x1040;  // 104: buffer = S2 name
inline constexpr uint16_t kHookDispatch = 0x1060;       // 106
inline constexpr uint16_t kHookIdle = 0x10C0;           // 10C
inline constexpr uint16_t kHookExec = 0x1340;           // 134: word pid; buffer S2 path
inline constexpr uint16_t kHookFork = 0x1390;           // 139: words child pid, parent pid
inline constexpr uint16_t kHookPageFault = 0x1B00;      // 1B0
inline constexpr uint16_t kHookResume = 0x2000;         // 200
inline constexpr uint16_t kHookExit = 0x4650;           // 465

// Subhooks of 00A. 25C is AIX's; the rest are rastrace's own (docs/log-format.md).
// generic: buffer m, d, flag (8 bytes each)
inline constexpr uint16_t kUtilTimeConversion = 0x025C;
inline constexpr uint16_t kUtilProcess = 0x0100;  // generic: word pid; buffer ppid:8 tid:8 S2 path
inline constexpr uint16_t kUtilCpus = 0x0101;     // words: total cpus, traced cpus
inline constexpr uint16_t kUtilBufferMode = 0x0102;  // words: mode, buffer bytes, log bytes
inline constexpr uint16_t kUtilExec = 0x0103;        // generic: word pid; buffer S2 path
inline constexpr uint16_t kUtilThreadName = 0x0104;  // generic: word tid; buffer S2 name
inline constexpr uint16_t kUtilSource = 0x0105;      // generic: word source number; buffer S2 name
inline constexpr uint16_t kUtilCpu = 0x0108;  // word: the CPU of this thread's following events
// generic: word major | minor << 16 | kind << 32; buffer S2 procedure or file:line
inline constexpr uint16_t kUtilTracepointDef = 0x0109;
// rastrace merge gave a thread or process id of the current source (00A/105) another id, because
// an earlier source used it: words: the id in its source, the id in the merged log.
inline constexpr uint16_t kUtilRenumbered = 0x010A;
// The wall clock beside the log's clock (docs/log-format.md, "Wall clock"): word 1 = CLOCK_REALTIME
// in nanoseconds, read together with the event's own timestamp, so readers place the log's events
// in real time and interleave logs whose clocks differ (TSC, CLOCK_MONOTONIC, CLOCK_REALTIME).
inline constexpr uint16_t kUtilWallClock = 0x010B;

}  // namespace rastrace::event
