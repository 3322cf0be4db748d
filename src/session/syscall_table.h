// The system calls as this kernel's tracefs describes them. Each syscalls/sys_enter_<name> event
// carries only the arguments its call takes, and its format file names them (after
// __syscall_nr), so a 101 SYSTEM CALL event can say which arguments the call took and what they
// are called. Such 101 events (subhook kSyscallNamedArguments) keep the layout of the others and
// add the names at the end:
//   data word: the system call number;
//   buffer: six 8-byte argument slots (the call's arguments first, the rest 0), S2 name,
//           U1 count, then count x S1 argument name.
// Readers that know only the six slots and the name (the report's SYSTEM CALL column, exports)
// read them as before; templates/kernel.trcfmt prints "openat dfd=... filename=...".
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "session/raw_events.h"

namespace rastrace::session {

// Subhook of a 101 event whose buffer ends with the argument names (0: six slots and the name).
inline constexpr uint16_t kSyscallNamedArguments = 1;
// A system call takes at most six arguments.
inline constexpr size_t kSyscallMaxArguments = 6;

struct SyscallArgument {
  std::string name;
  uint32_t offset = 0;  // in the sys_enter_<name> record
  uint32_t size = 0;
  std::string type;        // its C type as the format writes it ("const char *", "int")
  bool is_signed = false;  // the format's "signed:" (every argument is a full register: 0)
};

class SyscallSignature {
 public:
  // `name` without "sys_enter_"; at most six arguments are kept. `described`: the arguments come
  // from the kernel's format (not made up for a call known only by name or number).
  SyscallSignature(std::string name, std::vector<SyscallArgument> arguments, bool described = true);

  const std::string& name() const { return name_; }
  bool described() const { return described_; }
  // The call's number on this machine by its name (<asm/unistd_64.h>), for text lines, which do
  // not carry it; 0 when the name is not there.
  uint64_t number() const { return number_; }
  std::span<const SyscallArgument> arguments() const { return arguments_; }
  // Appends the 101 event's buffer: `values` (one per argument) in the slots, then the name and
  // the argument names.
  void AppendBuffer(std::span<const uint64_t> values, std::vector<uint8_t>& out) const;

 private:
  std::string name_;
  std::vector<SyscallArgument> arguments_;
  std::vector<uint8_t> names_;  // S2 name, U1 count, the S1 argument names: copied per event
  bool described_ = true;
  uint64_t number_ = 0;
};

// A sys_enter_<name> format (ParseEventFormat): its arguments in record order. Fails when the
// event is not a system call entry (no __syscall_nr) or an argument is not a word.
Result<SyscallSignature> SignatureFromFormat(const RawFormat& format);
// The one reader of system call formats on disk: `events_dir`/syscalls/sys_enter_`name`/format
// (a tracefs events directory, or a copy of one), read, parsed and made a signature. Used by
// sessions that read kernel events as text and by src/schema's system call schemas.
Result<SyscallSignature> ReadSyscallFormat(const std::string& events_dir, std::string_view name);

// The system calls of one session: by name (from the formats, or made up for a call known only
// by its number) and by number.
class SyscallTable {
 public:
  // Registers a call from its sys_enter_<name> format; returns it.
  Result<const SyscallSignature*> AddFormat(const RawFormat& format);
  // Registers a call (ReadSyscallFormat); the first of a name stays. Returns it.
  const SyscallSignature* Add(SyscallSignature signature);
  // The call `name` ("openat"): the registered one, else one without arguments (a sys_exit_
  // event whose entry was not loaded).
  const SyscallSignature* ByName(std::string_view name);
  // The call numbered `nr` (raw_syscalls events, which carry no name): its name on this machine
  // (SyscallName), and its arguments from the registered format of that name, else six named
  // arg1..arg6. At most kMaxNumbers different numbers are kept; beyond them one shared entry.
  const SyscallSignature* ByNumber(uint64_t nr);
  size_t size() const { return by_name_.size(); }

  static constexpr size_t kMaxNumbers = 4096;

 private:
  const SyscallSignature* Keep(SyscallSignature signature);
  std::deque<SyscallSignature> storage_;  // stable addresses
  std::unordered_map<std::string, const SyscallSignature*> by_name_;
  std::unordered_map<uint64_t, const SyscallSignature*> by_number_;
};

// The name of system call `nr` on this machine ("nr<N>" when unknown), from <asm/unistd_64.h>
// at build time.
std::string_view SyscallName(uint64_t nr, std::string& scratch);

}  // namespace rastrace::session
