// The fixed-width parts of a report line: the column header, the per-event prefix (id, process,
// cpu, pid, tid, system call) and the time columns, as docs/spec trcrpt.md lays them out.
// Appending to a caller's buffer keeps the per-event path free of allocation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/options.h"

namespace rastrace::report {

// What the prefix of one event line shows.
struct PrefixFields {
  uint16_t hook_id = 0;  // 16-bit id
  std::string_view process_name;
  uint32_t cpu = 0;
  uint64_t pid = 0;
  uint64_t tid = 0;
  std::string_view svc;
  int64_t elapsed_ns = 0;  // from the first timestamp of the report
  int64_t delta_ns = 0;    // from the previous printed event
  bool timestamped = true;
};

// The column header line, without a newline: `ID  `, `PROCESS NAME   `, ... `APPL    SYSCALL
// KERNEL  INTERRUPT`.
std::string ColumnHeader(const LayoutOptions& layout);

// Width of everything before the APPL column.
size_t PrefixWidth(const LayoutOptions& layout);

// `%03X ` for a 12-bit id hhh0, `%04X ` for any other 16-bit id.
void AppendHookId(uint16_t id16, std::string& out);

// The time columns of -O timestamp=0..2 (nothing for 3); `*` after the elapsed time of an event
// without a timestamp.
void AppendTimeField(TimestampStyle style, int64_t elapsed_ns, int64_t delta_ns, bool timestamped,
                     std::string& out);

// Every enabled prefix column, then the time columns: exactly PrefixWidth() characters unless a
// number is wider than its column.
void AppendPrefix(const LayoutOptions& layout, const PrefixFields& fields, std::string& out);

// Right-aligned unsigned decimal in at least `width` characters.
void AppendDecimal(uint64_t value, int width, std::string& out);

}  // namespace rastrace::report
