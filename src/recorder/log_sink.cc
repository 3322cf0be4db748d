#include "recorder/log_sink.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace rastrace::recorder {
namespace {
// Runs shorter than this (the events of finely interleaved threads) are gathered in the staging
// buffer and handed to the log writer together: a call per event would cost more than the second
// copy. Longer runs go from the ring into the log writer's buffer directly: one copy.
constexpr size_t kDirectBytes = 2048;
constexpr size_t kStagingBytes = size_t{64} << 10;
}  // namespace

LogSink::LogSink(std::string path, const RecorderOptions& options, HeaderBuilder header,
                 WrapBuilder wrapped)
    : path_(std::move(path)),
      limit_(options.log_bytes),
      policy_(options.log_full),
      direct_io_(options.direct_io),
      header_(std::move(header)),
      wrapped_(std::move(wrapped)),
      staging_(std::make_unique_for_overwrite<uint8_t[]>(kStagingBytes)) {}

Result<LogSink> LogSink::Open(const std::string& path, const RecorderOptions& options,
                              HeaderBuilder header, WrapBuilder wrapped) {
  LogSink sink(path, options, std::move(header), std::move(wrapped));
  if (auto opened = sink.OpenFile(options.keep_old); !opened) return opened.error();
  return sink;
}

Result<void> LogSink::OpenFile(bool keep_old) {
  event::WriterOptions options;
  options.overwrite = true;
  options.keep_old = keep_old;
  options.direct_io = direct_io_;
  auto writer = event::LogWriter::Create(path_, options);
  if (!writer) return writer.error();
  writer_.emplace(std::move(*writer));
  used_ = writer_->bytes_written();
  scratch_.clear();
  header_(scratch_);
  Stage(scratch_);
  used_ += scratch_.size();
  return Ok();
}

uint64_t LogSink::available() const {
  if (stopped_) return 0;
  if (limit_ == 0) return UINT64_MAX;
  return used_ >= limit_ ? 0 : limit_ - used_;
}

bool LogSink::OnFull() {
  if (stopped_) return false;
  if (policy_ == LogFull::kStop) {
    stopped_ = true;
    return false;
  }
  if (auto flushed = Flush(); !flushed) return false;
  if (auto closed = writer_->Close(); !closed) {
    error_ = closed.error();
    stopped_ = true;
    return false;
  }
  ++rotations_;
  // The file just completed becomes LOG.old; the new one starts with the header again and a 005.
  if (auto opened = OpenFile(/*keep_old=*/true); !opened) {
    error_ = opened.error();
    stopped_ = true;
    return false;
  }
  scratch_.clear();
  wrapped_(rotations_, scratch_);
  Stage(scratch_);
  used_ += scratch_.size();
  // A limit smaller than the header cannot hold any event: stop rather than rotate forever.
  if (available() == 0) stopped_ = true;
  return !stopped_;
}

void LogSink::Write(std::span<const uint8_t> bytes, bool ends_an_event) {
  if (!writer_) return;
  // A log cut by a full disk still takes every event: the writer counts them in its 006.
  if (error_ && !writer_->cut()) return;
  if (auto wrote = writer_->WriteEncoded(bytes, ends_an_event); !wrote) {
    error_ = wrote.error();
    stopped_ = true;
  }
}

void LogSink::Stage(std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    if (staged_ == kStagingBytes && !Flush() && !cut()) return;
    const size_t n = std::min(bytes.size(), kStagingBytes - staged_);
    std::memcpy(staging_.get() + staged_, bytes.data(), n);
    staged_ += n;
    bytes = bytes.subspan(n);
  }
}

bool LogSink::cut() const {
  return was_cut_ || (writer_ && writer_->cut());
}

void LogSink::Append(std::span<const uint8_t> bytes) {
  if (stopped_ && !cut()) return;
  Stage(bytes);
  used_ += bytes.size();
}

std::span<uint8_t> LogSink::StagingRoom(size_t min_bytes) {
  if (stopped_ || min_bytes > kStagingBytes) return {};
  if (kStagingBytes - staged_ < min_bytes && !Flush()) return {};
  if (stopped_) return {};
  return {staging_.get() + staged_, kStagingBytes - staged_};
}

void LogSink::AppendFromRing(const buffer::RingBuffer& ring, uint64_t position, size_t words) {
  if (stopped_ && !cut()) return;
  used_ += words * 8;
  if (words * 8 < kDirectBytes) {
    while (words != 0) {
      if (staged_ == kStagingBytes && !Flush() && !cut()) return;
      const size_t n = std::min(words, (kStagingBytes - staged_) / 8);
      ring.CopyOut(position, n, staging_.get() + staged_);
      staged_ += n * 8;
      position += n;
      words -= n;
    }
    return;
  }
  if (!Flush() && !cut()) return;
  // The ring wraps at most once.
  const buffer::RingRegion region = ring.read_region();
  while (words != 0 && (!stopped_ || cut())) {
    const uint64_t index = position & region.mask;
    const size_t n = std::min<size_t>(words, region.capacity_words() - index);
    // Split where the ring wraps, the first part may stop inside an event.
    Write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(region.words + index), n * 8),
          /*ends_an_event=*/n == words);
    position += n;
    words -= n;
  }
}

void LogSink::AppendTrailer(std::span<const uint8_t> bytes) {
  if (!writer_ || (error_ && !cut())) return;
  Stage(bytes);
  used_ += bytes.size();
}

Result<void> LogSink::Flush() {
  if (error_ && !cut()) return *error_;
  if (!writer_) return MakeError("{}: log is closed", path_);
  if (staged_ != 0) {
    const size_t staged = std::exchange(staged_, 0);
    Write(std::span<const uint8_t>(staging_.get(), staged));
  }
  if (error_) return *error_;
  return Ok();
}

Result<void> LogSink::FlushToFile() {
  if (auto flushed = Flush(); !flushed) return flushed;
  if (auto flushed = writer_->Flush(); !flushed) {
    error_ = flushed.error();
    stopped_ = true;
    return flushed;
  }
  return Ok();
}

Result<void> LogSink::Close() {
  if (!writer_) return error_ ? Result<void>(*error_) : Ok();
  auto flushed = Flush();
  auto closed = writer_->Close();
  was_cut_ = writer_->cut();
  writer_.reset();
  // A cut log's error is the writer's final word: its message has the final count.
  if (was_cut_ && !closed) {
    error_ = closed.error();
    return closed;
  }
  if (!flushed) return flushed;
  if (!closed) {
    error_ = closed.error();
    return closed;
  }
  return Ok();
}

uint64_t LogSink::bytes() const {
  return used_;
}

}  // namespace rastrace::recorder
