// Writer of trace log files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::event {

struct WriterOptions {
  Layout layout = Layout::k64;
  ByteOrder byte_order = NativeByteOrder();
  bool overwrite = false;  // refuse to replace an existing file unless set
  bool keep_old = false;   // rename an existing file to FILE.old first (trace -c)
  // Write whole blocks with O_DIRECT from a thread of the writer's own (event/direct_file.h),
  // where the file system allows it; otherwise the writer writes normally.
  bool direct_io = false;
};

class LogWriter {
 public:
  // Creates `path` (mode 0600, O_NOFOLLOW, O_EXCL unless overwrite) and writes the magic. "-" is
  // standard output.
  static Result<LogWriter> Create(const std::string& path, WriterOptions options = {});

  LogWriter(LogWriter&&) noexcept;
  LogWriter& operator=(LogWriter&&) noexcept;
  ~LogWriter();  // flushes and closes

  // Appends already encoded events (as built by Encode in this writer's layout and order).
  // `ends_an_event` is false when `bytes` stop inside an event that the next call completes (a
  // ring's run split where the ring wraps): the writer cuts a full log only at whole events.
  Result<void> WriteEncoded(std::span<const uint8_t> bytes, bool ends_an_event = true);
  // Encodes and appends one event.
  Result<void> Write(const EventFields& fields);
  Result<void> Flush();
  Result<void> Close();

  uint64_t bytes_written() const;  // including the magic
  // Of bytes_written(), those the file holds (their writes completed; not those buffered or in
  // O_DIRECT writes still in flight), and those handed on to be written without a Flush (the rest
  // waits for more bytes, or a Flush).
  uint64_t bytes_in_file() const;
  uint64_t bytes_on_the_way() const;

  // A write that failed for want of room (ENOSPC, EDQUOT, EFBIG, EIO) cuts the log: the file is
  // cut back to its last whole event that leaves room for one 006 event, which counts every
  // traced event not written (those cut off, and every one handed to the writer since, a 006's
  // own count included). Every later write returns the error (and is counted); Close rewrites
  // the 006 with the final count and returns "PATH: no space left on device after N bytes; M
  // events not written". Only when not even the 006 fits does the log end at its last whole
  // event without it (the message says so). With direct_io the same holds: the direct path is
  // closed at the failure, and the events of its chunks that were not written are counted.
  bool cut() const;
  uint64_t events_not_written() const;
  Layout layout() const;
  ByteOrder byte_order() const;

 private:
  struct Impl;
  explicit LogWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// For a log that LogWriter cut (it ends with the writer's own 006 event: thread 0, the size of
// one 006), the count that event holds; nothing for any other log (one that ends with TRACE OFF,
// a rebuilt one, or one that cannot be read). Reads the magic and the last event only.
std::optional<uint64_t> CutLogLostCount(const std::string& path);

}  // namespace rastrace::event
