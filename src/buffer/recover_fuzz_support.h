// What the two recovery fuzzers share: writing the files a crashed process leaves, and running
// recovery on them with the check that its output reads to its end.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "buffer/recover.h"
#include "event/reader.h"

namespace rastrace::buffer::fuzz {

inline void WriteFile(const std::string& path, const void* bytes, size_t size) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  if (size != 0 && write(fd, bytes, size) != static_cast<ssize_t>(size)) std::abort();
  close(fd);
}

// A new directory under the temporary directory, with an empty "shm" directory in it.
inline std::string MakeScratch(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  std::filesystem::create_directory(pattern + "/shm");
  return pattern;
}

// Recovers DIR/shm into DIR/recovered; what recovery writes is always a whole log, whatever it
// was given.
inline void RecoverAndCheck(const std::string& dir) {
  RecoverOptions options;
  options.dir = dir + "/shm";
  options.output = dir + "/recovered";
  options.force = true;
  if (!Recover(options)) return;
  auto reader = event::LogReader::Open(options.output, {.reformat = false});
  if (!reader) std::abort();
  event::Event e;
  event::ReadStatus status;
  while ((status = reader->Next(e)) == event::ReadStatus::kEvent) {
  }
  if (status != event::ReadStatus::kEnd) std::abort();
}

}  // namespace rastrace::buffer::fuzz
