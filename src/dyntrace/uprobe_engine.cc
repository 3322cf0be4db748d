#include "dyntrace/uprobe_engine.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "dyntrace/record_builder.h"
#include "dyntrace/target_memory.h"

namespace rastrace::dyntrace {
namespace {

constexpr size_t kRingPages = 512;  // data pages per CPU (2 MiB)
// Enough for the frames of the probed function and its callers; more would fill the rings.
constexpr uint32_t kStackBytes = 2048;

// The perf_event_x86_regs bit of each register (AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS
// GS R8..R15). The kernel refuses DS ES FS GS for 64-bit tasks: those record 0 on this engine.
int PerfBit(Reg reg) {
  switch (reg) {
    case Reg::kRax:
      return 0;
    case Reg::kRbx:
      return 1;
    case Reg::kRcx:
      return 2;
    case Reg::kRdx:
      return 3;
    case Reg::kRsi:
      return 4;
    case Reg::kRdi:
      return 5;
    case Reg::kRbp:
      return 6;
    case Reg::kRsp:
      return 7;
    case Reg::kRip:
      return 8;
    case Reg::kEflags:
      return 9;
    case Reg::kCs:
      return 10;
    case Reg::kSs:
      return 11;
    case Reg::kR8:
      return 16;
    case Reg::kR9:
      return 17;
    case Reg::kR10:
      return 18;
    case Reg::kR11:
      return 19;
    case Reg::kR12:
      return 20;
    case Reg::kR13:
      return 21;
    case Reg::kR14:
      return 22;
    case Reg::kR15:
      return 23;
    default:
      return -1;
  }
}

// Only the registers a tracepoint uses are sampled, which keeps samples small.
uint64_t PerfRegisterMask(const CompiledTracepoint& tracepoint) {
  uint64_t mask = uint64_t{1} << PerfBit(Reg::kRip);
  auto add = [&](Reg reg) {
    if (int bit = PerfBit(reg); bit >= 0) mask |= uint64_t{1} << bit;
  };
  for (const CompiledData& data : tracepoint.data) {
    for (RegisterSlot slot : data.registers) add(slot.reg);
    if (data.kind != tsf::DataKind::kRegs) {
      add(Reg::kRsp);  // locates the sampled stack
      if (data.address.register_base) add(data.address.base_register);
    }
  }
  return mask;
}

Reg RegOfPerfBit(int bit) {
  for (int r = 0; r < static_cast<int>(Reg::kCount); ++r) {
    if (PerfBit(static_cast<Reg>(r)) == bit) return static_cast<Reg>(r);
  }
  return Reg::kRip;
}

Result<uint64_t> ReadSysfsNumber(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return MakeError("{}: cannot read", path);
  if (text.rfind(prefix, 0) != 0) return MakeError("{}: unexpected '{}'", path, text);
  return std::stoull(text.substr(prefix.size()));
}

// Stack-resident memory comes from the sample, the rest from the live process.
class SampleMemory : public TargetMemory {
 public:
  SampleMemory(ProcessMemory& live, uint64_t stack_base, std::span<const uint8_t> stack)
      : live_(live), stack_base_(stack_base), stack_(stack) {}
  ReadStatus Read(uint64_t address, std::span<uint8_t> out) override {
    if (address >= stack_base_ && address - stack_base_ <= stack_.size() &&
        out.size() <= stack_.size() - (address - stack_base_)) {
      std::memcpy(out.data(), stack_.data() + (address - stack_base_), out.size());
      return ReadStatus::kOk;
    }
    return live_.Read(address, out);
  }

 private:
  ProcessMemory& live_;
  uint64_t stack_base_;
  std::span<const uint8_t> stack_;
};

// tracefs, mounted if it is not yet (root only); empty when there is none.
std::string TracefsRoot() {
  for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (access((std::string(root) + "/uprobe_events").c_str(), W_OK) == 0) return root;
  }
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
      access("/sys/kernel/tracing/uprobe_events", W_OK) == 0) {
    return "/sys/kernel/tracing";
  }
  return {};
}

