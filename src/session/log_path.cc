#include "session/log_path.h"

#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rastrace::session {

namespace {

// The kernel's own file systems (<linux/magic.h>): their files are interfaces, never a log.
const char* KernelFileSystem(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return nullptr;
  struct KernelFs {
    unsigned long magic;
    const char* name;
  };
  static constexpr KernelFs kKernelFileSystems[] = {
      {0x9fa0, "proc"},           {0x62656572, "sysfs"}, {0x74726163, "tracefs"},
      {0x64626720, "debugfs"},    {0x27e0eb, "cgroup"},  {0x63677270, "cgroup2"},
      {0x73636673, "securityfs"}, {0xcafe4a11, "bpf"},   {0x62656570, "configfs"},
      {0x1cd1, "devpts"},         {0x6e736673, "nsfs"},
  };
  for (const KernelFs& kernel : kKernelFileSystems) {
    if (static_cast<unsigned long>(fs.f_type) == kernel.magic) return kernel.name;
  }
  return nullptr;
}

}  // namespace

Result<void> CheckLogPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string parent =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return MakeError("{}: is a symbolic link (a log is written only to a file of its own)", path);
    }
    if (S_ISDIR(st.st_mode)) return MakeError("{}: is a directory", path);
    if (!S_ISREG(st.st_mode)) return MakeError("{}: is not a regular file", path);
    if (const char* fs = KernelFileSystem(path)) {
      return MakeError("{}: is a file of the kernel ({}), not a place for a log", path, fs);
    }
  } else if (errno != ENOENT) {
    return MakeError("{}: {}", path, std::strerror(errno));
  }
  if (const char* fs = KernelFileSystem(parent)) {
    return MakeError("{}: {} is a directory of the kernel ({}), not a place for a log", path,
                     parent, fs);
  }
  if (access(parent.c_str(), W_OK) != 0) {
    return MakeError("cannot write the log {}: {}", path, std::strerror(errno));
  }
  return Ok();
}

}  // namespace rastrace::session
