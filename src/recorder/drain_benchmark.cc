// The writer side: how fast rings are drained into a log file, and what a producer loses when it
// records at a given rate with the default sizes.
//
//   BM_DrainOnce/<threads>: one DrainOnce over rings holding 4 MiB of TRCHKL1T events each,
//     merged by timestamp, into a log in $TMPDIR (default /tmp): events/s and bytes/s.
//   BM_RecordToLog/<M events/s>/<direct>/<bytes>/<shm>: one thread records 50 M TRCHKL1T events
//     (32 bytes) or TRCHKL0T events (24 bytes, a timestamped hook without data) paced at that
//     rate (0 = as fast as it can) with default options (alternate mode, 4 MiB per thread), the
//     log written with O_DIRECT (direct:1, the default) or through the page cache (direct:0), the
//     rings in memory (shm:0, the library's default) or recoverable, in files of a directory in
//     /dev/shm with the writer's checkpoints (shm:1, the default of `rastrace record`); the time
//     runs until the log is complete. Counters: written and lost events, the rate achieved,
//     checkpoints published.
//     RASTRACE_BENCH_LOG names another log (e.g. /dev/null); RASTRACE_BENCH_BUFFER another ring
//     size.
#include <benchmark/benchmark.h>
#include <rastrace/trchk.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recorder/clock.h"
#include "recorder/drain.h"
#include "recorder/header_events.h"
#include "recorder/log_sink.h"
#include "recorder/recorder.h"

