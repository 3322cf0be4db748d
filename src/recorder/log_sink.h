// The log file as the writer thread sees it: appends (a long run of one thread's events is copied
// once, from its ring into the log writer's buffer; short ones are gathered first), the -L size
// limit, and what a full log does (rotate to LOG.old and go on, or stop tracing).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "buffer/ring_buffer.h"
#include "common/result.h"
#include "event/writer.h"
#include "recorder/options.h"

namespace rastrace::recorder {

class LogSink {
 public:
  // Appends the events every new log file starts with.
  using HeaderBuilder = std::function<void(std::vector<uint8_t>&)>;
  // Appends the 005 event that starts a rotated file; its argument is the rotation count.
  using WrapBuilder = std::function<void(uint64_t, std::vector<uint8_t>&)>;

  static Result<LogSink> Open(const std::string& path, const RecorderOptions& options,
                              HeaderBuilder header, WrapBuilder wrapped);

  // Bytes of events that still fit before the size limit (UINT64_MAX without one).
  uint64_t available() const;
  // Called when the next event does not fit: rotates and returns true, or (-s, or a failed
  // rotation) marks the log stopped and returns false.
  bool OnFull();
  bool stopped() const { return stopped_; }
  // The disk ran out of room and the writer cut the log (event::LogWriter::cut): what is still
  // appended is counted in the log's last 006, not written.
  bool cut() const;
  uint64_t rotations() const { return rotations_; }

  // Appends encoded events; the caller has checked available().
  void Append(std::span<const uint8_t> bytes);
  void AppendFromRing(const buffer::RingBuffer& ring, uint64_t position, size_t words);
  // For a caller that copies events itself (the merge of finely interleaved threads, where a
  // call per event would cost more than the copy): the free part of the staging buffer, at least
  // `min_bytes` long (staged bytes are flushed first when less is free; empty when the log is
  // stopped), and then how much of it the caller filled, counted as appended. The caller has
  // checked available().
  std::span<uint8_t> StagingRoom(size_t min_bytes);
  void CommitStaged(size_t bytes) {
    staged_ += bytes;
    used_ += bytes;
  }
  // Appends the closing events, which may exceed the limit (a log always ends with TRACE OFF).
  void AppendTrailer(std::span<const uint8_t> bytes);

  // Hands the gathered short appends to the log writer; an error stops the log (later appends
  // are discarded).
  Result<void> Flush();
  // Flush, then the log writer's own buffer: every byte counted by bytes() is in the file (the
  // flight recorder's checkpoints rely on it).
  Result<void> FlushToFile();
  Result<void> Close();
  // The first write error, if any.
  const std::optional<Error>& error() const { return error_; }
  uint64_t bytes() const;
  // Of the current file's bytes(), those the file holds, and those handed on to be written
  // without a FlushToFile (event::LogWriter::bytes_in_file, bytes_on_the_way): the flight
  // recorder's checkpoints are published up to the first (docs/reliability.md).
  uint64_t bytes_in_file() const { return writer_ ? writer_->bytes_in_file() : 0; }
  uint64_t bytes_on_the_way() const { return writer_ ? writer_->bytes_on_the_way() : 0; }

 private:
  LogSink(std::string path, const RecorderOptions& options, HeaderBuilder header,
          WrapBuilder wrapped);
  Result<void> OpenFile(bool keep_old);
  // Hands `bytes` to the log writer; a failure is kept and stops the log.
  void Write(std::span<const uint8_t> bytes, bool ends_an_event = true);
  // Gathers `bytes` for the next Flush (flushing first when the staging buffer is full).
  void Stage(std::span<const uint8_t> bytes);

  std::string path_;
  uint64_t limit_ = 0;
  LogFull policy_ = LogFull::kRotate;
  bool direct_io_ = true;
  HeaderBuilder header_;
  WrapBuilder wrapped_;
  std::optional<event::LogWriter> writer_;
  // Short appends not yet handed to the writer. Raw storage, not a vector: growing a vector
  // zero-fills it.
  std::unique_ptr<uint8_t[]> staging_;
  size_t staged_ = 0;
  std::vector<uint8_t> scratch_;  // events built by the header and wrap builders
  uint64_t used_ = 0;             // bytes of the current file, written and staged
  uint64_t rotations_ = 0;
  bool stopped_ = false;
  bool was_cut_ = false;  // the closed writer had cut the log
  std::optional<Error> error_;
};

}  // namespace rastrace::recorder
