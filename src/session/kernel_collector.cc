#include "session/kernel_collector.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "event/format.h"
#include "recorder/clock.h"
#include "session/event_builder.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

constexpr size_t kReadBytes = 1 << 16;
constexpr size_t kFlushBytes = 1 << 20;
// A busy cpu wakes the reader when its buffer is this full (a quarter of the default 4 MiB is one
// round's pages: one splice); a quiet one is read at the poll timeout.
constexpr unsigned kWakeupPercent = 25;
constexpr int kPollMs = 100;
// How late after its cpu was read an event may still be committed with an earlier timestamp:
// far more than an interrupt between reserve and commit, and than the vCPU stalls seen here
// (docs/performance.md: 2.7 ms).
constexpr uint64_t kCommitSlackNs = 20'000'000;

// The trace clock's time now, and kCommitSlackNs in its units.
void SetReaderClock(RawPipeReader& reader, const std::string& clock) {
  if (clock == "x86-tsc") {
    const event::TimeConversion rate = recorder::CalibrateClock(std::chrono::milliseconds(2));
    uint64_t slack = kCommitSlackNs;
    if (rate.flag == 2 && rate.multiplier != 0) {
      slack = static_cast<uint64_t>(static_cast<unsigned __int128>(kCommitSlackNs) * rate.divisor /
                                    rate.multiplier);
    }
    reader.SetClock([] { return __rdtsc(); }, slack);
  } else {
    reader.SetClock([] { return recorder::MonotonicNanoseconds(); }, kCommitSlackNs);
  }
}

std::vector<uint32_t> NumericEntries(const std::string& dir) {
  std::vector<uint32_t> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* entry = readdir(d)) {
    if (auto n = ParseNumber(entry->d_name)) out.push_back(static_cast<uint32_t>(*n));
  }
  closedir(d);
  return out;
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> RunningThreads() {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t pid : NumericEntries("/proc")) {
    for (uint32_t tid : NumericEntries("/proc/" + std::to_string(pid) + "/task")) {
      out.emplace_back(tid, pid);
    }
  }
  return out;
}

uint32_t ParentPid(uint32_t pid) {
  // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold blanks and parentheses.
  const int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[512];
  const ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return 0;
  std::string_view stat(buffer, static_cast<size_t>(n));
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 4 >= stat.size()) return 0;
  std::string_view rest = stat.substr(close_paren + 4);
  return static_cast<uint32_t>(ParseNumber(rest.substr(0, rest.find(' '))).value_or(0));
}

std::vector<uint32_t> ThreadsOf(uint32_t pid) {
  return NumericEntries("/proc/" + std::to_string(pid) + "/task");
}

