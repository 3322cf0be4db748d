#include "recorder/log_sink.h"

namespace rastrace::recorder {
namespace {
constexpr size_t kStagingBytes = size_t{1} << 20;
}  // namespace

LogSink::LogSink(std::string path, const RecorderOptions& options, HeaderBuilder header,
                 WrapBuilder wrapped)
    : path_(std::move(path)),
      limit_(options.log_bytes),
      policy_(options.log_full),
      header_(std::move(header)),
      wrapped_(std::move(wrapped)) {
  staging_.reserve(kStagingBytes + 64 * 1024);
}

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
  auto writer = event::LogWriter::Create(path_, options);
  if (!writer) return writer.error();
  writer_.emplace(std::move(*writer));
  used_ = writer_->bytes_written();
  header_(staging_);
  used_ += staging_.size();
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
  const size_t before = staging_.size();
  wrapped_(rotations_, staging_);
  used_ += staging_.size() - before;
  // A limit smaller than the header cannot hold any event: stop rather than rotate forever.
  if (available() == 0) stopped_ = true;
  return !stopped_;
}

void LogSink::Append(std::span<const uint8_t> bytes) {
  if (stopped_) return;
  staging_.insert(staging_.end(), bytes.begin(), bytes.end());
  used_ += bytes.size();
  FlushIfLarge();
}

void LogSink::AppendFromRing(const buffer::RingBuffer& ring, uint64_t position, size_t words) {
  if (stopped_) return;
  const size_t at = staging_.size();
  staging_.resize(at + words * 8);
  ring.CopyOut(position, words, staging_.data() + at);
  used_ += words * 8;
  FlushIfLarge();
}

void LogSink::AppendTrailer(std::span<const uint8_t> bytes) {
  if (error_ || !writer_) return;
  staging_.insert(staging_.end(), bytes.begin(), bytes.end());
  used_ += bytes.size();
}

void LogSink::FlushIfLarge() {
  if (staging_.size() >= kStagingBytes) (void)Flush();
}

Result<void> LogSink::Flush() {
  if (error_) return *error_;
  if (!writer_) return MakeError("{}: log is closed", path_);
  if (!staging_.empty()) {
    auto wrote = writer_->WriteEncoded(staging_);
    staging_.clear();
    if (!wrote) {
      error_ = wrote.error();
      stopped_ = true;
      return wrote.error();
    }
  }
  return Ok();
}

Result<void> LogSink::Close() {
  if (!writer_) return error_ ? Result<void>(*error_) : Ok();
  auto flushed = Flush();
  auto closed = writer_->Close();
  writer_.reset();
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
