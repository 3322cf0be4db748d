#include "export/output_file.h"

#include <cerrno>
#include <cstring>

#include "common/output_file.h"

namespace rastrace::exporter {

namespace {
constexpr size_t kBufferBytes = size_t{1} << 20;
}

void OutputFile::Closer::operator()(std::FILE* file) const {
  if (file != stdout) std::fclose(file);
}

OutputFile::OutputFile(std::string path, std::FILE* file, bool owned)
    : path_(std::move(path)), file_(file), owned_(owned) {}

OutputFile::~OutputFile() {
  if (file_ && !owned_) std::fflush(file_.get());
}

Result<OutputFile> OutputFile::Create(const std::string& path) {
  if (path == "-") return OutputFile(path, stdout, false);
  auto opened = OpenOutputStream(path);
  if (!opened) return opened.error();
  std::FILE* file = *opened;
  // A large buffer: exports write many small pieces.
  std::setvbuf(file, nullptr, _IOFBF, kBufferBytes);
  return OutputFile(path, file, true);
}

void OutputFile::Write(std::string_view bytes) {
  Write(bytes.data(), bytes.size());
}

void OutputFile::Write(const void* data, size_t size) {
  if (failed_ || size == 0) return;
  if (std::fwrite(data, 1, size, file_.get()) != size) {
    failed_ = true;
    errno_ = errno;
    return;
  }
  bytes_written_ += size;
}

Result<void> OutputFile::Close() {
  if (!file_) return Ok();
  int saved_errno = errno_;
  if (std::fflush(file_.get()) != 0) {
    failed_ = true;
    if (saved_errno == 0) saved_errno = errno;
  }
  if (owned_) {
    std::FILE* file = file_.release();
    if (std::fclose(file) != 0 && !failed_) {
      failed_ = true;
      saved_errno = errno;
    }
  } else {
    file_.release();
  }
  if (failed_) {
    return MakeError("{}: write failed: {}", path_,
                     saved_errno != 0 ? std::strerror(saved_errno) : "short write");
  }
  return Ok();
}

}  // namespace rastrace::exporter