bool AppendLine(const std::string& path, const std::string& line) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  return ok;
}

struct Ring {
  int fd = -1;
  void* base = MAP_FAILED;
  size_t size = 0;
  perf_event_mmap_page* header() const { return static_cast<perf_event_mmap_page*>(base); }
};

}  // namespace

Result<void> UprobesAvailable() {
  auto type = ReadSysfsNumber("/sys/bus/event_source/devices/uprobe/type", "");
  if (!type) return MakeError("no uprobe PMU: {}", type.error().message);
  return Ok();
}

struct UprobeEngine::Impl {
  pid_t pid = 0;
  std::vector<CompiledTracepoint> tracepoints;
  HitSink* sink = nullptr;
  std::vector<int> event_fds;
  std::vector<Ring> rings;
  std::map<uint64_t, size_t> tracepoint_of_id;
  // Thread -> CLOCK_MONOTONIC ns when it had an event on every CPU. Its events are opened one CPU
  // at a time, and until the last one is open a hit on a CPU not yet covered is missed while a
  // later one may be caught: hits from before that moment are dropped, so that what a thread
  // records has no gap.
  std::map<pid_t, uint64_t> attached;
  int cpus = 1;
  // tracefs uprobe events (one per tracepoint, in group rastrace_<tracer pid>): perf events on
  // them can be inherited by new threads, which uprobe-PMU events cannot (the kernel would copy
  // the probe path from the new thread's memory). Empty when tracefs is unavailable.
  std::string tracefs;
  std::string group;
  std::vector<uint64_t> tracepoint_ids;
  std::vector<uint64_t> register_masks;  // per tracepoint: the sampled registers
  uint32_t pmu_type = 0;
  int retprobe_bit = 0;
  ProcessMemory memory{0};
  std::vector<uint8_t> record;
  std::vector<uint8_t> scratch;  // a sample that wraps the ring end
  struct PendingSample {
    uint64_t time;
    size_t offset;  // in arena
    size_t size;
  };
  std::vector<PendingSample> pending;  // samples of one drain, to be sorted by time
  std::vector<uint8_t> arena;          // their bytes
  UprobeStats stats;
  int64_t realtime_minus_monotonic = 0;

  ~Impl() { Close(); }

  void Close() {
    for (Ring& ring : rings) {
      if (ring.base != MAP_FAILED) munmap(ring.base, ring.size);
    }
    rings.clear();
    for (int fd : event_fds) close(fd);
    event_fds.clear();
    for (size_t i = 0; i < tracepoint_ids.size(); ++i) {
      AppendLine(tracefs + "/uprobe_events", fmt::format("-:{}/tp{}\n", group, i));
    }
    tracepoint_ids.clear();
  }

  // Defines one tracefs uprobe event per tracepoint and reads their ids.
  Result<void> DefineTracefsEvents() {
    group = fmt::format("rastrace_{}", getpid());
    for (size_t i = 0; i < tracepoints.size(); ++i) {
      const ProbeSite& site = tracepoints[i].site;
      if (site.module_path.find_first_of(" \t\n") != std::string::npos) {
        return MakeError("{}: a path with blanks cannot be given to uprobe_events",
                         site.module_path);
      }
      std::string line = fmt::format("{}:{}/tp{} {}:0x{:x}\n", site.retep ? 'r' : 'p', group, i,
                                     site.module_path, site.file_offset);
      if (!AppendLine(tracefs + "/uprobe_events", line)) {
        return MakeError("{}/uprobe_events: cannot add '{}': {}", tracefs,
                         line.substr(0, line.size() - 1), std::strerror(errno));
      }
      std::ifstream id_file(fmt::format("{}/events/{}/tp{}/id", tracefs, group, i));
      uint64_t id = 0;
      if (!(id_file >> id)) return MakeError("{}: no id for uprobe event tp{}", tracefs, i);
      tracepoint_ids.push_back(id);
    }
    return Ok();
  }