std::string ExePath(uint32_t pid) {
  char buffer[PATH_MAX];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = readlink(link.c_str(), buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

Result<std::unique_ptr<KernelCollector>> KernelCollector::Start(
    const std::string& tracefs, const std::string& instance_name, const std::string& log_path,
    const std::bitset<65536>& allowed, uint64_t buffer_kb, std::span<const unsigned> cpus,
    bool per_cpu, const std::string& clock,
    std::span<const std::pair<uint32_t, uint32_t>> known_threads, bool binary,
    std::string& notice) {
  auto instance = TracefsInstance::Create(tracefs, instance_name, allowed, buffer_kb, cpus, clock);
  if (!instance) return instance.error();
  // Only the binary reader polls per cpu; an older kernel without the file wakes at any data.
  if (binary) (void)instance->SetWakeupPercent(kWakeupPercent);
  event::WriterOptions options;
  options.overwrite = true;
  auto writer = event::LogWriter::Create(log_path, options);
  if (!writer) return writer.error();
  std::unique_ptr<KernelCollector> collector(
      new KernelCollector(tracefs, std::move(*instance), std::move(*writer), allowed));
  const std::vector<std::string>& tracepoints = collector->instance_.tracepoints();
  if (binary) {
    auto opened = RawPipeReader::Open(tracefs, collector->instance_.path(), tracepoints,
                                      collector->syscalls_);
    if (opened) {
      collector->raw_ = std::move(*opened);
      SetReaderClock(*collector->raw_, clock);
    } else {
      notice = "trace: kernel events are read as text (trace_pipe), not from the binary buffers: " +
               opened.error().message;
    }
  }
  if (!collector->raw_) {
    // The text lines name the system call; its format names the arguments.
    constexpr std::string_view kPrefix = "syscalls/sys_enter_";
    for (const std::string& tracepoint : tracepoints) {
      if (!tracepoint.starts_with(kPrefix)) continue;
      if (auto signature =
              ReadSyscallFormat(tracefs + "/events", tracepoint.substr(kPrefix.size()))) {
        (void)collector->syscalls_.Add(std::move(*signature));
      }
    }
  }
  for (auto [tid, pid] : known_threads) collector->mapper_.KnowThread(tid, pid);
  collector->per_cpu_ = per_cpu;
  collector->log_path_ = log_path;
  collector->thread_ = std::thread([c = collector.get()] { c->Run(); });
  return collector;
}

KernelCollector::KernelCollector(std::string tracefs, TracefsInstance instance,
                                 event::LogWriter writer, const std::bitset<65536>& allowed)
    : tracefs_(std::move(tracefs)),
      instance_(std::move(instance)),
      writer_(std::move(writer)),
      mapper_(
          allowed, [](uint32_t pid) { return ExePath(pid); },
          [](uint32_t pid) { return ParentPid(pid); }) {}

KernelCollector::~KernelCollector() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

Result<void> KernelCollector::SetTracing(bool on) {
  return instance_.SetTracing(on);
}

Result<void> KernelCollector::ExcludeTasks(std::span<const uint32_t> tids) {
  return instance_.ExcludeTasks(tids);
}

void KernelCollector::Consume(std::string_view line) {
  auto parsed = ParseTraceLine(line);
  KernelEvent event;
  if (!parsed || !ToKernelEvent(*parsed, syscalls_, event)) {
    // "CPU:2 [LOST 340 EVENTS]" is how trace_pipe reports losses; the per-cpu stats count them.
    ++totals_.bad_lines;
    return;
  }
  if (event.kind == KernelEventKind::kFork && event.values[1] != 0 &&
      event.values[1] <= UINT32_MAX) {
    // Whether the child is a thread or a process: its process, while it still runs.
    event.child_tgid = LookUpTask(static_cast<uint32_t>(event.values[1]), tracefs_).tgid;
  }
  ConsumeEvent(event);
}

void KernelCollector::ConsumeEvent(const KernelEvent& event) {
  if (!per_cpu_) {
    totals_.events += mapper_.Map(event, staged_);
    return;
  }
  line_events_.clear();
  totals_.events += mapper_.Map(event, line_events_);
  if (line_events_.empty()) return;
  auto it = cpu_logs_.find(event.cpu);
  if (it == cpu_logs_.end()) {
    std::string path = log_path_;
    path.insert(path.size() - 4, "-" + std::to_string(event.cpu));
    event::WriterOptions options;
    options.overwrite = true;
    auto writer = event::LogWriter::Create(path, options);
    if (!writer) {
      if (!error_) error_ = writer.error();
      return;
    }
    it = cpu_logs_.emplace(event.cpu, std::make_pair(std::move(*writer), std::vector<uint8_t>()))
             .first;
  }
  auto& staged = it->second.second;
  staged.insert(staged.end(), line_events_.begin(), line_events_.end());
}

void KernelCollector::FlushStaged(bool all) {
  if (all || staged_.size() >= kFlushBytes) {
    if (auto r = writer_->WriteEncoded(staged_); !r && !error_) error_ = r.error();
    staged_.clear();
  }
  for (auto& [cpu, log] : cpu_logs_) {
    if (all || log.second.size() >= kFlushBytes) {
      if (auto r = log.first.WriteEncoded(log.second); !r && !error_) error_ = r.error();
      log.second.clear();
    }
  }
}

bool KernelCollector::ReadAvailable() {
  if (raw_) {
    bool any = false;
    while (raw_->ReadAvailable([this](const KernelEvent& event) { ConsumeEvent(event); })) {
      any = true;
      FlushStaged(false);
    }
    return any;
  }
  char buffer[kReadBytes];
  bool any = false;
  for (;;) {
    const ssize_t n = read(instance_.pipe_fd(), buffer, sizeof buffer);
    if (n <= 0) break;
    any = true;
    std::string_view data(buffer, static_cast<size_t>(n));
    while (!data.empty()) {
      const size_t newline = data.find('\n');
      if (newline == std::string_view::npos) {
        pending_.append(data);
        break;
      }
      if (pending_.empty()) {
        Consume(data.substr(0, newline));
      } else {
        pending_.append(data.substr(0, newline));
        Consume(pending_);
        pending_.clear();
      }
      data.remove_prefix(newline + 1);
    }
    FlushStaged(false);
  }
  return any;
}

void KernelCollector::Run() {
  prctl(PR_SET_NAME, "rastrace-kernel");
  while (!stop_.load()) {
    if (raw_) {
      raw_->Wait(kPollMs);
    } else {
      pollfd pfd{instance_.pipe_fd(), POLLIN, 0};
      poll(&pfd, 1, kPollMs);
    }
    ReadAvailable();
  }
}

Result<KernelTotals> KernelCollector::Finish() {
  (void)instance_.SetTracing(false);
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  while (ReadAvailable()) {
  }
  if (raw_) {
    raw_->Flush([this](const KernelEvent& event) { ConsumeEvent(event); });
  }
  if (!pending_.empty()) {
    Consume(pending_);
    pending_.clear();
  }
  totals_.lost = instance_.LostEvents();
  if (totals_.lost != 0) {
    AppendWords(event::kHookLost, 0, {totals_.lost, 0}, 0, 0, false, staged_);
  }
  FlushStaged(true);
  for (auto& [cpu, log] : cpu_logs_) {
    if (auto r = log.first.Close(); !r && !error_) error_ = r.error();
  }
  if (auto r = writer_->Close(); !r && !error_) error_ = r.error();
  if (error_) return *error_;
  return totals_;
}

}  // namespace rastrace::session
