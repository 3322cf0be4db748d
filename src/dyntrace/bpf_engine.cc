#include "dyntrace/bpf_engine.h"

#include <bpf/libbpf.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "dyntrace/bpf_record.h"
#include "dyntrace/bpf_tracepoint.h"
#include "dyntrace/process_maps.h"
#include "dyntrace/target_memory.h"
#include "dyntrace/uprobe_multi.h"
#include "hit.skel.h"  // generated from bpf/hit.bpf.c by bpftool at build time

namespace rastrace::dyntrace {
namespace {

// Records wait in the ring at most this long when the program does not wake the tracer (it
// wakes it only once the ring holds wake_threshold bytes, one wakeup per batch).
constexpr int kDrainIntervalMs = 20;

// libbpf's messages (the verifier's log among them) are kept, not printed: the last lines go
// into the error that says why the program could not be loaded.
std::mutex g_log_mutex;
std::string g_log;

int KeepLibbpfMessage(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[1024];
  int n = vsnprintf(line, sizeof line, format, args);
  std::lock_guard lock(g_log_mutex);
  g_log += line;
  if (g_log.size() > 8192) g_log.erase(0, g_log.size() - 8192);
  return n;
}

// The last line libbpf (or the verifier) logged: the reason a load failed.
std::string TakeLibbpfLog() {
  std::lock_guard lock(g_log_mutex);
  std::string log;
  log.swap(g_log);
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  size_t newline = log.rfind('\n');
  if (newline != std::string::npos) log.erase(0, newline + 1);
  if (log.rfind("libbpf: ", 0) == 0) log.erase(0, 8);
  return log;
}

struct SkeletonDeleter {
  void operator()(rastrace_hit* skeleton) const { rastrace_hit__destroy(skeleton); }
};
using Skeleton = std::unique_ptr<rastrace_hit, SkeletonDeleter>;

// One line: what failed and, unless it is a matter of privileges, libbpf's last word on it.
std::string LoadFailure(int error) {
  std::string log = TakeLibbpfLog();
  if (error == EPERM || error == EACCES) return "BPF needs root (CAP_BPF and CAP_PERFMON)";
  std::string why = std::strerror(error);
  if (!log.empty()) why += " (" + log + ")";
  return why;
}

// Opens the object and sizes its maps; the caller fills and loads it. `multi`: for uprobe_multi
// links (uprobe_multi.h), else for a link per uprobe.
Result<Skeleton> OpenSkeleton(size_t tracepoints, size_t probes, size_t ring_bytes, bool multi) {
  libbpf_set_print(KeepLibbpfMessage);
  Skeleton skeleton(rastrace_hit__open());
  if (!skeleton) return MakeError("cannot open the BPF program: {}", LoadFailure(errno));
  if (multi) {
    bpf_program__set_expected_attach_type(skeleton->progs.rastrace_hit,
                                          static_cast<bpf_attach_type>(kUprobeMultiAttachType));
  }
  auto size = [&](bpf_map* map, size_t entries) -> Result<void> {
    int error = bpf_map__set_max_entries(map, static_cast<uint32_t>(std::max<size_t>(1, entries)));
    if (error != 0) return MakeError("BPF map {}: {}", bpf_map__name(map), std::strerror(-error));
    return Ok();
  };
  for (auto result : {size(skeleton->maps.tracepoints, tracepoints),
                      size(skeleton->maps.probes, probes), size(skeleton->maps.ring, ring_bytes)}) {
    if (!result) return result.error();
  }
  // Wake the tracer once an eighth of the ring waits: enough to batch, far from full.
  skeleton->rodata->wake_threshold = ring_bytes / 8;
  return skeleton;
}

Result<void> LoadSkeleton(rastrace_hit* skeleton) {
  if (rastrace_hit__load(skeleton) != 0) {
    return MakeError("cannot load the BPF program: {}", LoadFailure(errno));
  }
  TakeLibbpfLog();
  return Ok();
}

uint64_t MonotonicNow() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

Result<void> CheckBpfRingBytes(size_t bytes) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (bytes < page || (bytes & (bytes - 1)) != 0 || bytes > (size_t{1} << 31)) {
    return MakeError("the BPF ring size must be a power of two from {} to 2 GiB, not {}", page,
                     bytes);
  }
  return Ok();
}

Result<void> BpfAvailable() {
  static std::once_flag once;
  static std::string why_not;  // empty: available
  std::call_once(once, [] {
    for (bool multi : {true, false}) {
      auto skeleton = OpenSkeleton(1, 1, static_cast<size_t>(sysconf(_SC_PAGESIZE)), multi);
      auto loaded = skeleton ? LoadSkeleton(skeleton->get()) : Result<void>(skeleton.error());
      why_not = loaded ? std::string() : loaded.error().message;
      if (loaded) return;
    }
  });
  if (!why_not.empty()) return Error{why_not};
  return Ok();
}

struct BpfEngine::Impl {
  pid_t pid = 0;
  std::vector<CompiledTracepoint> tracepoints;
  BpfDescription description;
  HitSink* sink = nullptr;
  Skeleton skeleton;
  std::vector<int> multi_links;  // uprobe_multi links, one per file and kind of probe
  std::vector<bpf_link*> links;  // else a link per uprobe
  ring_buffer* ring = nullptr;
  int epoll_fd = -1;
  int pid_fd = -1;
  int64_t realtime_minus_monotonic = 0;
  std::vector<uint8_t> patched;  // a record whose status byte is decided here
  BpfStats stats;
  BpfOptions options;

