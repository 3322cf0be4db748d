// Writer of trace log files.
#pragma once

#include <cstdint>
#include <memory>
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
  Result<void> WriteEncoded(std::span<const uint8_t> bytes);
  // Encodes and appends one event.
  Result<void> Write(const EventFields& fields);
  Result<void> Flush();
  Result<void> Close();

  uint64_t bytes_written() const;  // including the magic
  Layout layout() const;
  ByteOrder byte_order() const;

 private:
  struct Impl;
  explicit LogWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::event
