// Parser of the text lines tracefs prints in trace_pipe (with options/record-tgid):
//   "            bash-27796   (  27796) [000] .....  1986.794937: sys_enter: NR 33 (b, 1, 0)"
// Lines are untrusted input (the kernel's format may change): anything unexpected is an error,
// never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.h"
#include "session/kernel_event.h"

namespace rastrace::session {

struct TraceLine {
  std::string_view comm;
  uint32_t tid = 0;
  uint32_t tgid = 0;  // 0 when the line has no "(tgid)" column or it printed "-----"
  uint32_t cpu = 0;
  // "seconds.fraction" of the trace clock in nanoseconds, or the raw value of a counter clock
  // (x86-tsc), which prints without a fraction.
  uint64_t timestamp_ns = 0;
  std::string_view event;  // "sys_enter", "sched_switch", ...
  std::string_view body;   // what follows "event: "
};

Result<TraceLine> ParseTraceLine(std::string_view line);

class SyscallTable;
// The kernel event of a parsed line, for the events rastrace maps (KernelSources()); false for
// any other event. Its views point into `line`'s text and into `syscalls`.
bool ToKernelEvent(const TraceLine& line, SyscallTable& syscalls, KernelEvent& out);

// The value of `key=value` in a tracepoint body (values end at a blank); nullopt when absent.
std::optional<std::string_view> FieldValue(std::string_view body, std::string_view key);
// Decimal (or 0x-prefixed hexadecimal) unsigned number; nullopt when `text` is not one.
std::optional<uint64_t> ParseNumber(std::string_view text, int base = 10);

}  // namespace rastrace::session