  ~Impl() {
    Unload();
    if (epoll_fd >= 0) close(epoll_fd);
    if (pid_fd >= 0) close(pid_fd);
  }

  void Unload() {
    Unlink();
    if (ring != nullptr) ring_buffer__free(ring);
    ring = nullptr;
    skeleton.reset();
  }

  // Loads the program with the tracepoints' statements and attaches every probe.
  Result<void> Load(bool multi) {
    const BpfDescription& d = description;
    auto opened = OpenSkeleton(d.tracepoints.size(), d.probes.size(), options.ring_bytes, multi);
    if (!opened) return opened.error();
    skeleton = std::move(*opened);
    auto loaded = LoadSkeleton(skeleton.get());
    if (!loaded) return loaded.error();
    rastrace_hit* s = skeleton.get();
    for (uint32_t i = 0; i < d.tracepoints.size(); ++i) {
      if (bpf_map__update_elem(s->maps.tracepoints, &i, sizeof i, &d.tracepoints[i],
                               sizeof d.tracepoints[i], BPF_ANY) != 0) {
        return MakeError("BPF map tracepoints: {}", std::strerror(errno));
      }
    }
    for (uint32_t i = 0; i < d.probes.size(); ++i) {
      if (bpf_map__update_elem(s->maps.probes, &i, sizeof i, &d.probes[i], sizeof d.probes[i],
                               BPF_ANY) != 0) {
        return MakeError("BPF map probes: {}", std::strerror(errno));
      }
    }
    ring = ring_buffer__new(bpf_map__fd(s->maps.ring), OnRecord, this, nullptr);
    if (ring == nullptr) return MakeError("BPF ring buffer: {}", std::strerror(errno));
    return multi ? AttachMulti() : AttachEach();
  }

  // One uprobe_multi link per file and kind (uprobes, uretprobes), the probe index as cookie.
  Result<void> AttachMulti() {
    const BpfDescription& d = description;
    std::map<std::pair<std::string, bool>, std::pair<std::vector<uint64_t>, std::vector<uint64_t>>>
        groups;
    for (uint32_t i = 0; i < d.probes.size(); ++i) {
      auto& [offsets, cookies] = groups[{d.sites[i].path, d.sites[i].retprobe}];
      offsets.push_back(d.sites[i].file_offset);
      cookies.push_back(i);
    }
    int program = bpf_program__fd(skeleton->progs.rastrace_hit);
    for (const auto& [where, probes] : groups) {
      auto link =
          AttachUprobeMulti(program, pid, where.first, probes.first, probes.second, where.second);
      if (!link) return link.error();
      multi_links.push_back(*link);
    }
    return Ok();
  }

  Result<void> AttachEach() {
    const BpfDescription& d = description;
    for (uint32_t i = 0; i < d.probes.size(); ++i) {
      const BpfProbeSite& site = d.sites[i];
      LIBBPF_OPTS(bpf_uprobe_opts, probe_options, .bpf_cookie = i, .retprobe = site.retprobe);
      bpf_link* link = bpf_program__attach_uprobe_opts(
          skeleton->progs.rastrace_hit, pid, site.path.c_str(), site.file_offset, &probe_options);
      if (link == nullptr) {
        int error = errno;
        const CompiledTracepoint& tracepoint = tracepoints[d.probes[i].tracepoint];
        return MakeError("{}: {} {}:0x{:x} for process {}: {}", tracepoint.name,
                         site.retprobe ? "uretprobe" : "uprobe", site.path, site.file_offset, pid,
                         LoadFailure(error));
      }
      links.push_back(link);
    }
    return Ok();
  }

  // Closing a uprobe waits for the kernel's grace period (~0.1 s here): the probes are closed
  // from several threads at once, so that N of them take about one period, not N.
  void Unlink() {
    for (int link : multi_links) close(link);
    multi_links.clear();
    constexpr size_t kClosers = 64;
    size_t closers = std::min(kClosers, links.size());
    std::vector<std::thread> threads;
    for (size_t t = 1; t < closers; ++t) {
      threads.emplace_back([this, t, closers] {
        for (size_t i = t; i < links.size(); i += closers) bpf_link__destroy(links[i]);
      });
    }
    for (size_t i = 0; i < links.size(); i += std::max<size_t>(closers, 1)) {
      bpf_link__destroy(links[i]);
    }
    for (std::thread& thread : threads) thread.join();
    links.clear();
  }

  static int OnRecord(void* context, void* data, size_t size) {
    static_cast<Impl*>(context)->Deliver({static_cast<const uint8_t*>(data), size});
    return 0;
  }

