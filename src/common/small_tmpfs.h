// Tests only: runs a function in a forked child that sees a tmpfs of a given size, mounted in a
// mount namespace of its own (so no other process, test or engineer sees it), to check what the
// flight recorder and the log writer do on a file system with less room than they need.
#pragma once

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
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

// `body(dir)` runs in the child with `bytes` of tmpfs mounted at `dir` (mode 0700); its return
// value is the child's exit status. Exit status 77 from the child before `body` runs means the
// namespace or mount was refused.
inline SmallTmpfsResult RunWithSmallTmpfs(size_t bytes,
                                          const std::function<int(const std::string&)>& body) {
  std::string pattern = "/tmp/rastrace-small-tmpfs-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return {"cannot create a directory in /tmp", 0};
  const std::string dir = pattern;
  const pid_t child = fork();
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      _exit(77);
    }
    const std::string data = "size=" + std::to_string(bytes) + ",mode=0700";
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, data.c_str()) != 0) _exit(77);
    _exit(body(dir));
  }
  const std::optional<int> status = WaitOrKill(child, std::chrono::minutes(1));
  rmdir(dir.c_str());
  if (!status) return {std::nullopt, -1};  // hung: killed, and the test fails
  if (WIFEXITED(*status) && WEXITSTATUS(*status) == 77) {
    return {"cannot mount a tmpfs in a private mount namespace (needs CAP_SYS_ADMIN)", *status};
  }
  return {std::nullopt, *status};
}

}  // namespace rastrace::testing
