// How fast DirectFile appends to a file on a real disk: 4 GiB in 64 KiB appends into a file in
// $TMPDIR (default /tmp), closed at the end, so the figure includes the last chunk reaching the
// disk. Bytes/s is by wall clock (the disk's share); the CPU column is the appending thread's.
//
//   BM_DirectAppend/<chunks>/<MiB per chunk>/<writes in flight>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "event/direct_file.h"

namespace rastrace::event {
namespace {

constexpr size_t kTotalBytes = size_t{4} << 30;
constexpr size_t kAppendBytes = size_t{64} << 10;

void BM_DirectAppend(benchmark::State& state) {
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/rastrace-direct-benchmark.bin";
  DirectFileOptions options;
  options.chunks = static_cast<size_t>(state.range(0));
  options.chunk_bytes = static_cast<size_t>(state.range(1)) << 20;
  options.in_flight = static_cast<size_t>(state.range(2));
  std::vector<uint8_t> bytes(kAppendBytes, 0x5a);
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      state.SkipWithError("cannot create the file");
      return;
    }
    auto file = DirectFile::Open(fd, path, options);
    if (!file) {
      ::close(fd);
      state.SkipWithError(file.error().message.c_str());
      return;
    }
    for (size_t done = 0; done < kTotalBytes; done += kAppendBytes) {
      if (auto appended = (*file)->Append(bytes); !appended) {
        state.SkipWithError(appended.error().message.c_str());
        break;
      }
    }
    if (auto closed = (*file)->Close(); !closed)
      state.SkipWithError(closed.error().message.c_str());
    ::close(fd);
  }
  ::unlink(path.c_str());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kTotalBytes));
}
BENCHMARK(BM_DirectAppend)
    ->ArgNames({"chunks", "MiB", "in_flight"})
    ->Args({4, 1, 1})
    ->Args({4, 1, 2})
    ->Args({8, 1, 1})
    ->Args({8, 1, 2})
    ->Args({8, 1, 4})
    ->Args({4, 2, 2})
    ->Args({16, 1, 2})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rastrace::event

BENCHMARK_MAIN();
