// The kernel's binary trace buffers (tracefs per_cpu/cpuN/trace_pipe_raw): page decoding, the
// events/*/format descriptions, and the conversion of one binary record into the KernelEvent the
// text parser produces too, so one mapper (kernel_events.h) serves both readers. Reading binary
// pages spares the kernel formatting every event as text, and the daemon parsing it.
//
// Pages and formats are untrusted input: every length and offset is checked, errors name the
// byte offset (pages) or the line (formats), nothing crashes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "session/kernel_event.h"

namespace rastrace::session {

struct RawField {
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
  bool data_loc = false;  // __data_loc: a u32 of offset (low 16 bits) and length (high 16 bits)
  bool present = false;
};

struct RawFormat {
  std::string name;  // "sys_enter"
  uint16_t id = 0;
  std::unordered_map<std::string, RawField> fields;
  // Every field in the order the file declares it, with its C type as written without the name
  // ("const char *", "int", "unsigned long[6]", "__data_loc char[]"): for readers that name and
  // type each field (src/schema's system call schemas).
  struct Declared {
    std::string name;
    std::string type;
    RawField field;
  };
  std::vector<Declared> declared;
};

// An events/<system>/<event>/format file; `source` names it in errors (source:line).
Result<RawFormat> ParseEventFormat(std::string_view text, std::string_view source);
// A tracefs text file of at most 1 MiB (a format, header_page).
Result<std::string> ReadSmallText(const std::string& path);
// ReadSmallText + ParseEventFormat.
Result<RawFormat> ReadEventFormat(const std::string& path);

// Where a page's events are (events/header_page): the header is a u64 timestamp and a commit word
// whose low 30 bits are the bytes of events, then the events.
struct PageLayout {
  uint32_t commit_offset = 8;
  uint32_t commit_size = 8;
  uint32_t data_offset = 16;
  uint32_t data_size = 4080;
  size_t page_bytes() const { return size_t{data_offset} + data_size; }
};
Result<PageLayout> ParseHeaderPage(std::string_view text, std::string_view source);

// One event of a page: its absolute timestamp (the trace clock's units) and its bytes.
struct RawRecord {
  uint64_t timestamp = 0;
  std::span<const uint8_t> payload;
};

// Appends the events of one page. A malformed page is an error naming the byte offset; the
// records before it are kept.
Result<void> DecodePage(std::span<const uint8_t> page, const PageLayout& layout,
                        std::vector<RawRecord>& out);

class SyscallTable;

// Turns records into KernelEvents (kernel_event.h) for the events rastrace maps
// (KernelSources()): fields are read by the offsets of each event's format, nothing is printed.
class RawEventDecoder {
 public:
  // tid -> (tgid, task name) of a thread, for the first event of a thread (the binary record has
  // neither).
  struct Task {
    uint32_t tgid = 0;
    std::string comm;
  };
  using TaskLookup = std::function<Task(uint32_t tid)>;

  // `syscalls` (kept by the caller, it outlives the decoder) names the system calls; null: the
  // decoder keeps a table of its own.
  explicit RawEventDecoder(TaskLookup lookup, SyscallTable* syscalls = nullptr);
  ~RawEventDecoder();
  // Registers an event's format: one of KernelSources(), or a syscalls/sys_enter_<name> or
  // sys_exit_<name> event. The events whose fields are missing are refused with the reason.
  Result<void> AddFormat(const RawFormat& format);

  // Fills `out` (whose views point into the record and the decoder) for `record` on `cpu`; false
  // for an event that is not registered or a record too short for its fields.
  bool Decode(const RawRecord& record, uint32_t cpu, KernelEvent& out);
  // Looks up the record's thread now, when it is read: its Decode may come later (cpu_order.h),
  // when a short-lived thread has left /proc and only the slower tracefs tables still know it.
  // For a fork, the child's too (whether it is a thread or a process).
  void Prime(const RawRecord& record);

 private:
  enum class Kind : uint8_t {
    kRawSysEnter,  // raw_syscalls/sys_enter: id, args[6]
    kRawSysExit,   // raw_syscalls/sys_exit: id, ret
    kSysEnter,     // syscalls/sys_enter_<name>: __syscall_nr, then the call's arguments
    kSysExit,      // syscalls/sys_exit_<name>: __syscall_nr, ret
    kSwitch,
    kFork,
    kExec,
    kExit,
    kPageFaultUser,
    kPageFaultKernel,
    kIrqEntry,
    kIrqExit,
  };
  struct Decoding {
    Kind kind;
    // The fields read, in the order KernelEvent::values wants them (kSysEnter: __syscall_nr,
    // then the arguments).
    std::array<RawField, 7> fields;
    size_t field_count = 0;
    const SyscallSignature* syscall = nullptr;  // kSysEnter, kSysExit
  };
  const Task& TaskOf(uint32_t tid);
  const Decoding* Find(std::span<const uint8_t> payload) const;

  TaskLookup lookup_;
  std::unique_ptr<SyscallTable> own_syscalls_;
  SyscallTable* syscalls_;
  std::vector<Decoding> decodings_;
  std::vector<int32_t> by_id_;  // event id -> index in decodings_, -1 when not registered
  std::unordered_map<uint32_t, Task> tasks_;
  // The last thread looked up (most events follow one of the same thread).
  uint32_t last_tid_ = UINT32_MAX;
  const Task* last_task_ = nullptr;
  RawField common_pid_;
};

}  // namespace rastrace::session
