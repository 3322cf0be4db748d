// Streaming reader of trace logs: constant memory whatever the log size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::event {

struct ReaderOptions {
  // Apply seed 002 part C (see reformat.h) before returning an event.
  bool reformat = true;
  // Bytes read from a file at a time. The window grows to hold one event when an event is larger
  // (at most kMaxEventBytes, about 64 KiB), so memory stays bounded whatever this says.
  size_t window_bytes = size_t{1} << 20;
};

enum class ReadStatus { kEvent, kEnd, kError };

class LogReader {
 public:
  // Opens a log file ("-" is standard input). Fails when the file cannot be opened or its first
  // word is not a trace magic: "FILE: not a trace log: first bytes 12 34 56 78 (expected ...)".
  static Result<LogReader> Open(const std::string& path, ReaderOptions options = {});
  // Reads a log held in memory (tests, fuzzing). `name` is used in messages.
  static Result<LogReader> FromBytes(std::span<const uint8_t> bytes, std::string name = "<memory>",
                                     ReaderOptions options = {});
  // The same for bytes the reader keeps (a log built in memory from another format: an STDA save
  // file, src/stda/trace_input.h).
  static Result<LogReader> FromOwnedBytes(std::vector<uint8_t> bytes, std::string name,
                                          ReaderOptions options = {});

  LogReader(LogReader&&) noexcept;
  LogReader& operator=(LogReader&&) noexcept;
  ~LogReader();

  Layout layout() const;  // $TRACEENV
  ByteOrder byte_order() const;
  const std::string& name() const;

  // Decodes the next event into `out`. kEnd at a clean end of file. kError when the log ends inside
  // an event or an event is corrupt: error() then says
  // "FILE: offset 0x1234: truncated event (need 48 bytes, 20 left)" or what was wrong; every event
  // before it was returned; later calls return kEnd.
  ReadStatus Next(Event& out);
  const Error& error() const;

  // Byte offset of the next event to be read.
  uint64_t offset() const;

 private:
  struct Impl;
  explicit LogReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::event