namespace rastrace::recorder {
namespace {

std::string LogPath(const char* name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// CPU time so far of this process's threads named `thread_name` (rastrace-writer, rastrace-io),
// from /proc/self/task/*/schedstat (nanoseconds on a CPU).
uint64_t ThreadsCpuNs(std::string_view thread_name) {
  uint64_t total = 0;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (!std::getline(comm, name) || name != thread_name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    uint64_t on_cpu = 0;
    if (schedstat >> on_cpu) total += on_cpu;
  }
  return total;
}

void Fill(ThreadSlot& slot, uint64_t first_ts, uint64_t step) {
  buffer::RingBuffer& ring = slot.ring;
  ring.Release(ring.head());
  const uint64_t hookword = buffer::MakeHookword(event::kFlagTimestamp, 8, 0x01100000);
  uint64_t ts = first_ts;
  uint64_t at = 0;
  while (ring.Reserve(4, &at)) {
    ring.Put(at, hookword);
    ring.Put(at + 1, ts);
    ring.Put(at + 2, ring.thread_id());
    ring.Put(at + 3, ts);
    ring.Publish(at + 4);
    ts += step;
    if (ring.head() - ring.tail() + 4 > ring.capacity_bytes() / 8) break;
  }
}

void BM_DrainOnce(benchmark::State& state) {
  const auto threads = static_cast<size_t>(state.range(0));
  std::vector<std::unique_ptr<ThreadSlot>> owned;
  std::vector<ThreadSlot*> slots;
  for (size_t t = 0; t < threads; ++t) {
    owned.push_back(
        std::make_unique<ThreadSlot>(kDefaultBufferBytes, buffer::Mode::kAlternate, 1000 + t));
    slots.push_back(owned.back().get());
  }
  const std::string path = LogPath("rastrace-drain-benchmark.log");
  RecorderOptions options;
  uint64_t events = 0, bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    // Threads interleave finely (timestamps t, t+threads, ...): the hardest merge.
    for (size_t t = 0; t < threads; ++t) Fill(*slots[t], t, threads);
    auto sink = LogSink::Open(
        path, options, [](std::vector<uint8_t>&) {}, [](uint64_t, std::vector<uint8_t>&) {});
    if (!sink) {
      state.SkipWithError(sink.error().message.c_str());
      return;
    }
    state.ResumeTiming();
    const DrainResult result = DrainOnce(slots, *sink, 0);
    if (auto closed = sink->Close(); !closed) {
      state.SkipWithError(closed.error().message.c_str());
      return;
    }
    events += result.events;
    bytes += result.bytes;
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_DrainOnce)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_RecordToLog(benchmark::State& state) {
  constexpr uint64_t kEvents = 50'000'000;
  const double rate = static_cast<double>(state.range(0)) * 1e6;  // events per second, 0 = max
  // RASTRACE_BENCH_LOG=/dev/null: the same without the disk, to tell the writer's own limit from
  // the disk's (the file named there is left in place).
  const char* log_override = std::getenv("RASTRACE_BENCH_LOG");
  const std::string path = log_override ? log_override : LogPath("rastrace-record-benchmark.log");
  // Defaults: alternate mode, 4 MiB per thread growing up to 64 MiB, no log limit.
  RecorderOptions options;
  options.log_path = path;
  options.direct_io = state.range(1) != 0;
  const int64_t event_bytes = state.range(2);
  std::string shm_dir;
  if (state.range(3) != 0) {
    shm_dir = "/dev/shm/rastrace-bench-XXXXXX";
    if (mkdtemp(shm_dir.data()) == nullptr) {
      state.SkipWithError("cannot make a directory in /dev/shm");
      return;
    }
    options.shm_path = shm_dir;
  }
  // RASTRACE_BENCH_BUFFER=8M: another ring size, to tell how long the writer's longest stall is;
  // RASTRACE_BENCH_BUFFER_MAX=4M: how far rings may grow (the ring size itself: fixed rings).
  for (auto [name, target] : {std::pair{"RASTRACE_BENCH_BUFFER", &options.buffer_bytes},
                              std::pair{"RASTRACE_BENCH_BUFFER_MAX", &options.buffer_max_bytes}}) {
    const char* size = std::getenv(name);
    if (size == nullptr) continue;
    auto bytes = ParseSize(size, name);
    if (!bytes) {
      state.SkipWithError(bytes.error().message.c_str());
      return;
    }
    *target = *bytes;
  }
  uint64_t written = 0, lost = 0, writer_ns = 0, io_ns = 0, growths = 0, largest = 0,
           checkpoints = 0;
  double seconds = 0;
  for (auto _ : state) {
    if (auto started = Recorder::Get().Start(options); !started) {
      state.SkipWithError(started.error().message.c_str());
      return;
    }
    (void)CurrentThreadRing();  // register before the clock starts
    const double ns_per_event = rate > 0 ? 1e9 / rate : 0;
    const auto begin = std::chrono::steady_clock::now();
    const uint64_t begin_ns = MonotonicNanoseconds();
    for (uint64_t i = 0; i < kEvents; ++i) {
      if (event_bytes == 24) {
        TRCHKL0T(0x01000000);
      } else {
        TRCHKL1T(0x01100000, i);
      }
      if (rate > 0 && (i & 63) == 63) {
        const auto due = begin_ns + static_cast<uint64_t>(static_cast<double>(i) * ns_per_event);
        while (MonotonicNanoseconds() < due) _mm_pause();
      }
    }
    // Before Stop, while the threads still exist.
    writer_ns += ThreadsCpuNs("rastrace-writer");
    io_ns += ThreadsCpuNs("rastrace-io");
    auto totals = Recorder::Get().Stop();
    const auto end = std::chrono::steady_clock::now();
    if (!totals) {
      state.SkipWithError(totals.error().message.c_str());
      return;
    }
    const double elapsed = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    written += totals->events_written;
    lost += totals->events_lost;
    growths += totals->ring_growths;
    checkpoints += totals->checkpoints;
    largest = std::max(largest, totals->largest_ring_bytes);
  }
  if (log_override == nullptr) std::remove(path.c_str());
  if (!shm_dir.empty()) std::filesystem::remove_all(shm_dir);
  state.counters["written_per_s"] = static_cast<double>(written) / seconds;
  state.counters["MB_per_s"] =
      static_cast<double>(written) * static_cast<double>(event_bytes) / seconds / 1e6;
  // CPU time of the writer thread and of the log's I/O threads per GB written.
  const double gigabytes = static_cast<double>(written) * static_cast<double>(event_bytes) / 1e9;
  state.counters["writer_cpu_ms_per_GB"] = static_cast<double>(writer_ns) / 1e6 / gigabytes;
  state.counters["io_cpu_ms_per_GB"] = static_cast<double>(io_ns) / 1e6 / gigabytes;
  state.counters["lost"] = static_cast<double>(lost) / static_cast<double>(state.iterations());
  state.counters["ring_growths"] = static_cast<double>(growths);
  if (!shm_dir.empty()) state.counters["checkpoints"] = static_cast<double>(checkpoints);
  state.counters["ring_MiB"] = static_cast<double>(largest) / (1 << 20);
  state.counters["lost_pct"] =
      100.0 * static_cast<double>(lost) / static_cast<double>(kEvents * state.iterations());
}
BENCHMARK(BM_RecordToLog)
    ->ArgNames({"Mevents_per_s", "direct", "bytes", "shm"})
    ->ArgsProduct({{0, 25, 50}, {1, 0}, {32}, {0}})
    ->ArgsProduct({{0, 50}, {1}, {24}, {0}})
    ->ArgsProduct({{0, 50}, {1}, {32}, {1}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rastrace::recorder

BENCHMARK_MAIN();
