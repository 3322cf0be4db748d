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
  // Creates or truncates `path`; "-" is standard output. Writes are buffered in `buffer_bytes`.
  static Result<OutputFile> Create(const std::string& path, size_t buffer_bytes = size_t{1} << 20);

  OutputFile(OutputFile&&) noexcept = default;
  OutputFile& operator=(OutputFile&&) noexcept = default;
  ~OutputFile();

  // Write errors are sticky: they are reported by Close (a full disk should fail the export,
  // not each of a billion writes).
  void Write(std::string_view bytes);
  void Write(const void* data, size_t size);
  Result<void> Close();
  // Closes the file for now (an exporter with many files keeps few open) and opens it again for
  // appending: what was written stays, write errors are kept until Close.
  Result<void> Suspend();
  Result<void> Resume();
  bool suspended() const { return !file_; }

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  struct Closer {
    void operator()(std::FILE* file) const;
  };
  OutputFile(std::string path, std::FILE* file, bool owned, size_t buffer_bytes);

  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  bool owned_ = true;  // standard output is flushed, never closed
  bool failed_ = false;
  int errno_ = 0;  // of the first failed write
  uint64_t bytes_written_ = 0;
  size_t buffer_bytes_ = 0;
};

}  // namespace rastrace::exporter
