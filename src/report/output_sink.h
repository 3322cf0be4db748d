// The report's text collects in one string that is written out in large pieces.
#pragma once

#include <cerrno>
#include <cstdio>
#include <string>

namespace rastrace::report {

class OutputSink {
 public:
  explicit OutputSink(std::FILE* file) : file_(file) { text_.reserve(kFlushAt + 65536); }
  ~OutputSink() { Flush(); }
  std::string& text() { return text_; }
  void MaybeFlush() {
    if (text_.size() >= kFlushAt) Flush();
  }
  void Flush() {
    if (!text_.empty() && std::fwrite(text_.data(), 1, text_.size(), file_) != text_.size()) {
      if (!failed_) error_number_ = errno;
      failed_ = true;
    }
    text_.clear();
  }
  // True when a write failed (disk full, closed pipe).
  bool failed() const { return failed_ || std::ferror(file_) != 0; }
  // The errno of the first write that failed, 0 if none did (or it left none).
  int error_number() const { return error_number_; }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  std::FILE* file_;
  std::string text_;
  bool failed_ = false;
  int error_number_ = 0;
};

}  // namespace rastrace::report
