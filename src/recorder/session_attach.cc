// The attaching side of system-wide sessions: a process linked with librastrace and started
// without RASTRACE_LOG looks for a running session of its user, records into a log of its own in
// the session's procs/ directory with its rings in shared-memory files beside it (so the daemon
// can recover what a killed process had committed), and follows the session's control page
// (trcon, trcoff, trcstop) from one small thread that sleeps on the page's futex word. Between
// sessions that thread sleeps on the futex word of <base>/wake, which a daemon bumps when its
// session starts, so a process already running then joins it without polling (and without a file
// descriptor the program could close under it).
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/sanitizers.h"
#include "common/started_thread.h"
#include "recorder/recorder.h"
#include "recorder/session_page.h"

namespace rastrace::recorder {

std::string SessionBaseDir() {
  if (const char* dir = std::getenv("RASTRACE_SESSION_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run != nullptr && *run == '/') {
    return std::string(run) + "/rastrace";
  }
  return SessionFallbackDir("/dev/shm", "/tmp");
}

std::string SessionFallbackDir(const std::string& memory_dir, const std::string& disk_dir) {
  // The rings of every traced thread live in files here (4 MiB each, growing to 64 MiB under
  // load). On a disk the kernel writes them back, which costs the traced program I/O and dirty
  // page throttling; on a tmpfs they are memory, as the in-process rings are. A small tmpfs
  // (a container's 64 MiB /dev/shm) would refuse the rings' room, so only a large one is taken.
  // The choice depends only on the machine, so every process of the user finds the same place.
  constexpr unsigned long long kLargeTmpfs = 1ULL << 30;
  const std::string leaf = "/rastrace-" + std::to_string(geteuid());
  struct statfs fs;
  if (statfs(memory_dir.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
      static_cast<unsigned long long>(fs.f_blocks) * static_cast<unsigned long long>(fs.f_bsize) >=
          kLargeTmpfs) {
    return memory_dir + leaf;
  }
  return disk_dir + leaf;
}

std::string SessionChannelDir(const std::string& base, unsigned channel) {
  return base + "/ch" + std::to_string(channel);
}

Result<void> CheckPrivateDir(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return MakeError("{}: {}", path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return MakeError("{}: not a directory (or a symlink)", path);
  if (st.st_uid != geteuid())
    return MakeError("{}: owned by uid {}, not {}", path, st.st_uid, geteuid());
  if ((st.st_mode & 077) != 0) {
    return MakeError("{}: mode {:o} lets other users in (expected 0700)", path, st.st_mode & 0777);
  }
  return Ok();
}

Result<int> OpenPrivateFile(const std::string& path, int flags) {
  // 0600 applies when `flags` has O_CREAT.
  const int fd = open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return MakeError("{}: {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 077) != 0) {
    close(fd);
    return MakeError("{}: not a private regular file of uid {}", path, geteuid());
  }
  return fd;
}

Result<uint32_t*> MapWakeWord(const std::string& base) {
  if (mkdir(base.c_str(), 0700) != 0 && errno != EEXIST) {
    return MakeError("{}: cannot create: {}", base, std::strerror(errno));
  }
  if (auto checked = CheckPrivateDir(base); !checked) return checked.error();
  const std::string path = base + "/wake";
  auto opened = OpenPrivateFile(path, O_RDWR | O_CREAT);
  if (!opened) return opened.error();
  const int fd = *opened;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return MakeError("{}: {}", path, std::strerror(errno));
  }
  // Whoever comes first sizes it; growing only, so a concurrent creator cannot shrink it.
  void* map = MAP_FAILED;
  if (static_cast<size_t>(st.st_size) >= kWakeBytes || ftruncate(fd, kWakeBytes) == 0) {
    map = mmap(nullptr, kWakeBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  const int error = errno;
  close(fd);
  if (map == MAP_FAILED) return MakeError("{}: {}", path, std::strerror(error));
  return static_cast<uint32_t*>(map);
}

void WakeSessionWaiters(const std::string& base) {
  auto word = MapWakeWord(base);
  if (!word) return;
  __atomic_fetch_add(*word, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, *word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  munmap(*word, kWakeBytes);
}

namespace {

// How often a waiting process checks that the daemon still lives.
constexpr long kWatchTimeoutNs = 200'000'000;
// How long the waiting thread of a forked child sleeps before it looks for a session.
constexpr long kChildSettleNs = 20'000'000;

uint32_t Load(const uint32_t& word) {
  return __atomic_load_n(&word, __ATOMIC_ACQUIRE);
}

// Constant-initialized only: AttachToSession runs from a library constructor, possibly before this
// file's dynamic initializers, which would otherwise reset it afterwards.
struct Attachment {
  // Set by the attach thread; read also by the fork handler, in whichever thread forks.
  std::atomic<const SessionPage*> page;
  char procs_dir[PATH_MAX];
  char base_dir[PATH_MAX];  // taken once at load: the environment is not read from the thread
  int lock_fd;
};

// The one attachment of this process (a process attaches to at most one session at a time).
constinit Attachment g_attachment{nullptr, {}, {}, -1};

std::string UniqueName() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return "p" + std::to_string(getpid()) + "-" +
         std::to_string(static_cast<uint64_t>(now.tv_sec) * 1000000000u + now.tv_nsec);
}

// Creates and locks procs/<name>.lock; the daemon waits for the lock before merging the log.
int LockProcessFile(const std::string& procs_dir, const std::string& name) {
  const std::string path = procs_dir + "/" + name + ".lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// procs/<name>.shm: the directory of this process's flight-recorder files (and those of the
// children it forks). Empty when it cannot be made private: the process then records without
// them, and a SIGKILL loses what its writer had not yet drained.
std::string MakeShmDir(const std::string& procs_dir, const std::string& name) {
  const std::string dir = procs_dir + "/" + name + ".shm";
  if (mkdir(dir.c_str(), 0700) != 0 || !CheckPrivateDir(dir)) return {};
  return dir;
}

void Detach() {
  Recorder& recorder = Recorder::Get();
  if (recorder.recording()) (void)recorder.Stop();
  __atomic_store_n(&rastrace_channel_mask, 0, __ATOMIC_SEQ_CST);
  if (g_attachment.lock_fd >= 0) {
    flock(g_attachment.lock_fd, LOCK_UN);
    close(g_attachment.lock_fd);
    g_attachment.lock_fd = -1;
  }
  if (const SessionPage* page = g_attachment.page.exchange(nullptr); page != nullptr) {
    munmap(const_cast<SessionPage*>(page), sizeof(SessionPage));
  }
}

// Follows the page until the session stops (or its daemon is gone), then completes this process's
// log and releases its lock.
void FollowSession() {
  const SessionPage* page = g_attachment.page.load();
  uint32_t seen = Load(page->generation);
  // The channels may have changed between reading the page and starting the recorder.
  if (Load(page->state) == kSessionRunning) {
    __atomic_store_n(&rastrace_channel_mask, Load(page->channels_on), __ATOMIC_SEQ_CST);
  }
  for (;;) {
    const uint32_t state = Load(page->state);
    if (state != kSessionRunning) break;
    if (kill(static_cast<pid_t>(page->daemon_pid), 0) != 0 && errno == ESRCH) break;
    timespec timeout{0, kWatchTimeoutNs};
    syscall(SYS_futex, &page->generation, FUTEX_WAIT, seen, &timeout, nullptr, 0);
    const uint32_t now = Load(page->generation);
    if (now != seen) {
      seen = now;
      if (Load(page->state) == kSessionRunning && Recorder::Get().recording()) {
        __atomic_store_n(&rastrace_channel_mask, Load(page->channels_on), __ATOMIC_SEQ_CST);
      }
    }
  }
  Detach();
}

void StartAttachThread(bool settle_first);

RecorderOptions OptionsFromPage(const SessionPage& page, const std::string& log_path) {
  RecorderOptions options;
  options.log_path = log_path;
  options.mode = static_cast<buffer::Mode>(page.mode);
  options.buffer_bytes = page.buffer_bytes;
  // The page carries the size, not whether -T gave it: a ring of the default size may grow.
  if (page.buffer_bytes != kDefaultBufferBytes) options.buffer_max_bytes = page.buffer_bytes;
  options.channels = Load(page.channels_on);
  // One clock for every process and the kernel, so the daemon merges by timestamp.
  options.clock = static_cast<ClockChoice>(page.clock);
  if (page.filter_active != 0) {
    for (uint32_t id = 0; id < 65536; ++id) {
      if (page.allowed[id / 64] & (uint64_t{1} << (id % 64))) {
        options.include_hooks.push_back(static_cast<uint16_t>(id));
      }
    }
    if (options.include_hooks.empty()) options.exclude_hooks.push_back(0);
  }
  return options;
}

// Maps the page of channel `channel` when a session is running there.
const SessionPage* MapRunningPage(const std::string& dir) {
  auto fd = OpenPrivateFile(dir + "/page", O_RDONLY);
  if (!fd) return nullptr;
  struct stat st;
  void* map = MAP_FAILED;
  if (fstat(*fd, &st) == 0 && static_cast<size_t>(st.st_size) >= sizeof(SessionPage)) {
    map = mmap(nullptr, sizeof(SessionPage), PROT_READ, MAP_SHARED, *fd, 0);
  }
  close(*fd);
  if (map == MAP_FAILED) return nullptr;
  auto* page = static_cast<const SessionPage*>(map);
  if (page->magic == kSessionPageMagic && page->version == kSessionPageVersion &&
      Load(page->state) == kSessionRunning &&
      !(kill(static_cast<pid_t>(page->daemon_pid), 0) != 0 && errno == ESRCH)) {
    return page;
  }
  munmap(map, sizeof(SessionPage));
  return nullptr;
}

// Joins the first running session of this user (the system one first); true when joined, or when
// this process is the session's daemon (it never records into its own session).
bool TryAttach(bool at_load) {
  // A program that records on its own (trcstart) is left alone.
  if (!at_load && Recorder::Get().recording()) return false;
  const std::string base = g_attachment.base_dir;
  if (!CheckPrivateDir(base)) return false;
  for (unsigned channel = 0; channel < kSessionChannels; ++channel) {
    const std::string dir = SessionChannelDir(base, channel);
    const SessionPage* page = MapRunningPage(dir);
    if (page == nullptr) continue;
    if (page->daemon_pid == static_cast<uint32_t>(getpid())) {
      munmap(const_cast<SessionPage*>(page), sizeof(SessionPage));
      return true;
    }
    const std::string procs = dir + "/procs";
    if (!CheckPrivateDir(procs)) {
      munmap(const_cast<SessionPage*>(page), sizeof(SessionPage));
      continue;
    }
    const std::string name = UniqueName();
    const int lock_fd = LockProcessFile(procs, name);
    if (lock_fd < 0) {
      munmap(const_cast<SessionPage*>(page), sizeof(SessionPage));
      continue;
    }
    // This process owns its log: the recorder names the logs of its forked children LOG.<pid>.
    // Only at load: later other threads may be reading the environment (the recorder sets the
    // variable itself when it is unset; an inherited one only adds .<pid> to the log's name).
    if (at_load) setenv(kEnvLogOwner, std::to_string(getpid()).c_str(), 1);
    RecorderOptions options = OptionsFromPage(*page, procs + "/" + name + ".trc");
    options.shm_path = MakeShmDir(procs, name);
    options.log_path_is_unique = true;
    if (auto started = Recorder::Get().Start(options); !started) {
      std::fprintf(stderr, "rastrace: cannot join the trace session of channel %u: %s\n", channel,
                   started.error().message.c_str());
      flock(lock_fd, LOCK_UN);
      close(lock_fd);
      munmap(const_cast<SessionPage*>(page), sizeof(SessionPage));
      return false;
    }
    g_attachment.page.store(page);
    std::snprintf(g_attachment.procs_dir, sizeof g_attachment.procs_dir, "%s", procs.c_str());
    g_attachment.lock_fd = lock_fd;
    return true;
  }
  return false;
}

// Sleeps until a session starts and this process has joined it; false when the wake word cannot
// be mapped (the process then stays unattached).
bool WaitForSession() {
  auto word = MapWakeWord(g_attachment.base_dir);
  if (!word) return false;
  bool joined = false;
  for (;;) {
    // The word first, then a look: a session that starts in between has changed the word, so the
    // wait returns at once.
    const uint32_t seen = Load(**word);
    if (TryAttach(/*at_load=*/false)) {
      joined = g_attachment.page.load() != nullptr;
      break;
    }
    syscall(SYS_futex, *word, FUTEX_WAIT, seen, nullptr, nullptr, 0);
  }
  munmap(*word, kWakeBytes);
  return joined;
}

// `settle_first`: a forked child that is about to exec or exit (most are) should not spend its
// last microseconds mapping files and scanning session directories, so its thread first sleeps.
void AttachThread(bool settle_first) {
  prctl(PR_SET_NAME, "rastrace-attach");
  if (settle_first) {
    timespec settle{0, kChildSettleNs};
    nanosleep(&settle, nullptr);
  }
  for (;;) {
    if (g_attachment.page.load() != nullptr) FollowSession();
    if (!WaitForSession()) return;
  }
}

void StartAttachThread(bool settle_first) {
  // Every signal blocked: the thread must not take a signal meant for the program.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  // Returns once the thread runs, so a program that forks right after loading (or a child that
  // forks again at once) does not fork while the thread's start allocates (started_thread.h).
  // Safe from the library constructor too: what runs before the thread signals (glibc's and a
  // sanitizer's thread start) takes no lock the loader holds during constructors.
  StartThreadAndWait([settle_first] { AttachThread(settle_first); }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// A forked child records into a log of its own (the recorder restarts it at its first hook): it
// takes a lock of its own and follows the session from a new attach thread. A child forked while
// its parent waits for a session waits too, in a new thread of its own (threads do not survive
// fork), so that the workers of a pre-forking server join a session started after them. A child
// that only execs loses that thread with the exec; the new program waits again if it is linked
// with librastrace.
void ChildAfterFork() {
  const SessionPage* page = g_attachment.page.load();
  if (page == nullptr) {
#if !defined(RASTRACE_TSAN)
    // ThreadSanitizer cannot run threads created in the child of a multi-threaded process
    // (die_after_fork): under it such a child stays unattached.
    StartAttachThread(/*settle_first=*/true);
#endif
    return;
  }
  if (g_attachment.lock_fd >= 0) close(g_attachment.lock_fd);  // the parent still holds it
  g_attachment.lock_fd = -1;
  if (Load(page->state) != kSessionRunning) return;
  // The recorder names the child's log <parent log>.<pid>; its lock goes beside it.
  g_attachment.lock_fd = LockProcessFile(g_attachment.procs_dir, UniqueName());
  if (g_attachment.lock_fd >= 0) StartAttachThread(/*settle_first=*/false);
}

}  // namespace

void AttachToSession() {
  if (g_attachment.page.load() != nullptr || g_attachment.base_dir[0] != '\0') return;
  const std::string base = SessionBaseDir();
  if (base.size() >= sizeof g_attachment.base_dir) return;
  std::snprintf(g_attachment.base_dir, sizeof g_attachment.base_dir, "%s", base.c_str());
  if (TryAttach(/*at_load=*/true) && g_attachment.page.load() == nullptr) return;  // the daemon
  // Installed once, here: only a process that waits for sessions has children to look after.
  pthread_atfork(nullptr, nullptr, ChildAfterFork);
  StartAttachThread(/*settle_first=*/false);
}

}  // namespace rastrace::recorder
