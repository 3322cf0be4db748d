// Tests only: runs a function in a forked child that sees a tmpfs (or an ext4 file system on a
// loop device) of a given size, mounted in a mount namespace of its own (so no other process,
// test or engineer sees it), to check what the flight recorder and the log writer do on a file
// system with less room than they need.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "common/wait_or_kill.h"

namespace rastrace::testing {

struct SmallTmpfsResult {
  // Why the file system could not be made (no privilege for a mount namespace): the test skips.
  std::optional<std::string> unavailable;
  int status = -1;  // the child's wait status; -1 when it hung and was killed
};

// Runs `mount()`, then `body()`, in a forked child with a mount namespace of its own (private
// from /), so that nothing it mounts is seen elsewhere. Returns the child's wait status, nullopt
// when it hung and was killed. Exit status 77: the namespace was refused; 78: `mount` failed.
inline std::optional<int> RunInOwnMountNamespace(const std::function<bool()>& mount_step,
                                                 const std::function<int()>& body) {
  const pid_t child = fork();
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      _exit(77);
    }
    if (!mount_step()) _exit(78);
    _exit(body());
  }
  return WaitOrKill(child, std::chrono::minutes(1));
}

inline bool ExitedWith(const std::optional<int>& status, int code) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

// `body(dir)` runs in the child with `bytes` of tmpfs mounted at `dir` (mode 0700); its return
// value is the child's exit status. Exit status 77 or 78 from the child before `body` runs means
// the namespace or mount was refused.
inline SmallTmpfsResult RunWithSmallTmpfs(size_t bytes,
                                          const std::function<int(const std::string&)>& body) {
  std::string pattern = "/tmp/rastrace-small-tmpfs-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return {"cannot create a directory in /tmp", 0};
  const std::string dir = pattern;
  const std::optional<int> status = RunInOwnMountNamespace(
      [&] {
        const std::string data = "size=" + std::to_string(bytes) + ",mode=0700";
        return mount("tmpfs", dir.c_str(), "tmpfs", 0, data.c_str()) == 0;
      },
      [&] { return body(dir); });
  rmdir(dir.c_str());
  if (!status) return {std::nullopt, -1};  // hung: killed, and the test fails
  if (ExitedWith(status, 77) || ExitedWith(status, 78)) {
    return {"cannot mount a tmpfs in a private mount namespace (needs CAP_SYS_ADMIN)", *status};
  }
  return {std::nullopt, *status};
}

// The same with an ext4 file system of `bytes` (an image file in /tmp on a loop device, which
// `mount -o loop` frees again when the mount namespace ends): a disk file system, where the log
// writer uses O_DIRECT. Skips (`unavailable`) without root, mkfs.ext4, mount or loop devices.
inline SmallTmpfsResult RunWithSmallExt4(size_t bytes,
                                         const std::function<int(const std::string&)>& body) {
  if (geteuid() != 0) return {"not root: cannot mount a loop device", 0};
  if (access("/dev/loop-control", F_OK) != 0) return {"no loop devices (/dev/loop-control)", 0};
  std::string mkfs;
  for (const char* candidate : {"/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"}) {
    if (access(candidate, X_OK) == 0) mkfs = candidate;
  }
  if (mkfs.empty()) return {"no mkfs.ext4 (e2fsprogs)", 0};
  std::string mount_command;
  for (const char* candidate : {"/usr/bin/mount", "/bin/mount"}) {
    if (access(candidate, X_OK) == 0) mount_command = candidate;
  }
  if (mount_command.empty()) return {"no mount(8) to set up the loop device", 0};
  std::string pattern = "/tmp/rastrace-small-ext4-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return {"cannot create a directory in /tmp", 0};
  const std::string base = pattern;
  const std::string image = base + "/image";
  const std::string dir = base + "/mnt";
  std::optional<std::string> unavailable;
  const int image_fd = open(image.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool made = image_fd >= 0 && ftruncate(image_fd, static_cast<off_t>(bytes)) == 0 &&
                    mkdir(dir.c_str(), 0700) == 0;
  if (image_fd >= 0) close(image_fd);
  int status = -1;
  if (!made) {
    unavailable = "cannot create the image file in " + base;
  } else if (std::system((mkfs + " -q -F " + image + " >/dev/null 2>&1").c_str()) != 0) {
    unavailable = "mkfs.ext4 failed on a " + std::to_string(bytes) + "-byte image";
  } else {
    const std::optional<int> waited = RunInOwnMountNamespace(
        [&] {
          const std::string command = mount_command + " -o loop " + image + " " + dir;
          return std::system(command.c_str()) == 0 && chmod(dir.c_str(), 0700) == 0;
        },
        [&] { return body(dir); });
    if (ExitedWith(waited, 77)) {
      unavailable = "cannot make a private mount namespace (needs CAP_SYS_ADMIN)";
    } else if (ExitedWith(waited, 78)) {
      unavailable = "cannot mount the ext4 image on a loop device";
    }
    status = waited ? *waited : -1;
  }
  std::error_code ignored;
  std::filesystem::remove_all(base, ignored);
  return {unavailable, status};
}

}  // namespace rastrace::testing
