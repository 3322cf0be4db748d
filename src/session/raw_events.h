// The kernel's binary trace buffers (tracefs per_cpu/cpuN/trace_pipe_raw): page decoding, the
// events/*/format descriptions, and the conversion of one binary record into the TraceLine the
// text parser produces, so one mapper (kernel_events.h) serves both readers. Reading binary pages
// spares the kernel formatting every event as text, the daemon's main cost with trace_pipe.
//
// Pages and formats are untrusted input: every length and offset is checked, errors name the
// byte offset (pages) or the line (formats), nothing crashes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "session/trace_line.h"

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

// Turns records into TraceLines for the events rastrace maps (KernelSources()).
class RawEventDecoder {
 public:
  // tid -> (tgid, task name) of a thread, for the first event of a thread (the binary record has
  // neither).
  struct Task {
    uint32_t tgid = 0;
    std::string comm;
  };
  using TaskLookup = std::function<Task(uint32_t tid)>;

  explicit RawEventDecoder(TaskLookup lookup);
  // Registers an event's format; the events whose fields are missing are refused with the reason.
  Result<void> AddFormat(const RawFormat& format);

  // Fills `line` (whose views point into `storage` and the decoder) for `record` on `cpu`; false
  // for an event that is not registered or a record too short for its fields.
  bool Decode(const RawRecord& record, uint32_t cpu, TraceLine& line, std::string& storage);
  // Looks up the record's thread now, when it is read: its Decode may come later (cpu_order.h),
  // when a short-lived thread has left /proc and only the slower tracefs tables still know it.
  void Prime(const RawRecord& record);

 private:
  enum class Kind : uint8_t {
    kSysEnter,
    kSysExit,
    kSwitch,
    kFork,
    kExec,
    kExit,
    kPageFault,
    kIrqEntry,
    kIrqExit,
  };
  struct Decoding {
    Kind kind;
    std::string name;
    std::array<RawField, 5> fields;
  };
  const Task& TaskOf(uint32_t tid);

  TaskLookup lookup_;
  std::unordered_map<uint16_t, Decoding> by_id_;
  std::unordered_map<uint32_t, Task> tasks_;
  RawField common_pid_;
};

}  // namespace rastrace::session
