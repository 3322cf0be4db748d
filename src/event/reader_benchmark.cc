// Decoding speed of the log reader: TRCHKL5T events (64-bit, five words, timestamped), from memory
// and through a file in the page cache.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "event/encode.h"
#include "event/reader.h"

namespace rastrace::event {
namespace {

constexpr int kEvents = 1 << 18;  // 16 MiB of 64-byte events

const std::vector<uint8_t>& HookL5TLog() {
  static const std::vector<uint8_t> log = [] {
    std::vector<uint8_t> bytes;
    EncodeMagic(Layout::k64, NativeByteOrder(), bytes);
    EventFields f;
    f.hook_id = 0x1230;
    f.timestamped = true;
    f.word_count = 5;
    for (int i = 0; i < kEvents; ++i) {
      f.subhook = static_cast<uint16_t>(i);
      f.words = {1, 2, 3, 4, static_cast<uint64_t>(i)};
      f.thread_id = 1000 + static_cast<uint64_t>(i % 8);
      f.timestamp = static_cast<uint64_t>(i) * 10;
      if (!Encode(f, Layout::k64, NativeByteOrder(), bytes).ok()) std::abort();
    }
    return bytes;
  }();
  return log;
}

// Decodes every event, summing a field so the work cannot be optimised away.
void ReadAll(benchmark::State& state, LogReader& reader) {
  Event event;
  uint64_t sum = 0;
  int count = 0;
  while (reader.Next(event) == ReadStatus::kEvent) {
    sum += event.words[4];
    ++count;
  }
  if (count != kEvents) state.SkipWithError("wrong event count");
  benchmark::DoNotOptimize(sum);
}

void BM_ReadFromMemory(benchmark::State& state) {
  const auto& log = HookL5TLog();
  for (auto _ : state) {
    auto reader = LogReader::FromBytes(log);
    ReadAll(state, *reader);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.size()));
}
BENCHMARK(BM_ReadFromMemory)->Unit(benchmark::kMillisecond);

void BM_ReadFromFile(benchmark::State& state) {
  const auto& log = HookL5TLog();
  std::string path = "/tmp/rastrace_reader_benchmark_" + std::to_string(::getpid()) + ".log";
  std::FILE* out = std::fopen(path.c_str(), "wb");
  std::fwrite(log.data(), 1, log.size(), out);
  std::fclose(out);
  for (auto _ : state) {
    auto reader = LogReader::Open(path);
    if (!reader) state.SkipWithError(reader.error().message.c_str());
    ReadAll(state, *reader);
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.size()));
}
BENCHMARK(BM_ReadFromFile)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rastrace::event

BENCHMARK_MAIN();
