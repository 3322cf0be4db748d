// A buffered output file (or standard output) whose write errors come back as values.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rastrace::exporter {

class OutputFile {
 public:
  // Creates or truncates `path`; "-" is standard output.
  static Result<OutputFile> Create(const std::string& path);

  OutputFile(OutputFile&&) noexcept = default;
  OutputFile& operator=(OutputFile&&) noexcept = default;
  ~OutputFile();

  // Write errors are sticky: they are reported by Close (a full disk should fail the export,
  // not each of a billion writes).
  void Write(std::string_view bytes);
  void Write(const void* data, size_t size);
  Result<void> Close();

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  struct Closer {
    void operator()(std::FILE* file) const;
  };
  OutputFile(std::string path, std::FILE* file, bool owned);

  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  bool owned_ = true;  // standard output is flushed, never closed
  bool failed_ = false;
  int errno_ = 0;  // of the first failed write
  uint64_t bytes_written_ = 0;
};

}  // namespace rastrace::exporter