  void Deliver(std::span<const uint8_t> bytes) {
    auto decoded = DecodeBpfRecord(bytes);
    if (!decoded || decoded->probe >= description.probes.size()) {
      ++stats.bad_records;
      return;
    }
    const CompiledTracepoint& tracepoint =
        tracepoints[description.probes[decoded->probe].tracepoint];
    Hit hit;
    hit.pid = decoded->pid;
    hit.tid = decoded->tid;
    hit.realtime_ns = decoded->monotonic_ns + static_cast<uint64_t>(realtime_minus_monotonic);
    hit.data = decoded->data;
    hit.built = decoded->built;
    if (decoded->unclassified) {
      patched.assign(decoded->data.begin(), decoded->data.end());
      patched[decoded->fault_status_at] =
          static_cast<uint8_t>(ClassifyUnreadable(decoded->pid, decoded->fault_address));
      hit.data = patched;
      ++stats.classified_late;
    }
    ++stats.hits;
    sink->OnHit(tracepoint, hit);
  }

  void Drain() {
    if (ring != nullptr) ring_buffer__consume(ring);
  }

  void LookForModule() {
    if (stats.module_seen || options.watch_module.empty()) return;
    if (stats.hits != 0) {
      stats.module_seen = true;
      return;
    }
    auto maps = ReadMaps(pid);
    if (!maps) return;
    for (const Mapping& mapping : *maps) {
      if (ModuleMatches(mapping.path, options.watch_module)) stats.module_seen = true;
    }
  }
};

BpfEngine::BpfEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpfEngine::~BpfEngine() = default;

size_t BpfEngine::ring_bytes() const {
  return impl_->options.ring_bytes;
}

const BpfStats& BpfEngine::stats() {
  Impl& impl = *impl_;
  if (impl.skeleton && impl.skeleton->bss != nullptr) {
    impl.stats.lost = __atomic_load_n(&impl.skeleton->bss->lost, __ATOMIC_RELAXED);
  }
  return impl.stats;
}

Result<std::unique_ptr<BpfEngine>> BpfEngine::Attach(pid_t pid,
                                                     std::vector<CompiledTracepoint> tracepoints,
                                                     HitSink& sink, const BpfOptions& options) {
  auto ring_ok = CheckBpfRingBytes(options.ring_bytes);
  if (!ring_ok) return ring_ok.error();
  auto impl = std::make_unique<Impl>();
  impl->pid = pid;
  impl->options = options;
  impl->tracepoints = std::move(tracepoints);
  impl->sink = &sink;
  auto description = DescribeForBpf(impl->tracepoints);
  if (!description) return description.error();
  impl->description = std::move(*description);
  // OPCODE= is checked against the program image the probe goes into.
  ProcessMemory memory(pid);
  for (const CompiledTracepoint& tracepoint : impl->tracepoints) {
    if (!tracepoint.opcode) continue;
    uint8_t actual = 0;
    if (memory.Read(tracepoint.site.address, {&actual, 1}) != ReadStatus::kOk ||
        actual != *tracepoint.opcode) {
      return MakeError(
          "{}: OPCODE=0x{:02X} expected at 0x{:x} but the process has 0x{:02X}; "
          "not attached",
          tracepoint.name, *tracepoint.opcode, tracepoint.site.address, actual);
    }
  }

  // uprobe_multi links where the kernel has them (one grace period to detach, not one per
  // probe); else a link per uprobe.
  impl->realtime_minus_monotonic =
      static_cast<int64_t>(RealtimeNow()) - static_cast<int64_t>(MonotonicNow());
  auto loaded = impl->Load(true);
  if (!loaded) {
    impl->Unload();
    loaded = impl->Load(false);
    if (!loaded) return loaded.error();
  }

  // The tracer sleeps until the program wakes it, the drain interval passes or the process ends.
  impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (impl->epoll_fd < 0) return MakeError("epoll_create1: {}", std::strerror(errno));
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = ring_buffer__epoll_fd(impl->ring);
  epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, event.data.fd, &event);
  impl->pid_fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (impl->pid_fd >= 0) {
    event.data.fd = impl->pid_fd;
    epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->pid_fd, &event);
  }
  return std::make_unique<BpfEngine>(std::move(impl));
}

Result<void> BpfEngine::Run(const std::atomic<bool>& stop, bool (*is_alive)(pid_t)) {
  Impl& impl = *impl_;
  epoll_event events[2];
  bool ended = false;
  while (!ended && !stop.load(std::memory_order_relaxed)) {
    int ready = epoll_wait(impl.epoll_fd, events, 2, kDrainIntervalMs);
    if (ready < 0 && errno != EINTR) return MakeError("epoll_wait: {}", std::strerror(errno));
    // A readable pidfd: the process has ended (a zombie its parent has not reaped yet counts).
    for (int i = 0; i < ready; ++i) ended = ended || events[i].data.fd == impl.pid_fd;
    impl.Drain();
    impl.LookForModule();
    if (!is_alive(impl.pid)) ended = true;
  }
  impl.Drain();
  impl.LookForModule();
  return Ok();
}

void BpfEngine::Detach() {
  impl_->Unlink();
  impl_->Drain();
}

}  // namespace rastrace::dyntrace
