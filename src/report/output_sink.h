// The report's text collects in one string that is written out in large pieces.
#pragma once

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
      failed_ = true;
    }
    text_.clear();
  }
  // True when a write failed (disk full, closed pipe).
  bool failed() const { return failed_ || std::ferror(file_) != 0; }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  std::FILE* file_;
  std::string text_;
  bool failed_ = false;
};

}  // namespace rastrace::report
