// Costs of a system-wide session (figures in docs/performance.md, "System-wide sessions"):
//  - a hook in a process attached to a session (the recorder with the session's clock, its rings in
//    flight-recorder files as in a session, or on the heap for comparison);
//  - turning tracefs lines into hooks: the daemon's CPU per kernel event;
//  - merging the logs at trcstop: the daemon's CPU per event written;
//  - recovering the log of a killed process from its flight-recorder rings: the daemon's CPU per
//    event recovered.
#include <benchmark/benchmark.h>
#include <rastrace/trchk.h>
#include <unistd.h>

#include <bitset>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "buffer/event_words.h"
#include "buffer/shm_ring.h"
#include "event/encode.h"
#include "event/format.h"
#include "recorder/log_sink.h"
#include "recorder/recorder.h"
#include "session/event_builder.h"
#include "session/kernel_events.h"
#include "session/merge.h"
#include "session/process_recovery.h"
#include "session/raw_events.h"
#include "session/syscall_table.h"
#include "session/trace_line.h"

namespace rastrace::session {
namespace {

std::string TempDir() {
  const std::string dir = "/tmp/session_bench_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

// An attached process runs the in-process recorder with the session's clock: the TSC when the
// machine has an invariant one (first argument 1), CLOCK_MONOTONIC otherwise (0); with its rings
// in flight-recorder files, as a session places them (second argument 1), or on the heap (0).
void BM_AttachedProcessHook(benchmark::State& state) {
  recorder::RecorderOptions options;
  options.log_path = TempDir() + "/hooks.trc";
  options.clock =
      state.range(0) != 0 ? recorder::ClockChoice::kTsc : recorder::ClockChoice::kMonotonic;
  if (state.range(1) != 0) {
    options.shm_path = TempDir() + "/shm";
    std::filesystem::create_directories(options.shm_path);
    std::filesystem::permissions(options.shm_path, std::filesystem::perms::owner_all);
  }
  std::filesystem::remove(options.log_path);
  auto started = recorder::Recorder::Get().Start(options);
  if (!started) {
    state.SkipWithError(started.error().message.c_str());
    return;
  }
  uint64_t i = 0;
  for (auto _ : state) TRCHKL5T(0x02000000, i++, 2, 3, 4, 5);
  (void)recorder::Recorder::Get().Stop();
  std::filesystem::remove_all(TempDir());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AttachedProcessHook)->Args({1, 1})->Args({0, 1})->Args({1, 0})->Args({0, 0});

void BM_KernelLineToHook(benchmark::State& state) {
  const std::string lines[] = {
      "            bash-27796   (  27796) [000] .....  1986.794937: sys_enter: NR 0 (3, "
      "7ffdc5532490, 340, 0, 7, b)",
      "            bash-27796   (  27796) [000] .....  1986.794959: sys_exit: NR 0 = 832",
      "            bash-27796   (  27796) [001] d..2.  1986.794961: sched_switch: prev_comm=bash "
      "prev_pid=27796 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 "
      "next_prio=120",
  };
  std::bitset<65536> all;
  all.set();
  KernelEventMapper mapper(all, nullptr);
  mapper.KnowThread(27796, 27796);
  SyscallTable syscalls;
  std::vector<uint8_t> out;
  out.reserve(1 << 20);
  size_t n = 0;
  KernelEvent event;
  for (auto _ : state) {
    auto line = ParseTraceLine(lines[n++ % 3]);
    if (ToKernelEvent(*line, syscalls, event)) mapper.Map(event, out);
    if (out.size() > (1 << 19)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KernelLineToHook);

// The binary reader's path per event: a record of the kernel's buffers decoded by its format and
// mapped to a hook (a dd-like storm: read and write entries and returns of one thread), no text.
void BM_KernelRecordToHook(benchmark::State& state) {
  const std::string dir = std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/session/tracefs/";
  SyscallTable syscalls;
  RawEventDecoder decoder([](uint32_t tid) { return RawEventDecoder::Task{tid, "dd"}; }, &syscalls);
  std::vector<std::vector<uint8_t>> records;
  for (const char* name : {"sys_enter_read", "sys_exit_read"}) {
    auto format = ReadEventFormat(dir + name + ".format");
    if (!format || !decoder.AddFormat(*format)) {
      state.SkipWithError("cannot read the golden formats");
      return;
    }
    std::vector<uint8_t> record(40, 0);
    std::memcpy(record.data(), &format->id, 2);
    const uint32_t pid = 4242;
    std::memcpy(record.data() + 4, &pid, 4);
    records.push_back(std::move(record));
  }
  std::bitset<65536> all;
  all.set();
  KernelEventMapper mapper(all, nullptr);
  mapper.KnowThread(4242, 4242);
  std::vector<uint8_t> out;
  out.reserve(1 << 20);
  KernelEvent event;
  uint64_t n = 0;
  for (auto _ : state) {
    const RawRecord record{n, records[n & 1]};
    ++n;
    decoder.Prime(record);
    if (decoder.Decode(record, 1, event)) mapper.Map(event, out);
    if (out.size() > (1 << 19)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KernelRecordToHook);

void BM_MergeAtStop(benchmark::State& state) {
  const std::string dir = TempDir();
  const int64_t per_log = state.range(0);
  std::vector<MergeInput> inputs;
  for (int log = 0; log < 4; ++log) {
    std::vector<uint8_t> bytes;
    event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
    for (int64_t i = 0; i < per_log; ++i) {
      AppendWords(0x0200, 0, {static_cast<uint64_t>(i), 2}, 100 + log,
                  static_cast<uint64_t>(i * 4 + log), true, bytes);
    }
    const std::string path = dir + "/p" + std::to_string(100 + log) + "-1.trc";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    inputs.push_back({path, static_cast<uint64_t>(100 + log)});
  }
  recorder::RecorderOptions options;
  for (auto _ : state) {
    auto sink = recorder::LogSink::Open(
        dir + "/merged.trc", options, [](std::vector<uint8_t>&) {},
        [](uint64_t, std::vector<uint8_t>&) {});
    auto totals = MergeLogs(inputs, *sink);
    benchmark::DoNotOptimize(totals);
    (void)sink->Close();
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * per_log * 4);
}
BENCHMARK(BM_MergeAtStop)->Arg(250000)->Unit(benchmark::kMillisecond);

// A process killed with `state.range(0)` events in its ring and none in its log: what the daemon
// does when the reaper sees it end (process_recovery.h). The ring is filled untimed.
void BM_RecoverKilledProcess(benchmark::State& state) {
  const std::string procs = TempDir() + "/procs";
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  const uint64_t pid = static_cast<uint64_t>(getpid());
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove_all(procs);
    const std::string shm = procs + "/p" + std::to_string(pid) + "-1.shm";
    std::filesystem::create_directories(shm);
    std::filesystem::permissions(procs, std::filesystem::perms::owner_all);
    std::filesystem::permissions(shm, std::filesystem::perms::owner_all);
    const std::string log = procs + "/p" + std::to_string(pid) + "-1.trc";
    auto process = buffer::ShmProcess::Create(shm, buffer::Mode::kAlternate, {}, log);
    if (!process) {
      state.SkipWithError(process.error().message.c_str());
      return;
    }
    auto file = (*process)->CreateRing(events * 32 * 2, buffer::Mode::kAlternate, 7, "bench");
    if (!file) {
      state.SkipWithError(file.error().message.c_str());
      return;
    }
    buffer::RingBuffer ring((*file)->placement(/*hold=*/true), buffer::Mode::kAlternate, 7);
    for (uint64_t i = 0; i < events; ++i) {
      uint64_t at = 0;
      if (!ring.Reserve(4, &at)) break;
      ring.Put(at, buffer::MakeHookword(event::kFlagTimestamp, 8, 0x02000000));
      ring.Put(at + 1, i);
      ring.Put(at + 2, 7);
      ring.Put(at + 3, 1000 + i);
      ring.Publish(at + 4);
    }
    state.ResumeTiming();
    const uint64_t finished[] = {pid};
    auto totals = RecoverEndedProcesses(procs, finished);
    if (totals.events != events) {
      state.SkipWithError("not every event was recovered");
      return;
    }
  }
  std::filesystem::remove_all(TempDir());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_RecoverKilledProcess)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rastrace::session

BENCHMARK_MAIN();
