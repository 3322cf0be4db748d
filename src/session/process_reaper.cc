#include "session/process_reaper.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "session/merge.h"

namespace rastrace::session {

namespace {

int PidfdOpen(uint64_t pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
}

}  // namespace

bool StatSaysEnded(int stat_fd) {
  // read(2), not a stream: /proc/<pid>/stat of a process reaped since it was opened fails with
  // ESRCH, and libstdc++'s filebuf throws on a read error; on the reaper's thread that exception
  // ended the daemon with std::terminate (issue #7).
  char buffer[1024];
  ssize_t n;
  do {
    n = pread(stat_fd, buffer, sizeof buffer, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return true;  // gone: nothing left to read
  // "pid (comm) S ...": the state follows the last ')'; comm may hold blanks and parentheses.
  const std::string_view stat(buffer, static_cast<size_t>(n));
  const size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos || paren + 2 >= stat.size()) return true;
  const char state = stat[paren + 2];
  return state == 'Z' || state == 'X';
}

bool ProcessHasEnded(uint64_t pid) {
  if (pid == 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  const int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ESRCH;
  const bool ended = StatSaysEnded(fd);
  close(fd);
  return ended;
}

Result<std::unique_ptr<ProcessReaper>> ProcessReaper::Start(const std::string& procs_dir,
                                                            Ended ended) {
  const int notify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (notify < 0) return MakeError("inotify: {}", std::strerror(errno));
  if (inotify_add_watch(notify, procs_dir.c_str(), IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
    const int error = errno;
    close(notify);
    return MakeError("{}: cannot watch: {}", procs_dir, std::strerror(error));
  }
  const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    close(notify);
    return MakeError("eventfd: {}", std::strerror(errno));
  }
  std::unique_ptr<ProcessReaper> reaper(
      new ProcessReaper(procs_dir, std::move(ended), notify, wake));
  reaper->thread_ = std::thread([r = reaper.get()] { r->Run(); });
  return reaper;
}

ProcessReaper::ProcessReaper(std::string procs_dir, Ended ended, int notify_fd, int wake_fd)
    : procs_dir_(std::move(procs_dir)),
      ended_(std::move(ended)),
      notify_fd_(notify_fd),
      wake_fd_(wake_fd) {}

ProcessReaper::~ProcessReaper() {
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  close(notify_fd_);
  close(wake_fd_);
}

void ProcessReaper::Run() {
  prctl(PR_SET_NAME, "rastrace-reaper");
  std::map<int, uint64_t> pidfds;  // pidfd -> pid
  std::set<std::string> seen;
  auto scan = [&] {
    DIR* dir = opendir(procs_dir_.c_str());
    if (dir == nullptr) return;
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (!name.ends_with(".lock") || !seen.insert(name).second) continue;
      const uint64_t pid = PidFromLogName(name.substr(0, name.size() - 5) + ".trc");
      if (pid == 0) continue;
      const int fd = PidfdOpen(pid);
      if (fd >= 0) {
        pidfds[fd] = pid;
      } else if (errno == ESRCH) {
        ended_(pid);  // gone before it could be watched
      }
    }
    closedir(dir);
  };
  scan();
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_fd_, POLLIN, 0}, {notify_fd_, POLLIN, 0}});
    for (const auto& [fd, pid] : pidfds) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) break;
    if (fds[1].revents != 0) {
      alignas(inotify_event) char events[4096];
      while (read(notify_fd_, events, sizeof events) > 0) {
      }
      scan();
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const uint64_t pid = pidfds[fds[i].fd];
      pidfds.erase(fds[i].fd);
      close(fds[i].fd);
      ended_(pid);
    }
  }
  for (const auto& [fd, pid] : pidfds) close(fd);
}

}  // namespace rastrace::session
