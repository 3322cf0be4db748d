#include "common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rastrace {

std::string SizeText(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) {
    return fmt::format("{} GiB", bytes >> 30);
  }
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0) {
    return fmt::format("{} MiB", bytes >> 20);
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

Result<std::string> ReadInputFile(const std::string& path, size_t max_bytes,
                                  std::string_view what) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return MakeError("{}: is a directory", path);
  auto too_large = [&] {
    return MakeError("{}: larger than {}, the limit for {}", path, SizeText(max_bytes), what);
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == EISDIR) return MakeError("{}: is a directory", path);
      return MakeError("{}: read error: {}", path, std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes) return too_large();
    text.append(chunk, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace rastrace
