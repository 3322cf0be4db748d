#include "export/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/output_file.h"

namespace rastrace::exporter {


void OutputFile::Closer::operator()(std::FILE* file) const {
  if (file != stdout) std::fclose(file);
}

OutputFile::OutputFile(std::string path, std::FILE* file, bool owned, size_t buffer_bytes)
    : path_(std::move(path)), file_(file), owned_(owned), buffer_bytes_(buffer_bytes) {}

OutputFile::~OutputFile() {
  if (file_ && !owned_) std::fflush(file_.get());
}

Result<OutputFile> OutputFile::Create(const std::string& path, size_t buffer_bytes) {
  if (path == "-") return OutputFile(path, stdout, false, 0);
  auto opened = OpenOutputStream(path);
  if (!opened) return opened.error();
  std::FILE* file = *opened;
  // A large buffer: exports write many small pieces.
  std::setvbuf(file, nullptr, _IOFBF, buffer_bytes);
  return OutputFile(path, file, true, buffer_bytes);
}

Result<void> OutputFile::Suspend() {
  if (!file_ || !owned_) return Ok();
  if (std::fflush(file_.get()) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
  if (std::fclose(file_.release()) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
  return Ok();
}

Result<void> OutputFile::Resume() {
  if (file_) return Ok();
  // The file this export created: appended to, never followed through a link planted since.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  std::FILE* file = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
  if (file == nullptr) {
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    return MakeError("{}: cannot open again: {}", path_, std::strerror(saved));
  }
  std::setvbuf(file, nullptr, _IOFBF, buffer_bytes_);
  file_.reset(file);
  return Ok();
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
  if (!file_) {
    if (!failed_) return Ok();
    return MakeError("{}: write failed: {}", path_, std::strerror(errno_ != 0 ? errno_ : EIO));
  }
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
