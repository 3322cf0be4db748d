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

}  // namespace rastrace
