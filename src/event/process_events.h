// The events that carry a log's process table, decoded: rastrace's own 00A subhooks 0x100
// (process), 0x103 (exec) and 0x104 (thread name), and the kernel EXEC (134) and FORK (139) hooks
// of system-wide sessions (docs/log-format.md). Decoding only: what a table does with a string
// that does not fit, or with an unknown parent, is the table's own rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::event {

struct ProcessEvent {
  enum class Kind {
    kProcess,     // 00A/0x100: pid, parent (ppid), tid (its main thread), text (the exec path)
    kExec,        // 00A/0x103 and kernel EXEC: pid, text (the new exec path)
    kThreadName,  // 00A/0x104: tid, text (the name), thread_pid (0 when not recorded)
    kFork,        // kernel FORK: pid (the child), parent
  };
  Kind kind = Kind::kProcess;
  uint64_t pid = 0;
  uint64_t parent = 0;
  uint64_t tid = 0;
  // nullopt when the S2 string runs past the buffer (docs/log-format.md: trailing NULs dropped).
  std::optional<std::string_view> text;
  uint64_t thread_pid = 0;
};

// The process-table content of `e`, whose buffer is in `order`; nullopt for other events and for
// a 0x100 buffer too short for its ids. The text points into `e`'s buffer.
std::optional<ProcessEvent> DecodeProcessEvent(const Event& e, ByteOrder order);

}  // namespace rastrace::event
