// Loading throughput (events/s) of `rastrace sql`'s tables and the time of a question over a
// loaded log, on a synthetic system-wide session log whose kernel events are mapped by the
// session's own code (src/session/kernel_events.cc). `query_benchmark --make-log=PATH
// [--events=N]` only writes that log (bench/sql_compare.sh uses it).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bitset>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "event/format.h"
#include "event/timebase.h"
#include "event/writer.h"
#include "query/trace_database.h"
#include "session/event_builder.h"
#include "session/kernel_events.h"
#include "session/trace_line.h"

namespace rastrace::query {
namespace {

constexpr uint64_t kStartSeconds = 1795248470;

// A session of 8 processes with 4 threads each on 2 cpus calling a mix of system calls: most
// take microseconds, one in a thousand milliseconds; a context switch every eighth call.
void MakeSessionLog(const std::string& path, uint64_t events) {
  auto writer = event::LogWriter::Create(path, {.overwrite = true});
  if (!writer.ok()) throw std::runtime_error(writer.error().message);
  std::vector<uint8_t> out;
  auto flush = [&] {
    if (!writer->WriteEncoded(out).ok()) throw std::runtime_error("cannot write " + path);
    out.clear();
  };
  const uint64_t t0 = 1'000'000'000;
  session::AppendWords(event::kHookTraceOn, 0, {0}, 0, t0, true, out);
  std::vector<uint8_t> header;
  for (std::string_view s : {"Linux", "benchhost", "6.1.0", "#1", "x86_64", "trace -a"}) {
    session::AppendS2(s, header);
  }
  session::AppendGeneric(event::kHookHeader, 0, kStartSeconds, header, 0, t0, true, out);
  std::vector<uint8_t> conversion = event::EncodeTimeConversion({1, 1, 0}, NativeByteOrder());
  session::AppendGeneric(event::kHookUtil, event::kUtilTimeConversion, 0, conversion, 0, t0, true,
                         out);
  constexpr uint32_t kProcesses = 8, kThreads = 4;
  std::bitset<65536> all;
  all.set();
  session::KernelEventMapper mapper(
      all, [](uint32_t pid) { return fmt::format("/usr/bin/worker{}", pid); });
  for (uint32_t p = 0; p < kProcesses; ++p) {
    const uint32_t pid = 1000 + p * 10;
    for (uint32_t t = 0; t < kThreads; ++t) {
      session::AppendProcessEvent(pid, 1, pid + t, fmt::format("/usr/bin/worker{}", pid), 0, out);
      mapper.KnowThread(pid + t, pid);
    }
  }
  static constexpr std::pair<uint32_t, std::string_view> kCalls[] = {
      {0, "read"},    {1, "write"},        {257, "openat"}, {3, "close"},
      {202, "futex"}, {232, "epoll_wait"}, {9, "mmap"},     {35, "nanosleep"}};
  uint64_t now = t0;
  std::string body;
  std::string comm;
  uint64_t written = 0;
  uint64_t round = 0;
  uint64_t random = 88172645463325252ull;
  auto next_random = [&] {
    random ^= random << 13;
    random ^= random >> 7;
    random ^= random << 17;
    return random;
  };
  session::SyscallTable syscalls;
  auto map = [&](uint32_t tid, uint32_t pid, uint32_t cpu, std::string_view name,
                 std::string_view text) {
    session::TraceLine line;
    comm = fmt::format("worker{}", pid);
    line.comm = comm;
    line.tid = tid;
    line.tgid = pid;
    line.cpu = cpu;
    line.timestamp_ns = now;
    line.event = name;
    line.body = text;
    session::KernelEvent kernel_event;
    if (session::ToKernelEvent(line, syscalls, kernel_event)) {
      written += mapper.Map(kernel_event, out);
    }
  };
  while (written < events) {
    const uint32_t p = static_cast<uint32_t>(round % kProcesses);
    const uint32_t pid = 1000 + p * 10;
    const uint32_t tid = pid + static_cast<uint32_t>((round / kProcesses) % kThreads);
    const uint32_t cpu = static_cast<uint32_t>(round % 2);
    const auto& [nr, name] = kCalls[next_random() % std::size(kCalls)];
    now += 200 + next_random() % 800;
    body =
        fmt::format("NR {} ({:x}, {:x}, {:x}, 0, 0, 0)", nr, round % 64, 0x7ffd0000 + round, 4096);
    map(tid, pid, cpu, "sys_enter", body);
    const bool slow = next_random() % 1000 == 0;
    now += slow ? 1'000'000 + next_random() % 9'000'000 : 500 + next_random() % 20'000;
    body = fmt::format("NR {} = {}", nr, static_cast<int64_t>(next_random() % 4096) - 100);
    map(tid, pid, cpu, "sys_exit", body);
    if (round % 8 == 7) {
      body = fmt::format(
          "prev_comm=worker prev_pid={} prev_prio=120 prev_state=S ==> next_comm=worker "
          "next_pid={} next_prio=120",
          tid, 1000 + ((round + 1) % kProcesses) * 10);
      map(tid, pid, cpu, "sched_switch", body);
    }
    ++round;
    if (out.size() > (1u << 20)) flush();
  }
  session::AppendWords(event::kHookTraceOff, 0, {0}, 0, now, true, out);
  flush();
  if (!writer->Close().ok()) throw std::runtime_error("cannot close " + path);
}

std::string TempPath(std::string_view name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("rastrace_query_bench_{}_{}", ::getpid(), name))
      .string();
}

double MaxRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

const std::string& LogOf(uint64_t events) {
  static std::map<uint64_t, std::string> made;
  auto& path = made[events];
  if (path.empty()) {
    path = TempPath(fmt::format("session_{}.trc", events));
    MakeSessionLog(path, events);
  }
  return path;
}

void Load(benchmark::State& state, Parts parts, bool templates) {
  const std::string& log = LogOf(static_cast<uint64_t>(state.range(0)));
  uint64_t events = 0;
  for (auto _ : state) {
    LoadInputs inputs;
    inputs.paths = {log};
    if (templates) inputs.templates = {std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt"};
    std::vector<std::string> diagnostics;
    auto db = TraceDatabase::Open(inputs, diagnostics);
    if (!db) {
      state.SkipWithError(db.error().message.c_str());
      return;
    }
    auto loaded = (*db)->loader().Load(parts);
    if (!loaded) {
      state.SkipWithError(loaded.error().message.c_str());
      return;
    }
    events += loaded->events;
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["max_rss_MiB"] = MaxRssMiB();
}

void BM_LoadEvents(benchmark::State& state) {
  Load(state, PartSet({Part::kEvents}), true);
}
void BM_LoadSyscalls(benchmark::State& state) {
  Load(state, PartSet({Part::kSyscalls}), false);
}
void BM_LoadAllButText(benchmark::State& state) {
  Parts parts = AllParts();
  parts.reset(static_cast<size_t>(Part::kEventText));
  Load(state, parts, true);
}
void BM_LoadEverything(benchmark::State& state) {
  Load(state, AllParts(), true);
}
BENCHMARK(BM_LoadEvents)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadSyscalls)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadAllButText)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadEverything)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace rastrace::query

int main(int argc, char** argv) {
  std::string make_log;
  uint64_t events = 10'000'000;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--make-log=")) {
      make_log = std::string(arg.substr(11));
    } else if (arg.starts_with("--events=")) {
      events = std::strtoull(argv[i] + 9, nullptr, 10);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!make_log.empty()) {
    rastrace::query::MakeSessionLog(make_log, events);
    return 0;
  }
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    if (entry.path().filename().string().starts_with(
            fmt::format("rastrace_query_bench_{}_", ::getpid()))) {
      std::filesystem::remove(entry.path());
    }
  }
  return 0;
}
