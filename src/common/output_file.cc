#include "common/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rastrace {

Result<std::FILE*> OpenOutputStream(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ELOOP) return MakeError("{}: refusing to write through a symbolic link", path);
    return MakeError("{}: cannot create: {}", path, std::strerror(errno));
  }
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    const int saved = errno;
    ::close(fd);
    return MakeError("{}: cannot open: {}", path, std::strerror(saved));
  }
  return file;
}

Result<void> WriteWholeFile(const std::string& path, std::string_view text, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  bool ok = fd >= 0;
  int err = errno;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    err = n == 0 ? ENOSPC : errno;
    if (ok) done += static_cast<size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok) return Ok();
  return MakeError("{}: cannot write: {}", path,
                   err == ELOOP ? "it is a symlink" : std::strerror(err));
}

Result<void> FinishOutput(std::FILE* file, std::string_view name) {
  errno = 0;
  const bool flushed = std::fflush(file) == 0;
  const int err = errno;
  if (flushed && std::ferror(file) == 0) return Ok();
  // A failure before this flush left no errno behind.
  return MakeError("{}: write error: {}", name, err != 0 ? std::strerror(err) : "data was lost");
}

}  // namespace rastrace
