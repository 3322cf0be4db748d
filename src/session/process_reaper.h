// Follows the processes attached to a session while it runs: each procs/p<pid>-<id>.lock that
// appears (inotify) gets a pidfd, and when the process ends the daemon is told at once, so that the
// rings of a killed process are recovered then rather than at trcstop (process_recovery.h). The
// processes are not the daemon's children: pidfds see them end all the same.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/result.h"

namespace rastrace::session {

class ProcessReaper {
 public:
  using Ended = std::function<void(uint64_t pid)>;
  // `ended` runs on the reaper's thread.
  static Result<std::unique_ptr<ProcessReaper>> Start(const std::string& procs_dir, Ended ended);
  ~ProcessReaper();  // stops the thread (an `ended` call in progress completes first)
  ProcessReaper(const ProcessReaper&) = delete;
  ProcessReaper& operator=(const ProcessReaper&) = delete;

 private:
  ProcessReaper(std::string procs_dir, Ended ended, int notify_fd, int wake_fd);
  void Run();

  std::string procs_dir_;
  Ended ended_;
  int notify_fd_;
  int wake_fd_;
  std::thread thread_;
};

// True when no live process has `pid` (gone, or a zombie whose parent has not reaped it).
bool ProcessHasEnded(uint64_t pid);
// The same from `stat_fd`, an open /proc/<pid>/stat: a zombie, or a process reaped since the file
// was opened (its read fails). Never throws.
bool StatSaysEnded(int stat_fd);

}  // namespace rastrace::session
