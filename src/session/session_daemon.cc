#include "session/session_daemon.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "event/format.h"
#include "recorder/clock.h"
#include "recorder/header_events.h"
#include "recorder/log_sink.h"
#include "recorder/session_page.h"
#include "session/daemon_diagnostics.h"
#include "session/event_builder.h"
#include "session/log_path.h"
#include "session/merge.h"
#include "session/process_recovery.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

using namespace std::chrono_literals;

// How long trcstop waits for attached processes to drain their buffers.
constexpr auto kDrainDeadline = 10s;
constexpr int kClientTimeoutMs = 2000;
constexpr int kReplyCheckMs = 200;  // how often a waiting client checks that the daemon lives

Result<void> MakePrivateDir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return MakeError("{}: cannot create: {}", path, std::strerror(errno));
  }
  return recorder::CheckPrivateDir(path);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Every file of `dir`, and the flight-recorder directories (p<pid>-<id>.shm) with their files.
void RemoveEntries(const std::string& dir) {
  for (const std::string& name : ListDir(dir)) {
    std::error_code ignored;
    std::filesystem::remove_all(dir + "/" + name, ignored);  // never follows a symlink
  }
}

std::string ReadSmallFile(const std::string& path, size_t limit = 64) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text(limit, '\0');
  const ssize_t n = read(fd, text.data(), limit);
  close(fd);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return text;
}