  Result<int> OpenEvent(const CompiledTracepoint& tracepoint, pid_t tid, int cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    size_t index = static_cast<size_t>(&tracepoint - tracepoints.data());
    if (!tracepoint_ids.empty()) {
      attr.type = PERF_TYPE_TRACEPOINT;
      attr.config = tracepoint_ids[index];
      attr.inherit = 1;
    } else {
      attr.type = pmu_type;
      attr.config = tracepoint.site.retep ? (uint64_t{1} << retprobe_bit) : 0;
      attr.config1 = reinterpret_cast<uint64_t>(tracepoint.site.module_path.c_str());
      attr.config2 = tracepoint.site.file_offset;
    }
    attr.sample_period = 1;
    attr.sample_type =
        PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
    attr.sample_regs_user = PerfRegisterMask(tracepoint);
    if (!tracepoint.RegistersOnly()) {
      attr.sample_type |= PERF_SAMPLE_STACK_USER;
      attr.sample_stack_user = kStackBytes;
    }
    attr.disabled = 0;  // counting from creation: a thread found late starts at once
    attr.use_clockid = 1;
    // The kernel refuses CLOCK_REALTIME here (not NMI-safe); samples are converted with the
    // offset between the two clocks taken at attach time.
    attr.clockid = CLOCK_MONOTONIC;
    attr.watermark = 1;
    attr.wakeup_watermark = kRingPages * 4096 / 4;
    int fd =
        static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      return MakeError("{}: perf_event_open(uprobe {}:0x{:x}) for thread {}: {}", tracepoint.name,
                       tracepoint.site.module_path, tracepoint.site.file_offset, tid,
                       std::strerror(errno));
    }
    return fd;
  }

  // Per-task events that are inherited cannot be mmapped with cpu -1, so every thread gets one
  // event per tracepoint and CPU; the events of one CPU share that CPU's ring.
  Result<void> AttachThread(pid_t tid) {
    for (int cpu = 0; cpu < cpus; ++cpu) {
      for (size_t i = 0; i < tracepoints.size(); ++i) {
        auto fd = OpenEvent(tracepoints[i], tid, cpu);
        if (!fd) {
          if (errno == ESRCH) return Ok();               // the thread ended meanwhile
          if (errno == ENODEV || errno == ENXIO) break;  // CPU offline
          return fd.error();
        }
        event_fds.push_back(*fd);
        uint64_t id = 0;
        ioctl(*fd, PERF_EVENT_IOC_ID, &id);
        tracepoint_of_id[id] = i;
        Ring& ring = rings[static_cast<size_t>(cpu)];
        if (ring.fd < 0) {
          ring.size = (kRingPages + 1) * 4096;
          ring.base = mmap(nullptr, ring.size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
          if (ring.base == MAP_FAILED) {
            return MakeError("mmap perf ring: {}", std::strerror(errno));
          }
          ring.fd = *fd;
        } else if (ioctl(*fd, PERF_EVENT_IOC_SET_OUTPUT, ring.fd) != 0) {
          return MakeError("PERF_EVENT_IOC_SET_OUTPUT: {}", std::strerror(errno));
        }
      }
    }
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    attached[tid] =
        static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
    return Ok();
  }

  Result<void> AttachAll() {
    for (bool found = true; found;) {
      found = false;
      std::string dir = fmt::format("/proc/{}/task", pid);
      DIR* d = opendir(dir.c_str());
      if (d == nullptr) return MakeError("{}: cannot list threads: {}", dir, std::strerror(errno));
      std::vector<pid_t> fresh;
      while (dirent* entry = readdir(d)) {
        if (entry->d_name[0] == '.') continue;
        pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (attached.count(tid) == 0) fresh.push_back(tid);
      }
      closedir(d);
      for (pid_t tid : fresh) {
        auto done = AttachThread(tid);
        if (!done) return done;
        found = true;
      }
    }
    return Ok();
  }

  void Deliver(const uint8_t* sample, size_t size) {
    // IDENTIFIER, TID, TIME, REGS_USER, STACK_USER in that order.
    auto u64 = [&](size_t at) {
      uint64_t v = 0;
      if (at + 8 <= size) std::memcpy(&v, sample + at, 8);
      return v;
    };
    size_t at = 0;
    uint64_t id = u64(at);
    at += 8;
    uint32_t pid_tid[2] = {};
    if (at + 8 <= size) std::memcpy(pid_tid, sample + at, 8);
    at += 8;
    uint64_t time = u64(at);
    at += 8;
    uint64_t abi = u64(at);
    at += 8;
    if (auto thread = attached.find(static_cast<pid_t>(pid_tid[1]));
        thread != attached.end() && time < thread->second) {
      ++stats.before_attach;
      return;
    }
    auto it = tracepoint_of_id.find(id);
    if (it == tracepoint_of_id.end()) return;
    const CompiledTracepoint& tracepoint = tracepoints[it->second];
    RegisterFile registers;
    if (abi != 0) {
      uint64_t mask = register_masks[it->second];
      for (int bit = 0; bit < 64; ++bit) {
        if ((mask >> bit & 1) == 0) continue;
        registers.Set(RegOfPerfBit(bit), u64(at));
        at += 8;
      }
    }
    std::span<const uint8_t> stack;
    if (!tracepoint.RegistersOnly()) {
      uint64_t stack_size = u64(at);
      at += 8;
      if (stack_size != 0 && at + stack_size + 8 <= size) {
        uint64_t dynamic = u64(at + stack_size);
        stack = {sample + at, std::min(stack_size, dynamic)};
      }
    }
    ProcessMemory live(static_cast<pid_t>(pid_tid[0]));
    SampleMemory sampled(live, registers.Get(Reg::kRsp), stack);
    BuiltRecord built = BuildRecord(tracepoint, registers, sampled, record);
    Hit hit;
    hit.pid = static_cast<pid_t>(pid_tid[0]);
    hit.tid = static_cast<pid_t>(pid_tid[1]);
    hit.realtime_ns = time + static_cast<uint64_t>(realtime_minus_monotonic);
    hit.data = record;
    hit.built = built;
    ++stats.hits;
    sink->OnHit(tracepoint, hit);
  }

  // Each CPU has its own ring, and a thread that migrates leaves its samples in several: they are
  // collected from every ring, then delivered in time order.
  void DrainAll() {
    pending.clear();
    arena.clear();
    for (Ring& ring : rings) {
      if (ring.base != MAP_FAILED) Drain(ring);
    }
    std::stable_sort(
        pending.begin(), pending.end(),
        [](const PendingSample& a, const PendingSample& b) { return a.time < b.time; });
    for (const PendingSample& sample : pending) Deliver(arena.data() + sample.offset, sample.size);
  }

  void Drain(Ring& ring) {
    perf_event_mmap_page* header = ring.header();
    const uint8_t* data = static_cast<const uint8_t*>(ring.base) + header->data_offset;
    uint64_t data_size = header->data_size;
    uint64_t head = __atomic_load_n(&header->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = header->data_tail;
    while (tail < head) {
      perf_event_header event;
      size_t offset = tail % data_size;
      const uint8_t* bytes = nullptr;
      // Copy the header (and, when the record wraps, the whole record) out of the ring.
      uint8_t raw_header[sizeof event];
      for (size_t i = 0; i < sizeof event; ++i) raw_header[i] = data[(offset + i) % data_size];
      std::memcpy(&event, raw_header, sizeof event);
      if (event.size < sizeof event) break;
      if (offset + event.size <= data_size) {
        bytes = data + offset;
      } else {
        scratch.resize(event.size);
        for (size_t i = 0; i < event.size; ++i) scratch[i] = data[(offset + i) % data_size];
        bytes = scratch.data();
      }
      if (event.type == PERF_RECORD_SAMPLE && event.size >= sizeof event + 24) {
        // The body starts with IDENTIFIER, TID, TIME.
        PendingSample sample{0, arena.size(), event.size - sizeof event};
        std::memcpy(&sample.time, bytes + sizeof event + 16, sizeof sample.time);
        arena.insert(arena.end(), bytes + sizeof event, bytes + event.size);
        pending.push_back(sample);
      } else if (event.type == PERF_RECORD_LOST) {
        uint64_t lost = 0;
        std::memcpy(&lost, bytes + sizeof event + 8, sizeof lost);
        stats.lost += lost;
      }
      tail += event.size;
    }
    __atomic_store_n(&header->data_tail, tail, __ATOMIC_RELEASE);
  }
};

UprobeEngine::UprobeEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UprobeEngine::~UprobeEngine() = default;
const UprobeStats& UprobeEngine::stats() const {
  return impl_->stats;
}

Result<std::unique_ptr<UprobeEngine>> UprobeEngine::Attach(
    pid_t pid, std::vector<CompiledTracepoint> tracepoints, HitSink& sink) {
  auto impl = std::make_unique<Impl>();
  auto type = ReadSysfsNumber("/sys/bus/event_source/devices/uprobe/type", "");
  if (!type) return MakeError("uprobes unavailable: {}", type.error().message);
  auto bit = ReadSysfsNumber("/sys/bus/event_source/devices/uprobe/format/retprobe", "config:");
  impl->pmu_type = static_cast<uint32_t>(*type);
  impl->retprobe_bit = bit ? static_cast<int>(*bit) : 0;
  impl->pid = pid;
  impl->tracepoints = std::move(tracepoints);
  impl->sink = &sink;
  impl->memory = ProcessMemory(pid);
  for (const CompiledTracepoint& tracepoint : impl->tracepoints) {
    impl->register_masks.push_back(PerfRegisterMask(tracepoint));
  }
  // One event per tracepoint, thread and CPU: many descriptors for a busy process.
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  impl->cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_CONF)));
  impl->rings.resize(static_cast<size_t>(impl->cpus));
  timespec monotonic;
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  impl->realtime_minus_monotonic =
      static_cast<int64_t>(RealtimeNow()) -
      (static_cast<int64_t>(monotonic.tv_sec) * 1000000000 + monotonic.tv_nsec);
  // OPCODE= is checked against the program image the probe goes into.
  for (const CompiledTracepoint& tracepoint : impl->tracepoints) {
    if (!tracepoint.opcode) continue;
    uint8_t actual = 0;
    if (impl->memory.Read(tracepoint.site.address, {&actual, 1}) != ReadStatus::kOk ||
        actual != *tracepoint.opcode) {
      return MakeError(
          "{}: OPCODE=0x{:02X} expected at 0x{:x} but the process has 0x{:02X}; "
          "not attached",
          tracepoint.name, *tracepoint.opcode, tracepoint.site.address, actual);
    }
  }
  impl->tracefs = TracefsRoot();
  if (!impl->tracefs.empty()) {
    auto defined = impl->DefineTracefsEvents();
    if (!defined) return defined.error();
  }
  auto attached = impl->AttachAll();
  if (!attached) return attached.error();
  for (int fd : impl->event_fds) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  // Threads born between the listing and the enable inherited nothing: list again.
  attached = impl->AttachAll();
  if (!attached) return attached.error();
  for (int fd : impl->event_fds) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  return std::make_unique<UprobeEngine>(std::move(impl));
}

Result<void> UprobeEngine::Run(const std::atomic<bool>& stop, bool (*is_alive)(pid_t)) {
  Impl& impl = *impl_;
  std::vector<pollfd> fds;
  while (!stop.load(std::memory_order_relaxed)) {
    fds.clear();
    for (const Ring& ring : impl.rings) {
      if (ring.fd >= 0) fds.push_back({ring.fd, POLLIN, 0});
    }
    int ready = poll(fds.data(), fds.size(), 100);
    if (ready < 0 && errno != EINTR) return MakeError("poll: {}", std::strerror(errno));
    impl.DrainAll();
    // Without tracefs the events cannot be inherited: pick up new threads as they appear.
    if (impl.tracepoint_ids.empty()) (void)impl.AttachAll();
    if (!is_alive(impl.pid)) break;
  }
  impl.DrainAll();
  return Ok();
}

void UprobeEngine::Detach() {
  impl_->DrainAll();
  impl_->Close();
}

}  // namespace rastrace::dyntrace
