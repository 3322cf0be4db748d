// How the log writers read back a file they hold open write-only: after a failed write, what
// reached the file decides where the log is cut (event/writer.cc) and which bytes were not
// written (event/direct_file.cc).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>

namespace rastrace::event {

// A read-only descriptor of the very file `fd` is open on (not whatever now has its name), or -1;
// the caller closes it.
inline int OpenAgainForReading(int fd) {
  return ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
}

// Fills `into` from `offset` on, across short reads and EINTR. Returns the bytes read: fewer at
// the file's end or on an error (none when `fd` is -1).
inline size_t ReadBack(int fd, std::span<uint8_t> into, uint64_t offset) {
  size_t got = 0;
  while (got < into.size()) {
    const ssize_t n =
        ::pread(fd, into.data() + got, into.size() - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

}  // namespace rastrace::event
