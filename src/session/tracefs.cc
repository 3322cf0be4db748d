#include "session/tracefs.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "session/kernel_events.h"

namespace rastrace::session {

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Replaces the file's content (for tracefs: sets the value), or with `append` adds to it (for a
// pid list: adds pids).
Result<void> WriteFile(const std::string& path, std::string_view text, bool append = false) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
  if (fd < 0) return MakeError("{}: {}", path, std::strerror(errno));
  const ssize_t written = write(fd, text.data(), text.size());
  const int saved = errno;
  close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    return MakeError("{}: {}", path, std::strerror(saved));
  }
  return Ok();
}

}  // namespace

Result<std::string> FindTracefs() {
  for (const char* dir : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (Exists(std::string(dir) + "/instances")) return std::string(dir);
  }
  if (geteuid() != 0) return MakeError("kernel events need root (tracefs is not accessible)");
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
    return MakeError("cannot mount tracefs on /sys/kernel/tracing: {}", std::strerror(errno));
  }
  if (Exists("/sys/kernel/tracing/instances")) return std::string("/sys/kernel/tracing");
  return MakeError("tracefs has no instances directory");
}

void RemoveStaleInstances(const std::string& tracefs) {
  const std::string dir = tracefs + "/instances";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (dirent* entry = readdir(d)) {
    std::string_view name = entry->d_name;
    if (!name.starts_with("rastrace-")) continue;
    const long pid = std::strtol(entry->d_name + 9, nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      stale.emplace_back(name);
    }
  }
  closedir(d);
  for (const std::string& name : stale) {
    // The destructor turns the instance off and removes it.
    TracefsInstance gone(dir + "/" + name, -1);
  }
}

Result<TracefsInstance> TracefsInstance::Create(const std::string& tracefs, const std::string& name,
                                                const std::bitset<65536>& allowed,
                                                uint64_t buffer_kb, std::span<const unsigned> cpus,
                                                const std::string& clock) {
  const std::string path = tracefs + "/instances/" + name;
  if (mkdir(path.c_str(), 0700) != 0) {
    return MakeError("{}: cannot create the tracefs instance: {}", path, std::strerror(errno));
  }
  // From here on the destructor removes the instance, whatever fails.
  TracefsInstance instance(path, -1);
  if (auto r = WriteFile(path + "/tracing_on", "0"); !r) return r.error();
  if (auto r = WriteFile(path + "/trace_clock", clock); !r) return r.error();
  (void)WriteFile(path + "/options/record-tgid", "1");
  if (buffer_kb != 0) (void)WriteFile(path + "/buffer_size_kb", std::to_string(buffer_kb));
  if (!cpus.empty()) {
    // cpumask in hex, lowest cpu in the last digit.
    std::vector<uint32_t> words;
    for (unsigned cpu : cpus) {
      if (words.size() <= cpu / 32) words.resize(cpu / 32 + 1, 0);
      words[cpu / 32] |= 1u << (cpu % 32);
    }
    std::string mask;
    for (size_t i = words.size(); i-- > 0;) {
      mask += fmt::format("{:08x}", words[i]);
      if (i != 0) mask += ",";
    }
    if (auto r = WriteFile(path + "/tracing_cpumask", mask); !r) return r.error();
  }
  // The tracepoints this kernel has (one per system call among them), each enabled on its own:
  // -j/-k may leave out entries or returns.
  for (const std::string& tracepoint : KernelTracepoints(path + "/events", allowed)) {
    if (WriteFile(path + "/events/" + tracepoint + "/enable", "1")) {
      instance.tracepoints_.push_back(tracepoint);
    }
  }
  if (instance.tracepoints_.empty()) {
    return MakeError("no kernel tracepoint could be enabled in {}", path);
  }
  instance.pipe_fd_ = open((path + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (instance.pipe_fd_ < 0) {
    return MakeError("{}/trace_pipe: {}", path, std::strerror(errno));
  }
  return instance;
}

TracefsInstance::TracefsInstance(TracefsInstance&& other) noexcept
    : path_(std::move(other.path_)),
      pipe_fd_(other.pipe_fd_),
      excluded_(std::move(other.excluded_)),
      tracepoints_(std::move(other.tracepoints_)) {
  other.path_.clear();
  other.pipe_fd_ = -1;
}

TracefsInstance::~TracefsInstance() {
  if (pipe_fd_ >= 0) close(pipe_fd_);
  if (path_.empty()) return;
  (void)WriteFile(path_ + "/tracing_on", "0");
  // Every event of the instance in one write (hundreds of system call events).
  (void)WriteFile(path_ + "/events/enable", "0");
  // The kernel refuses while a reader still holds the instance open: retry briefly.
  for (int attempt = 0; attempt < 50 && rmdir(path_.c_str()) != 0 && errno == EBUSY; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Result<void> TracefsInstance::SetTracing(bool on) {
  return WriteFile(path_ + "/tracing_on", on ? "1" : "0");
}

Result<void> TracefsInstance::ExcludeTasks(std::span<const uint32_t> tids) {
  std::string list;
  for (uint32_t tid : tids) {
    if (std::find(excluded_.begin(), excluded_.end(), tid) != excluded_.end()) continue;
    excluded_.push_back(tid);
    list += std::to_string(tid) + " ";
  }
  if (list.empty()) return Ok();
  // Since Linux 5.8. Without the append flag the write would replace the list.
  const std::string notrace = path_ + "/set_event_notrace_pid";
  if (!Exists(notrace)) {
    return MakeError("this kernel has no {} (Linux 5.8 and later have it)", notrace);
  }
  if (auto r = WriteFile(notrace, list, /*append=*/true); !r) return r.error();
  // A switch is written in the context of the task switched out, but it names the task switched
  // in too: the pid list keeps a switch unless both tasks are excluded.
  const std::string filter = path_ + "/events/sched/sched_switch/filter";
  if (!Exists(filter)) return Ok();
  std::string expression;
  for (uint32_t tid : excluded_) {
    if (!expression.empty()) expression += " && ";
    expression += fmt::format("prev_pid != {} && next_pid != {}", tid, tid);
  }
  return WriteFile(filter, expression);
}

Result<void> TracefsInstance::SetWakeupPercent(unsigned percent) {
  return WriteFile(path_ + "/buffer_percent", std::to_string(percent));
}

uint64_t TracefsInstance::LostEvents() const {
  uint64_t lost = 0;
  for (unsigned cpu = 0;; ++cpu) {
    std::ifstream stats(path_ + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
    if (!stats) break;
    std::string line;
    while (std::getline(stats, line)) {
      // "overrun: N" (overwritten) and "dropped events: N" (refused when full).
      for (const char* key : {"overrun: ", "dropped events: "}) {
        if (line.rfind(key, 0) == 0)
          lost += std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
      }
    }
  }
  return lost;
}

}  // namespace rastrace::session