std::string TaskName(uint32_t pid) {
  std::string name = ReadSmallFile("/proc/" + std::to_string(pid) + "/comm");
  if (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

// 00A/100 for every thread running now, and with -n 00A/106 for every executable mapping.
std::vector<uint8_t> ProcessTableEvents(std::span<const std::pair<uint32_t, uint32_t>> threads,
                                        bool symbols) {
  std::vector<uint8_t> out;
  uint32_t last_pid = 0;
  std::string path;
  uint32_t ppid = 0;
  for (auto [tid, pid] : threads) {
    if (pid != last_pid) {
      last_pid = pid;
      path = ExePath(pid);
      if (path.empty()) path = TaskName(pid);  // kernel threads have no executable
      ppid = ParentPid(pid);
      if (symbols) {
        // Loader entries: start address and path of each executable mapping.
        const int fd =
            open(("/proc/" + std::to_string(pid) + "/maps").c_str(), O_RDONLY | O_CLOEXEC);
        std::string maps;
        if (fd >= 0) {
          char chunk[4096];
          ssize_t n;
          while ((n = read(fd, chunk, sizeof chunk)) > 0 && maps.size() < (1u << 20)) {
            maps.append(chunk, static_cast<size_t>(n));
          }
          close(fd);
        }
        std::string_view rest = maps;
        while (!rest.empty()) {
          std::string_view line = rest.substr(0, rest.find('\n'));
          rest.remove_prefix(std::min(rest.size(), line.size() + 1));
          // "start-end perms offset dev inode path"
          const size_t perms = line.find(' ');
          if (perms == std::string_view::npos || line.size() < perms + 4 || line[perms + 3] != 'x')
            continue;
          const size_t slash = line.find('/');
          if (slash == std::string_view::npos) continue;
          std::vector<uint8_t> buffer;
          AppendU64(ParseNumber(line.substr(0, line.find('-')), 16).value_or(0), buffer);
          AppendS2(line.substr(slash), buffer);
          AppendGeneric(event::kHookUtil, kUtilLoaderEntry, pid, buffer, pid, 0, false, out);
        }
      }
    }
    AppendProcessEvent(pid, ppid, tid, path, 0, out);
  }
  return out;
}

void FutexWakeAll(uint32_t* word) {
  syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads one line (up to kMaxLine bytes) within `timeout_ms`.
Result<std::string> ReadLine(int fd, int timeout_ms) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (line.empty() || line.back() != '\n') {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return MakeError("no answer within {} ms", timeout_ms);
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char c;
    const ssize_t n = recv(fd, &c, 1, 0);
    if (n <= 0) return MakeError("connection closed");
    line.push_back(c);
    if (line.size() > kMaxLine) return MakeError("line longer than {} bytes", kMaxLine);
  }
  return line;
}

std::string SocketPath(const std::string& dir) {
  return dir + "/control";
}

// The pid the daemon of channel directory `dir` wrote into its lock file (0 when unknown).
pid_t DaemonPid(const std::string& dir) {
  std::string text = ReadSmallFile(dir + "/lock");
  text = text.substr(0, text.find('\n'));
  return static_cast<pid_t>(ParseNumber(text).value_or(0));
}

// The daemon holds an flock on chN/lock as long as it runs (released by the kernel when it
// exits, also while it is a zombie nobody reaps; a reused pid cannot fool it).
bool DaemonRuns(const std::string& dir) {
  const int fd = open((dir + "/lock").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return held;
}

// What a daemon that died left in its daemon.err (its stderr), for the client's message: the
// daemon is not the client's child, so its wait status is not known, but its fatal-signal line is.
std::string LastWords(const std::string& dir) {
  const std::string tail = DaemonErrTail(dir);
  if (tail.empty()) return fmt::format("; {} is empty", DaemonErrPath(dir));
  return fmt::format("; the end of {}:\n{}", DaemonErrPath(dir), tail);
}

// The daemon's reply. A trcstop may take long (draining processes, a slow or loaded machine), so
// there is no fixed deadline: the client waits as long as the daemon that holds the channel lives.
Result<std::string> ReadReply(int fd, const std::string& dir) {
  const pid_t daemon = DaemonPid(dir);
  std::string line;
  while (line.empty() || line.back() != '\n') {
    pollfd pfd{fd, POLLIN, 0};
    const int ready = poll(&pfd, 1, kReplyCheckMs);
    if (ready < 0 && errno != EINTR) return MakeError("poll: {}", std::strerror(errno));
    if (ready <= 0) {
      if (!DaemonRuns(dir)) {
        return MakeError("the session daemon (pid {}) ended without answering{}", daemon,
                         LastWords(dir));
      }
      continue;
    }
    char c;
    const ssize_t n = recv(fd, &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // A daemon that dies closes its sockets and its lock in no set order: give the lock a
      // moment, so that a death is reported as one.
      bool runs = DaemonRuns(dir);
      for (int i = 0; i < 100 && runs; ++i) {
        std::this_thread::sleep_for(10ms);
        runs = DaemonRuns(dir);
      }
      return MakeError("the session daemon (pid {}) closed the connection without answering ({}){}",
                       daemon, runs ? "it still runs" : "it has ended",
                       runs ? std::string() : LastWords(dir));
    }
    line.push_back(c);
    if (line.size() > kMaxLine) return MakeError("line longer than {} bytes", kMaxLine);
  }
  return line;
}

}  // namespace

Result<std::unique_ptr<SessionDaemon>> SessionDaemon::Create(const SessionConfig& config,
                                                             const std::string& base_dir) {
  if (auto made = MakePrivateDir(base_dir); !made)
    return MakeError("trace: {}", made.error().message);
  const unsigned first = config.generic ? 1 : 0;
  const unsigned last = config.generic ? recorder::kSessionChannels - 1 : 0;
  std::string busy;
  for (unsigned channel = first; channel <= last; ++channel) {
    const std::string dir = recorder::SessionChannelDir(base_dir, channel);
    if (auto made = MakePrivateDir(dir); !made) return MakeError("trace: {}", made.error().message);
    const std::string lock_path = dir + "/lock";
    auto opened = recorder::OpenPrivateFile(lock_path, O_RDWR | O_CREAT);
    if (!opened) return MakeError("trace: {}", opened.error().message);
    const int fd = *opened;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      std::string pid = ReadSmallFile(lock_path);
      while (!pid.empty() && pid.back() == '\n') pid.pop_back();
      busy = fmt::format("channel {} (trace daemon pid {})", channel, pid.empty() ? "?" : pid);
      close(fd);
      continue;
    }
    if (ftruncate(fd, 0) == 0) {
      const std::string me = std::to_string(getpid()) + "\n";
      (void)!pwrite(fd, me.data(), me.size(), 0);
    }
    return std::unique_ptr<SessionDaemon>(new SessionDaemon(config, channel, dir, fd));
  }
  if (config.generic) {
    return MakeError("trace: every generic channel (1-7) is in use; stop one with trcstop -N");
  }
  return MakeError("trace: a trace session is already running on {}; stop it with trcstop first",
                   busy);
}

SessionDaemon::SessionDaemon(SessionConfig config, unsigned channel, std::string dir, int lock_fd)
    : config_(std::move(config)), channel_(channel), dir_(std::move(dir)), lock_fd_(lock_fd) {}

SessionDaemon::~SessionDaemon() {
  if (!stopped_.load() && page_ != nullptr) (void)Stop();
  server_quit_.store(true);
  if (server_.joinable()) server_.join();
  StopReaper();
  Cleanup();
  // A client may have connected after Serve's last look and before Cleanup removed the socket's
  // name (while Stop wrote the log, which can take seconds): answered here, not dropped when the
  // socket closes. No one can connect any more, so this empties the backlog for good.
  if (listen_fd_ >= 0 && stopped_.load()) AnswerPending();
  // Closed only here: Serve may still be polling it until its thread is joined.
  if (listen_fd_ >= 0) close(listen_fd_);
  if (lock_fd_ >= 0) close(lock_fd_);
}

void SessionDaemon::Cleanup() {
  std::lock_guard lock(mutex_);
  // New clients now find no session; the listening socket itself closes with the daemon.
  if (listen_fd_ >= 0) unlink(SocketPath(dir_).c_str());
  kernel_.reset();
  if (page_ != nullptr) {
    __atomic_store_n(&page_->state, recorder::kSessionStopped, __ATOMIC_SEQ_CST);
    Publish();
    munmap(page_, sizeof(recorder::SessionPage));
    page_ = nullptr;
    unlink((dir_ + "/page").c_str());
    unlink((dir_ + "/page.new").c_str());
  }
}

void SessionDaemon::Publish() {
  __atomic_fetch_add(&page_->generation, 1, __ATOMIC_SEQ_CST);
  FutexWakeAll(&page_->generation);
}

Result<void> SessionDaemon::Start(std::vector<std::string>& notices, bool serve_thread) {
  // Leftovers of a session that died: they belong to nobody now.
  const std::string procs = dir_ + "/procs";
  if (auto made = MakePrivateDir(procs); !made) return MakeError("trace: {}", made.error().message);
  RemoveEntries(procs);

  // The log and -C's per-cpu logs: a path the daemon must not write is refused now, not after
  // the session ran (log_path.h).
  if (config_.log.log_path != "-") {
    std::vector<std::string> paths{config_.log.log_path};
    if (config_.per_cpu) {
      std::vector<uint32_t> cpus(config_.cpus.begin(), config_.cpus.end());
      if (cpus.empty()) {
        const long count = sysconf(_SC_NPROCESSORS_CONF);
        for (long cpu = 0; cpu < count; ++cpu) cpus.push_back(static_cast<uint32_t>(cpu));
      }
      for (uint32_t cpu : cpus) paths.push_back(config_.log.log_path + "-" + std::to_string(cpu));
    }
    for (const std::string& path : paths) {
      if (auto checked = CheckLogPath(path); !checked) {
        return MakeError("trace: {}", checked.error().message);
      }
    }
  }

  // One clock for the kernel, every attached process and the daemon: the invariant TSC when the
  // CPU has one and tracefs offers it (the cheapest for hooks), else CLOCK_MONOTONIC.
  bool tsc = recorder::HasInvariantTsc();
  if (tsc && channel_ == 0 && config_.kernel) {
    if (auto tracefs = FindTracefs()) {
      tsc = ReadSmallFile(*tracefs + "/trace_clock", 4096).find("x86-tsc") != std::string::npos;
    }
  }
  clock_ = tsc ? recorder::ClockChoice::kTsc : recorder::ClockChoice::kMonotonic;
  recorder::SelectClock(clock_);
  conversion_ = recorder::CalibrateClock(std::chrono::milliseconds(10));
  start_timestamp_ = recorder::Now();
  start_wall_ns_ = recorder::RealtimeNanoseconds();

  // The daemon is not part of what it records: neither in the process table nor in the kernel's
  // events (below).
  auto threads = RunningThreads();
  const uint32_t me = static_cast<uint32_t>(getpid());
  std::erase_if(threads, [me](const auto& thread) { return thread.second == me; });
  process_table_ = ProcessTableEvents(threads, config_.symbols);

  // -j / -k may leave no kernel hook to record: then there is nothing to ask the kernel for.
  const auto sources = KernelSources();
  const bool kernel_hooks_wanted = std::any_of(
      sources.begin(), sources.end(), [&](const auto& s) { return config_.allowed.test(s.hook); });
  if (channel_ == 0 && config_.kernel && kernel_hooks_wanted) {
    auto tracefs = FindTracefs();
    if (!tracefs) {
      notices.push_back(fmt::format(
          "trace: kernel events are not recorded ({}); only the hooks of programs linked with "
          "librastrace are",
          tracefs.error().message));
    } else {
      RemoveStaleInstances(*tracefs);
      const uint64_t buffer_kb = std::max<uint64_t>(config_.log.buffer_bytes / 1024, 64);
      // RASTRACE_KERNEL_READER=text: the text trace_pipe even where the binary buffers work.
      const char* reader = std::getenv("RASTRACE_KERNEL_READER");
      const bool binary = reader == nullptr || std::string_view(reader) != "text";
      std::string reader_notice;
      auto kernel = KernelCollector::Start(*tracefs, "rastrace-" + std::to_string(getpid()),
                                           procs + "/kernel.trc", config_.allowed, buffer_kb,
                                           config_.cpus, config_.per_cpu, tsc ? "x86-tsc" : "mono",
                                           threads, binary, reader_notice);
      if (!reader_notice.empty()) notices.push_back(reader_notice);
      if (!kernel) {
        notices.push_back(fmt::format(
            "trace: kernel events are not recorded ({}); only the hooks of programs linked with "
            "librastrace are",
            kernel.error().message));
      } else {
        kernel_ = std::move(*kernel);
      }
    }
  }

  event::WriterOptions writer_options;
  writer_options.overwrite = true;
  auto own = event::LogWriter::Create(procs + "/daemon.trc", writer_options);
  if (!own) return own.error();
  own_events_.emplace(std::move(*own));

  // The page goes last: it is made under another name and renamed into place once it says
  // "running", so a process that finds "page" finds it ready.
  const std::string page_path = dir_ + "/page.new";
  unlink(page_path.c_str());
  unlink((dir_ + "/page").c_str());
  const int fd = open(page_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return MakeError("trace: {}: {}", page_path, std::strerror(errno));
  void* map = MAP_FAILED;
  if (ftruncate(fd, sizeof(recorder::SessionPage)) == 0) {
    map = mmap(nullptr, sizeof(recorder::SessionPage), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (map == MAP_FAILED) return MakeError("trace: {}: {}", page_path, std::strerror(errno));
  page_ = static_cast<recorder::SessionPage*>(map);
  page_->magic = recorder::kSessionPageMagic;
  page_->version = recorder::kSessionPageVersion;
  page_->channel = channel_;
  page_->mode = static_cast<uint32_t>(config_.log.mode);
  page_->buffer_bytes = config_.log.buffer_bytes;
  page_->daemon_pid = static_cast<uint32_t>(getpid());
  page_->filter_active = config_.filter_active ? 1 : 0;
  page_->clock = static_cast<uint32_t>(clock_);
  for (uint32_t id = 0; id < 65536; ++id) {
    if (config_.allowed.test(id)) page_->allowed[id / 64] |= uint64_t{1} << (id % 64);
  }

  const std::string socket_path = SocketPath(dir_);
  unlink(socket_path.c_str());
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) {
    return MakeError("trace: {}: path too long for a socket", socket_path);
  }
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const mode_t old_mask = umask(077);
  const int bound = bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  umask(old_mask);
  if (bound != 0 || listen(listen_fd_, 16) != 0) {
    return MakeError("trace: {}: {}", socket_path, std::strerror(errno));
  }
  chmod(socket_path.c_str(), 0600);

  // Without a reaper (no inotify or pidfd) killed processes are recovered at trcstop all the same.
  if (auto reaper = ProcessReaper::Start(procs, [this](uint64_t pid) { ProcessEnded(pid); })) {
    std::lock_guard lock(reaper_mutex_);
    reaper_ = std::move(*reaper);
  }
  if (serve_thread) server_ = std::thread([this] { Serve(server_quit_); });
  // Every thread of the daemon exists now: the kernel drops their events from the start.
  if (kernel_) {
    const auto own = ThreadsOf(me);
    if (auto excluded = kernel_->ExcludeTasks(own); !excluded) {
      notices.push_back("trace: the daemon's own kernel events are recorded too: " +
                        excluded.error().message);
    }
  }

  __atomic_store_n(&page_->state, recorder::kSessionRunning, __ATOMIC_SEQ_CST);
  if (!config_.defer) {
    if (auto on = SetTracing(true); !on) return on.error();
  }
  Publish();
  if (rename(page_path.c_str(), (dir_ + "/page").c_str()) != 0) {
    return MakeError("trace: {}: {}", page_path, std::strerror(errno));
  }
  // Processes that were running before the session wait on this word to join it.
  recorder::WakeSessionWaiters(dir_.substr(0, dir_.rfind('/')));
  return Ok();
}

Result<void> SessionDaemon::SetTracing(bool on) {
  std::lock_guard lock(mutex_);
  if (stopped_.load() || page_ == nullptr) return MakeError("the session has stopped");
  if (on == on_) return Ok();
  on_ = on;
  const uint64_t now = recorder::Now();
  std::vector<uint8_t> event;
  AppendWords(on ? event::kHookTraceOn : event::kHookTraceOff, 0, {channel_},
              static_cast<uint64_t>(gettid()), now, true, event);
  if (auto written = own_events_->WriteEncoded(event); !written) return written.error();
  (void)own_events_->Flush();
  __atomic_store_n(&page_->channels_on, on ? (1u << channel_) : 0u, __ATOMIC_SEQ_CST);
  Publish();
  if (kernel_) {
    if (auto r = kernel_->SetTracing(on); !r) return r.error();
  }
  return Ok();
}

std::vector<std::string> SessionDaemon::WaitForProcesses(uint64_t& processes,
                                                         std::vector<uint64_t>& finished) {
  std::vector<std::string> warnings;
  const std::string procs = dir_ + "/procs";
  const auto deadline = std::chrono::steady_clock::now() + kDrainDeadline;
  std::vector<std::string> drained;
  // A process that read "running" just before the stop may create its lock a moment later:
  // list again until a listing brings nothing new.
  for (;;) {
    bool found_new = false;
    for (const std::string& name : ListDir(procs)) {
      if (!name.ends_with(".lock") ||
          std::find(drained.begin(), drained.end(), name) != drained.end())
        continue;
      found_new = true;
      drained.push_back(name);
      const int fd = open((procs + "/" + name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) continue;
      bool locked = true;
      while (flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          warnings.push_back(
              fmt::format("trace: {} did not finish its log in time; what it wrote "
                          "so far is in the report",
                          name));
          locked = false;
          break;
        }
        std::this_thread::sleep_for(2ms);
      }
      close(fd);
      // The process completed its log or died: either way it writes nothing more.
      if (locked) finished.push_back(PidFromLogName(name.substr(0, name.size() - 5) + ".trc"));
    }
    if (!found_new) break;
    std::this_thread::sleep_for(20ms);
  }
  processes = drained.size();
  return warnings;
}

void SessionDaemon::ProcessEnded(uint64_t pid) {
  // A new process may have taken the pid already: then trcstop sorts it out, by the locks.
  if (!ProcessHasEnded(pid)) return;
  std::lock_guard lock(mutex_);
  if (stopped_.load()) return;
  const uint64_t finished[] = {pid};
  RecoveryTotals recovered = RecoverEndedProcesses(dir_ + "/procs", finished);
  early_recovery_.processes += recovered.processes;
  early_recovery_.events += recovered.events;
  early_recovery_.lost += recovered.lost;
  for (auto& message : recovered.messages) early_recovery_.messages.push_back(std::move(message));
}

void SessionDaemon::StopReaper() {
  // Not under mutex_: the reaper's thread may be waiting for it.
  std::lock_guard lock(reaper_mutex_);
  reaper_.reset();
}

Result<StopTotals> SessionDaemon::Stop() {
  StopReaper();
  std::unique_lock lock(mutex_);
  if (stop_result_) return *stop_result_;
  if (page_ == nullptr) return MakeError("the session was never started");
  StopTotals totals;
  totals.log_path = config_.log.log_path;
  __atomic_store_n(&page_->channels_on, 0u, __ATOMIC_SEQ_CST);
  __atomic_store_n(&page_->state, recorder::kSessionStopping, __ATOMIC_SEQ_CST);
  Publish();
  std::vector<uint64_t> finished;
  totals.warnings = WaitForProcesses(totals.processes, finished);
  // Processes killed before they completed their logs: their committed events are in their rings.
  RecoveryTotals recovered = RecoverEndedProcesses(dir_ + "/procs", finished);
  totals.recovered_events = early_recovery_.events + recovered.events;
  for (auto& message : early_recovery_.messages) totals.warnings.push_back(std::move(message));
  for (auto& message : recovered.messages) totals.warnings.push_back(std::move(message));
  if (kernel_) {
    auto kernel = kernel_->Finish();
    if (!kernel) totals.warnings.push_back("trace: kernel events: " + kernel.error().message);
    kernel_.reset();
  }
  (void)own_events_->Close();
  // After the kernel's last event: TRACE OFF closes the log in time order.
  const uint64_t stop_time = recorder::Now();

  // The log: header, process table, then every event in time order, then TRACE OFF.
  recorder::SessionInfo info = recorder::GatherSessionInfo();
  info.command_line = config_.command_line;
  info.channels = 0;
  info.mode = config_.log.mode;
  info.buffer_bytes = config_.log.buffer_bytes;
  info.log_bytes = config_.log.log_bytes;
  info.start_timestamp = start_timestamp_;
  // The header's start time is the session's start, not now (the log is written at the stop).
  info.start_wall_ns = start_wall_ns_;
  info.wall_seconds = start_wall_ns_ / 1'000'000'000u;
  info.conversion = conversion_;
  if (!config_.cpus.empty()) info.cpus_traced = config_.cpus.size();
  const std::vector<uint8_t> table = process_table_;
  auto sink = recorder::LogSink::Open(
      config_.log.log_path, config_.log,
      [info, table](std::vector<uint8_t>& out) {
        recorder::AppendHeaderEvents(info, out);
        out.insert(out.end(), table.begin(), table.end());
      },
      [](uint64_t count, std::vector<uint8_t>& out) {
        recorder::AppendLogWrapped(count, static_cast<uint64_t>(gettid()), recorder::Now(), out);
      });
  Result<StopTotals> result = MakeError("trace: no log written");
  if (!sink) {
    result = MakeError("trace: {}", sink.error().message);
  } else {
    std::vector<MergeInput> inputs;
    const std::string procs = dir_ + "/procs";
    std::vector<std::pair<std::string, std::string>> cpu_logs;  // input, output
    for (const std::string& name : ListDir(procs)) {
      if (name.ends_with(".lock")) continue;
      MergeInput input{procs + "/" + name, PidFromLogName(name)};
      if (name.starts_with("kernel-") && name.ends_with(".trc")) {
        // trace -C: LOG-N holds the kernel events of cpu N.
        cpu_logs.emplace_back(input.path,
                              config_.log.log_path + "-" + name.substr(7, name.size() - 11));
        continue;
      }
      if (name == "kernel.trc" || name == "daemon.trc" || input.pid != 0) inputs.push_back(input);
    }
    auto merged = MergeLogs(inputs, *sink);
    for (const auto& [input, output] : cpu_logs) {
      auto cpu_sink = recorder::LogSink::Open(
          output, config_.log, [](std::vector<uint8_t>&) {},
          [](uint64_t count, std::vector<uint8_t>& out) {
            recorder::AppendLogWrapped(count, static_cast<uint64_t>(gettid()), recorder::Now(),
                                       out);
          });
      if (!cpu_sink) {
        totals.warnings.push_back("trace: " + cpu_sink.error().message);
        totals.failed_logs.push_back(output);
        continue;
      }
      const MergeInput cpu_input{input, 0};
      auto cpu_merged = MergeLogs(std::span(&cpu_input, 1), *cpu_sink);
      if (cpu_merged) {
        totals.events += cpu_merged->events;
        totals.dropped_by_log += cpu_merged->dropped_by_log;
      }
      if (auto closed = cpu_sink->Close(); !closed) {
        totals.warnings.push_back("trace: " + closed.error().message);
        totals.failed_logs.push_back(output);
      }
    }
    std::vector<uint8_t> trailer;
    recorder::AppendTraceOff(channel_, static_cast<uint64_t>(gettid()), stop_time, trailer);
    sink->AppendTrailer(trailer);
    auto closed = sink->Close();
    if (!merged) {
      result = merged.error();
    } else if (!closed) {
      result = closed.error();
    } else {
      totals.events += merged->events;
      totals.lost_events += merged->lost_events;
      totals.dropped_by_log += merged->dropped_by_log;
      for (auto& w : merged->warnings) totals.warnings.push_back("trace: " + w);
      result = totals;
    }
    RemoveEntries(procs);
  }
  stopped_.store(true);
  stop_result_ = result;
  lock.unlock();
  Cleanup();
  return result;
}

Reply SessionDaemon::Handle(Command command) {
  switch (command) {
    case Command::kOn:
    case Command::kOff: {
      auto r = SetTracing(command == Command::kOn);
      if (!r) return {false, r.error().message};
      return {true, command == Command::kOn ? "tracing on" : "tracing off"};
    }
    case Command::kStatus: {
      std::lock_guard lock(mutex_);
      return {true, fmt::format("channel {} {} log {}", channel_, on_ ? "on" : "off",
                                config_.log.log_path)};
    }
    case Command::kStop: {
      auto r = Stop();
      if (!r) return {false, r.error().message};
      std::string text =
          fmt::format("log {} events {} lost {}", r->log_path, r->events, r->lost_events);
      for (const auto& w : r->warnings) text += "; " + w;
      // A per-cpu log that could not be written: the session's result is incomplete.
      if (!r->failed_logs.empty()) {
        text += fmt::format("; not written: {}", fmt::join(r->failed_logs, ", "));
        return {false, text};
      }
      return {true, text};
    }
  }
  return {false, "unknown request"};
}

void SessionDaemon::Answer(int client) {
  ucred peer{};
  socklen_t length = sizeof peer;
  Reply reply;
  if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 ||
      (peer.uid != geteuid() && peer.uid != 0)) {
    reply = {false, "permission denied: the session belongs to another user"};
  } else if (auto line = ReadLine(client, kClientTimeoutMs); !line) {
    reply = {false, line.error().message};
  } else if (auto command = ParseRequest(*line); !command) {
    reply = {false, command.error().message};
  } else {
    reply = Handle(*command);
  }
  WriteAll(client, FormatReply(reply));
  close(client);
}

void SessionDaemon::Serve(const std::atomic<bool>& quit) {
  while (!quit.load() && !stopped_.load()) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client >= 0) Answer(client);
  }
  AnswerPending();
}

