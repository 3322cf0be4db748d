#include "posix/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "posix/shared_mutex.h"

namespace rastrace::posix {

// constinit: a dynamic initializer could run after InitTracedProcess and wipe the mapped registry.
constinit RegistryPage g_registry_page{};
Attachment g_attachments[TRACE_SYS_MAX];
int32_t g_pid = 0;
thread_local ThreadIdentity t_me __attribute__((tls_model("initial-exec")));

namespace {

// Guards the attachments, the registry pointer and the local names (never taken by the hot path).
std::mutex g_mutex;
RegistryShared* const g_registry = &g_registry_page.r;
char g_registry_name[kShmNameMax] = {};

char g_local_names[kMaxLocalIds][TRACE_EVENT_NAME_MAX + 1];
std::atomic<unsigned> g_local_count{0};

void RegistryName(pid_t pid, char (&out)[kShmNameMax]) {
  std::snprintf(out, sizeof out, "/rastrace-posix.%d", static_cast<int>(pid));
}

// The start time of this process in clock ticks since boot: it survives exec, and tells this
// process from an earlier one that had the same pid. 0 when unknown.
uint64_t ProcessStartTime() {
  std::FILE* f = std::fopen("/proc/self/stat", "r");
  if (f == nullptr) return 0;
  char line[1024];
  size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  line[n] = '\0';
  const char* p = std::strrchr(line, ')');  // the command name may hold blanks and parentheses
  if (p == nullptr) return 0;
  // Field 3 (state) follows ") "; the start time is field 22.
  for (int field = 2; field < 22 && p != nullptr; ++field) p = std::strchr(p + 1, ' ');
  return p == nullptr ? 0 : std::strtoull(p + 1, nullptr, 10);
}

// Maps the registry object `fd` over g_registry_page (replacing whatever was there).
bool MapRegistryPage(int fd) {
  return mmap(&g_registry_page, sizeof(RegistryPage), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
}

void InitRegistryContents(RegistryShared& r) {
  std::memset(static_cast<void*>(&r), 0, sizeof r);
  r.magic = kRegistryMagic;
  r.owner_uid = static_cast<uint32_t>(geteuid());
  r.pid = g_pid;
  r.start_time = ProcessStartTime();
  InitSharedMutex(r.mutex);
}

// Creates this process's registry: a 0600 object only its user can open.
// After exec the process keeps its pid and its registry: streams that trace it by pid go on
// tracing the new program (once it records events). The attachments were the old image's.
bool ReuseRegistryAfterExec() {
  int fd = shm_open(g_registry_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) return false;
  struct stat st {};
  bool mapped = fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
                static_cast<size_t>(st.st_size) >= sizeof(RegistryPage) && MapRegistryPage(fd);
  close(fd);
  if (!mapped) return false;
  RegistryShared& r = *g_registry;
  uint64_t start_time = ProcessStartTime();
  // A stale object is left mapped: CreateRegistry maps the new one over it.
  if (r.magic != kRegistryMagic || r.pid != g_pid || start_time == 0 ||
      r.start_time != start_time) {
    return false;
  }
  {
    SharedLock lock(r.mutex);
    r.name_count = 0;  // the event types were the old image's
  }
  r.hot.store(kRegistryDirty);  // attach the listed streams at the first event
  return true;
}

void CreateRegistry() {
  RegistryName(g_pid, g_registry_name);
  int fd = -1;
  for (int attempt = 0; attempt < 2 && fd < 0; ++attempt) {
    fd = shm_open(g_registry_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    // A left-over of an earlier process with our pid (exec'd or killed): replace it.
    if (fd < 0 && errno == EEXIST) shm_unlink(g_registry_name);
  }
  bool mapped = false;
  if (fd >= 0) {
    mapped = ftruncate(fd, sizeof(RegistryPage)) == 0 && MapRegistryPage(fd);
    close(fd);
  }
  if (!mapped) {
    if (fd >= 0) shm_unlink(g_registry_name);
    g_registry_name[0] = '\0';
    // Private memory again: a forked child must not write into its parent's registry.
    mmap(&g_registry_page, sizeof(RegistryPage), PROT_READ | PROT_WRITE,
         MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  InitRegistryContents(*g_registry);
}

// Registries of processes that ended without running atexit (_exit, exec, a signal): removed by
// the next process of the same user that starts, so /dev/shm does not fill up.
void RemoveStaleRegistries() {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return;
  const std::string_view prefix = "rastrace-posix.";
  while (dirent* entry = readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name.substr(0, prefix.size()) != prefix) continue;
    char* end = nullptr;
    long pid = std::strtol(entry->d_name + prefix.size(), &end, 10);
    if (end == nullptr || *end != '\0' || pid <= 0) continue;
    struct stat st {};
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
      continue;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::string shm_name = "/" + std::string(name);
      shm_unlink(shm_name.c_str());
    }
  }
  closedir(dir);
}

void RemoveRegistryAtExit() {
  if (g_registry_name[0] != '\0') shm_unlink(g_registry_name);
}

void Tombstone(Attachment& a, unsigned slot) {
  g_registry->hot.fetch_and(~(1u << slot), std::memory_order_acq_rel);
  StreamShared* s = a.stream.exchange(nullptr, std::memory_order_acq_rel);
  if (s == nullptr) return;
  // Another thread may still be inside RecordEvent on this stream: leave zeroed private memory
  // at the same addresses instead of unmapping, so it writes harmlessly.
  mmap(s, a.map_bytes, PROT_READ | PROT_WRITE,
       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  a.name[0] = '\0';
}

bool AttachLocked(const char* name) {
  for (unsigned slot = 0; slot < TRACE_SYS_MAX; ++slot) {
    Attachment& a = g_attachments[slot];
    if (a.stream.load(std::memory_order_relaxed) != nullptr) continue;
    size_t bytes = 0;
    int error = 0;
    StreamShared* s = MapStream(name, bytes, error);
    if (s == nullptr) return false;
    for (auto& x : a.xlate) x.store(kUnresolved, std::memory_order_relaxed);
    a.map_bytes = bytes;
    std::snprintf(a.name, sizeof a.name, "%s", name);
    a.stream.store(s, std::memory_order_release);
    g_registry->hot.fetch_or(1u << slot, std::memory_order_acq_rel);
    return true;
  }
  return false;
}

void RefreshLocked() {
  RegistryShared& r = *g_registry;
  // Cleared before the scan: a controller changing the entries meanwhile sets it again.
  r.hot.fetch_and(~kRegistryDirty, std::memory_order_acq_rel);
  SharedLock lock(r.mutex);
  for (unsigned slot = 0; slot < TRACE_SYS_MAX; ++slot) {
    Attachment& a = g_attachments[slot];
    if (a.stream.load(std::memory_order_relaxed) == nullptr) continue;
    bool listed = false;
    for (auto& e : r.entries) {
      listed = listed || (e.used.load() != 0 && std::strcmp(e.name, a.name) == 0);
    }
    if (!listed) Tombstone(a, slot);
  }
  for (auto& e : r.entries) {
    if (e.used.load() == 0) continue;
    bool attached = false;
    for (auto& a : g_attachments) {
      attached = attached || (a.stream.load(std::memory_order_relaxed) != nullptr &&
                              std::strcmp(e.name, a.name) == 0);
    }
    if (!attached && !AttachLocked(e.name)) e.used.store(0);  // gone already
  }
}

// Copies this process's event-type names into registry `r` (a new one, nobody else holds it).
void MirrorLocalNames(RegistryShared& r) {
  const unsigned count = g_local_count.load(std::memory_order_relaxed);
  for (unsigned i = 0; i < count; ++i) std::memcpy(r.names[i], g_local_names[i], sizeof r.names[i]);
  r.name_count = count;
}

// Adds the names listed in registry `r` to stream `s`, each at its id in the process when free.
void AddRegistryNames(const RegistryShared& r, StreamShared& s) {
  const unsigned count = std::min<unsigned>(r.name_count, TRACE_USER_EVENT_MAX);
  for (unsigned i = 0; i < count; ++i) {
    const char* name = r.names[i];
    AddName(s, std::string_view(name, strnlen(name, TRACE_EVENT_NAME_MAX)), kFirstUserId + i);
  }
}

void BeforeFork() {
  g_mutex.lock();
}
void AfterForkInParent() {
  g_mutex.unlock();
}

// The child has one thread: it may unmap freely. It gets its own registry; INHERITED streams stay
// attached (the mapping is shared with the parent) and are listed in it.
void AfterForkInChild() {
  new (&g_mutex) std::mutex();
  g_pid = static_cast<int32_t>(getpid());
  t_me = ThreadIdentity{};
  CreateRegistry();
  MirrorLocalNames(*g_registry);
  unsigned next_entry = 0;
  for (unsigned slot = 0; slot < TRACE_SYS_MAX; ++slot) {
    Attachment& a = g_attachments[slot];
    StreamShared* s = a.stream.load(std::memory_order_relaxed);
    if (s == nullptr) continue;
    if (s->inherited != 0 && s->state.load() != kStateShutdown) {
      auto& e = g_registry->entries[next_entry++];
      std::snprintf(e.name, sizeof e.name, "%s", a.name);
      e.used.store(1);
      g_registry->hot.fetch_or(1u << slot);
      continue;
    }
    a.stream.store(nullptr);
    munmap(s, a.map_bytes);
    a.name[0] = '\0';
  }
}

__attribute__((constructor)) void InitTracedProcess() {
  g_pid = static_cast<int32_t>(getpid());
  RemoveStaleRegistries();
  RegistryName(g_pid, g_registry_name);
  if (!ReuseRegistryAfterExec()) CreateRegistry();
  std::atexit(RemoveRegistryAtExit);
  pthread_atfork(BeforeFork, AfterForkInParent, AfterForkInChild);
}

}  // namespace

void InitThreadIdentity() {
  t_me.thread = static_cast<uint64_t>(pthread_self());
  t_me.kernel_tid = static_cast<int32_t>(syscall(SYS_gettid));
}

void RefreshAttachments() {
  std::lock_guard lock(g_mutex);
  RefreshLocked();
}

void DropShutDownStream(unsigned slot) {
  std::lock_guard lock(g_mutex);
  Attachment& a = g_attachments[slot];
  StreamShared* s = a.stream.load(std::memory_order_relaxed);
  if (s == nullptr || s->state.load() != kStateShutdown) return;
  {
    SharedLock registry_lock(g_registry->mutex);
    for (auto& e : g_registry->entries) {
      if (e.used.load() != 0 && std::strcmp(e.name, a.name) == 0) e.used.store(0);
    }
  }
  Tombstone(a, slot);
}

uint16_t ResolveEventId(unsigned slot, unsigned local_id) {
  std::lock_guard lock(g_mutex);
  Attachment& a = g_attachments[slot];
  StreamShared* s = a.stream.load(std::memory_order_relaxed);
  if (s == nullptr || local_id >= kMaxLocalIds) return 0;
  unsigned stream_id;
  if (local_id == POSIX_TRACE_UNNAMED_USER_EVENT) {
    stream_id = local_id;
  } else if (local_id >= kFirstUserId && local_id < kFirstUserId + g_local_count.load()) {
    stream_id = AddName(*s, g_local_names[local_id - kFirstUserId], local_id);
  } else {
    return 0;
  }
  a.xlate[local_id].store(static_cast<uint16_t>(stream_id), std::memory_order_relaxed);
  return static_cast<uint16_t>(stream_id + 1);
}

StreamShared* MapStream(const std::string& shm_name, size_t& map_bytes, int& error) {
  int fd = shm_open(shm_name.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) {
    error = errno == EACCES ? EPERM : EINVAL;
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
      static_cast<size_t>(st.st_size) < sizeof(StreamShared)) {
    error = EPERM;
    close(fd);
    return nullptr;
  }
  void* map =
      mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    error = ENOMEM;
    return nullptr;
  }
  auto* s = static_cast<StreamShared*>(map);
  if (s->magic != kStreamMagic || s->version != kLayoutVersion ||
      s->map_bytes != static_cast<uint64_t>(st.st_size)) {
    munmap(map, static_cast<size_t>(st.st_size));
    error = EINVAL;
    return nullptr;
  }
  map_bytes = static_cast<size_t>(st.st_size);
  return s;
}

namespace {

// Runs `f` on the registry of `pid` under its mutex; returns an error number.
template <class F>
int WithRegistryOf(pid_t pid, F f) {
  if (pid == g_pid) {
    std::lock_guard lock(g_mutex);
    int rc;
    {
      SharedLock registry_lock(g_registry->mutex);
      rc = f(*g_registry);
    }
    RefreshLocked();
    return rc;
  }
  char name[kShmNameMax];
  RegistryName(pid, name);
  int fd = shm_open(name, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) {
    if (errno == EACCES) return EPERM;
    if (kill(pid, 0) != 0 && errno == EPERM) return EPERM;
    return ESRCH;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
      static_cast<size_t>(st.st_size) < sizeof(RegistryShared)) {
    close(fd);
    return EPERM;
  }
  void* map = mmap(nullptr, sizeof(RegistryShared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return ENOMEM;
  auto* r = static_cast<RegistryShared*>(map);
  int rc = ESRCH;
  if (r->magic == kRegistryMagic && r->pid == pid && kill(pid, 0) == 0) {
    SharedLock lock(r->mutex);
    rc = f(*r);
  }
  munmap(map, sizeof(RegistryShared));
  return rc;
}

}  // namespace

int AttachStreamTo(pid_t pid, const std::string& shm_name, StreamShared& stream) {
  return WithRegistryOf(pid, [&](RegistryShared& r) {
    for (auto& e : r.entries) {
      if (e.used.load() != 0) continue;
      // Under the registry's lock: a name the process opens later finds this entry listed.
      AddRegistryNames(r, stream);
      std::snprintf(e.name, sizeof e.name, "%s", shm_name.c_str());
      e.used.store(1);
      r.hot.fetch_or(kRegistryDirty, std::memory_order_release);
      return 0;
    }
    return EAGAIN;
  });
}

void DetachStreamFrom(pid_t pid, const std::string& shm_name) {
  (void)WithRegistryOf(pid, [&](RegistryShared& r) {
    for (auto& e : r.entries) {
      if (e.used.load() != 0 && shm_name == e.name) e.used.store(0);
    }
    r.hot.fetch_or(kRegistryDirty, std::memory_order_release);
    return 0;
  });
}

int OpenLocalEventId(std::string_view name, unsigned& id) {
  if (name.size() > TRACE_EVENT_NAME_MAX) return ENAMETOOLONG;
  std::lock_guard lock(g_mutex);
  unsigned count = g_local_count.load(std::memory_order_relaxed);
  for (unsigned i = 0; i < count; ++i) {
    if (name == g_local_names[i]) {
      id = kFirstUserId + i;
      return 0;
    }
  }
  if (count >= TRACE_USER_EVENT_MAX) {
    id = POSIX_TRACE_UNNAMED_USER_EVENT;
    return 0;
  }
  std::memcpy(g_local_names[count], name.data(), name.size());
  g_local_names[count][name.size()] = '\0';
  g_local_count.store(count + 1, std::memory_order_release);
  id = kFirstUserId + count;
  // Every stream tracing this process lists the new type at once ("the list of trace event
  // types ... of the trace stream"), not only once an event of it is recorded: the registry
  // mirror serves controllers creating a stream from now on, and the streams already listed
  // (attached here first) get the name now.
  {
    SharedLock registry_lock(g_registry->mutex);
    std::memcpy(g_registry->names[count], g_local_names[count], sizeof g_registry->names[count]);
    g_registry->name_count = count + 1;
  }
  RefreshLocked();
  for (Attachment& a : g_attachments) {
    if (StreamShared* s = a.stream.load(std::memory_order_relaxed)) {
      if (s->state.load() != kStateShutdown) AddName(*s, g_local_names[count], id);
    }
  }
  return 0;
}

bool LocalEventName(unsigned id, std::string& out) {
  if (id < kFirstUserId || id >= kFirstUserId + g_local_count.load(std::memory_order_acquire)) {
    return false;
  }
  out.assign(g_local_names[id - kFirstUserId]);
  return true;
}

}  // namespace rastrace::posix
