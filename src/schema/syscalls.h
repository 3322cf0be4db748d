// What the kernel's tracefs says about each system call's arguments: their names and C types, from
// events/syscalls/sys_enter_NAME/format (read by src/session's reader of system call formats,
// session::ReadSyscallFormat, the one the sessions use), for the schemas of the system call
// events a system-wide session writes (hooks 101 and 104).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schema/schema.h"

namespace rastrace::schema {

class SyscallFormats {
 public:
  // `events_dir`: a tracefs events directory (or a copy of one); empty: no formats.
  explicit SyscallFormats(std::string events_dir) : events_dir_(std::move(events_dir)) {}

  // The arguments of system call `name` in order (after __syscall_nr), typed: pointers hex,
  // signed types int, others uint, each of the size the format gives. nullptr when there is no
  // format for it (or `name` is not a system call name: only letters, digits and '_').
  const std::vector<Field>* Arguments(std::string_view name);

  // The events directory to use when none is given: $RASTRACE_TRACEFS_EVENTS when set (even if
  // it does not exist), else /sys/kernel/tracing/events or /sys/kernel/debug/tracing/events when
  // one of them has system call formats, else empty.
  static std::string DefaultEventsDir();

  // False when rastrace was built without the session part, whose tracefs format parser this uses:
  // every system call then has arg1..arg6.
  static bool Available();

 private:
  std::string events_dir_;
  std::map<std::string, std::unique_ptr<std::vector<Field>>, std::less<>> cache_;
};

}  // namespace rastrace::schema