void SessionDaemon::AnswerPending() {
  // Requests that connected while the session ended (a trcstop racing a signal, or a second
  // trcstop) are answered, not dropped: a trcstop that finds the session stopped gets its totals.
  for (;;) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 0) <= 0) break;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) break;
    Answer(client);
  }
}

Result<Reply> SendRequest(const std::string& base_dir, unsigned channel, Command command) {
  const std::string dir = recorder::SessionChannelDir(base_dir, channel);
  const std::string socket_path = SocketPath(dir);
  if (auto checked = recorder::CheckPrivateDir(base_dir); !checked) {
    if (errno == ENOENT) return MakeError("no trace session is running (channel {})", channel);
    return checked.error();
  }
  struct stat st;
  if (lstat(socket_path.c_str(), &st) != 0) {
    return MakeError("no trace session is running (channel {})", channel);
  }
  if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
    return MakeError("{}: not a session socket of uid {}", socket_path, geteuid());
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path)
    return MakeError("{}: path too long", socket_path);
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int saved = errno;
    close(fd);
    if (saved == ECONNREFUSED || saved == ENOENT) {
      // The socket is still there but nobody listens: its daemon died without cleaning up.
      if (saved == ECONNREFUSED && !DaemonRuns(dir)) {
        return MakeError("no trace session is running (channel {}): its daemon (pid {}) died{}",
                         channel, DaemonPid(dir), LastWords(dir));
      }
      return MakeError("no trace session is running (channel {})", channel);
    }
    return MakeError("{}: {}", socket_path, std::strerror(saved));
  }
  Result<Reply> reply = MakeError("no reply");
  if (!WriteAll(fd, FormatRequest(command))) {
    reply = MakeError("{}: cannot send the request", socket_path);
  } else if (auto line = ReadReply(fd, dir); !line) {
    reply = MakeError("{}: {}", socket_path, line.error().message);
  } else {
    reply = ParseReply(*line);
  }
  close(fd);
  return reply;
}

}  // namespace rastrace::session
