#include "event/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "event/direct_file.h"
#include "event/encode.h"

namespace rastrace::event {
namespace {

constexpr size_t kBufferBytes = 256 * 1024;

}  // namespace

struct LogWriter::Impl {
  std::string path;
  WriterOptions options;
  int fd = -1;
  bool owns_fd = false;
  std::vector<uint8_t> buffer;
  std::unique_ptr<DirectFile> direct;  // set: every byte goes through it, `buffer` stays empty
  uint64_t bytes_written = 0;
  bool failed = false;  // a write failed: the file is incomplete, later writes are refused
  Error error;

  ~Impl() {
    // Errors here have nowhere to go; callers that care call Close() first.
    (void)Close();
  }

  Result<void> WriteAll(std::span<const uint8_t> bytes) {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        return Fail(MakeError("{}: write error: {}", path, std::strerror(errno)));
      }
      bytes = bytes.subspan(static_cast<size_t>(wrote));
    }
    return Ok();
  }

  Result<void> Fail(Error e) {
    failed = true;
    error = e;
    return e;
  }

  Result<void> Usable() const {
    if (fd < 0) return MakeError("{}: log writer is closed", path);
    if (failed) return error;
    return Ok();
  }

  Result<void> Flush() {
    if (auto usable = Usable(); !usable) return usable;
    if (direct) {
      if (!buffer.empty()) {
        auto appended = direct->Append(buffer);
        buffer.clear();
        if (!appended) return Fail(appended.error());
      }
      auto synced = direct->Sync();
      return synced ? synced : Fail(synced.error());
    }
    auto result = WriteAll(buffer);
    buffer.clear();
    return result;
  }

  Result<void> Append(std::span<const uint8_t> bytes) {
    if (auto usable = Usable(); !usable) return usable;
    if (direct) {
      bytes_written += bytes.size();
      auto appended = direct->Append(bytes);
      return appended ? appended : Fail(appended.error());
    }
    if (buffer.size() + bytes.size() > kBufferBytes) {
      if (auto flushed = Flush(); !flushed) return flushed;
    }
    bytes_written += bytes.size();
    if (bytes.size() >= kBufferBytes) return WriteAll(bytes);
    buffer.insert(buffer.end(), bytes.begin(), bytes.end());
    return Ok();
  }

  Result<void> Close() {
    if (fd < 0) return Ok();
    Result<void> result = failed ? Result<void>(error) : Flush();
    if (direct) {
      auto closed = direct->Close();
      direct.reset();
      if (!closed && result.ok()) result = closed;
    }
    if (owns_fd && ::close(fd) != 0 && result.ok()) {
      result = MakeError("{}: close failed: {}", path, std::strerror(errno));
    }
    fd = -1;
    return result;
  }
};

LogWriter::LogWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LogWriter::LogWriter(LogWriter&&) noexcept = default;
LogWriter& LogWriter::operator=(LogWriter&&) noexcept = default;
LogWriter::~LogWriter() = default;

Result<LogWriter> LogWriter::Create(const std::string& path, WriterOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  if (path == "-") {
    impl->fd = STDOUT_FILENO;
  } else {
    if (options.keep_old) {
      std::string old = path + ".old";
      if (::rename(path.c_str(), old.c_str()) != 0 && errno != ENOENT) {
        return MakeError("{}: cannot rename to {}: {}", path, old, std::strerror(errno));
      }
    }
    // Replacing a log means a new file: an existing regular file is unlinked and the log made
    // O_EXCL, never truncated in place, so a hard link to another file (made by whoever can
    // write the directory) is never written through; a symlink put there after the unlink makes
    // the open fail. What is not a regular file (a FIFO, a terminal) is opened as it is.
    bool exclusive = true;
    if (options.overwrite) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISREG(st.st_mode)) {
          if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            return MakeError("{}: cannot replace the existing file: {}", path,
                             std::strerror(errno));
          }
        } else {
          exclusive = false;  // O_NOFOLLOW refuses a symlink, O_WRONLY a directory, as before
        }
      }
    }
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
    impl->fd = ::open(path.c_str(), flags, 0600);
    if (impl->fd < 0) {
      int err = errno;
      return MakeError("{}: cannot create trace log: {}{}", path, std::strerror(err),
                       err == EEXIST ? " (refusing to overwrite an existing file)" : "");
    }
    impl->owns_fd = true;
    if (options.direct_io) {
      // Not possible here (tmpfs, or a file system without O_DIRECT): write normally.
      if (auto direct = DirectFile::Open(impl->fd, path)) impl->direct = std::move(*direct);
    }
  }
  impl->buffer.reserve(kBufferBytes);
  std::vector<uint8_t> magic;
  EncodeMagic(options.layout, options.byte_order, magic);
  if (auto appended = impl->Append(magic); !appended) return appended.error();
  return LogWriter(std::move(impl));
}

Result<void> LogWriter::WriteEncoded(std::span<const uint8_t> bytes) {
  return impl_->Append(bytes);
}

Result<void> LogWriter::Write(const EventFields& fields) {
  if (auto usable = impl_->Usable(); !usable) return usable;
  std::vector<uint8_t>& buffer = impl_->buffer;
  size_t size = EncodedSize(fields, impl_->options.layout);
  if (size != 0 && buffer.size() + size > kBufferBytes) {
    if (auto flushed = impl_->Flush(); !flushed) return flushed;
  }
  // Encoding straight into the buffer: no copy, and no allocation once the buffer is reserved.
  if (auto encoded = Encode(fields, impl_->options.layout, impl_->options.byte_order, buffer);
      !encoded) {
    return MakeError("{}: {}", impl_->path, encoded.error().message);
  }
  impl_->bytes_written += size;
  if (impl_->direct) {
    auto appended = impl_->direct->Append(buffer);
    buffer.clear();
    if (!appended) return impl_->Fail(appended.error());
  }
  return Ok();
}

Result<void> LogWriter::Flush() {
  return impl_->Flush();
}
Result<void> LogWriter::Close() {
  return impl_->Close();
}
uint64_t LogWriter::bytes_written() const {
  return impl_->bytes_written;
}
Layout LogWriter::layout() const {
  return impl_->options.layout;
}
ByteOrder LogWriter::byte_order() const {
  return impl_->options.byte_order;
}

}  // namespace rastrace::event
