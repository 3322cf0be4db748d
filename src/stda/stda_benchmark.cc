// Speed of the STDA recording target and of tracefmt's formatting. Figures: docs/performance.md,
// section "OS/2: trcust, STDA, tracefmt".
#include <benchmark/benchmark.h>

#include <vector>

#include "stda/report.h"
#include "stda/stda.h"
#include "tsf/fmt.h"
#include "tsf/format_file.h"

namespace rastrace::stda {
namespace {

void BM_TraceBufferWrite(benchmark::State& state) {
  auto buffer = TraceBuffer::Create(Format::kNew, kMaxStdaSize).value();
  const std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x5A);
  const RecordSpec record{0x42, 1, 100, flag::kNotKernel, {8, 30, 15, 50}, data};
  for (auto _ : state) {
    auto r = buffer.Write(record);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size() + 12));
}
BENCHMARK(BM_TraceBufferWrite)->Arg(0)->Arg(16)->Arg(128);

// DosSysTrace adds the pid and the wall-clock timestamp (localtime) to every record.
void BM_DosSysTrace(benchmark::State& state) {
  (void)ConfigureSystemBuffer(Format::kNew, kMaxStdaSize);
  const std::vector<uint8_t> data(16, 0x5A);
  for (auto _ : state) {
    auto r = DosSysTrace(0x42, 1, data);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DosSysTrace);

// Reading a full 64 KiB buffer of 16-byte records backward.
void BM_ReadStda(benchmark::State& state) {
  auto buffer = TraceBuffer::Create(Format::kNew, kMaxStdaSize).value();
  const std::vector<uint8_t> data(16, 0x5A);
  for (int i = 0; i < 5000; ++i) {
    (void)buffer.Write({0x42, 1, 100, flag::kNotKernel, {8, 30, 15, 50}, data});
  }
  const auto image = buffer.Snapshot();
  size_t records = 0;
  for (auto _ : state) {
    StdaContents c = ReadStda(image);
    records = c.records.size();
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records));
}
BENCHMARK(BM_ReadStda);

// tracefmt's text for one record of the seed 004 DosOpen tracepoint (heading and three FMT lines).
void BM_FormatRecord(benchmark::State& state) {
  tsf::TracepointFormat entry;
  entry.minor = 1;
  entry.desc = "(OS) DosOpen    Pre-Invocation";
  entry.fmt = {"Major = %X  Minor = %Y", "            EAX = %D", "            FileName = %P%S"};
  for (const auto& f : entry.fmt) entry.parsed.push_back(tsf::ParseFmt(f).value());
  Record r;
  r.major = 0x64;
  r.minor = 1;
  r.pid = 1234;
  r.flags = flag::kNotKernel | flag::kDynamic;
  r.time = Timestamp{8, 30, 15, 50};
  r.data = {0x2C, 0x4B, 0, 0, 0, 13, 0};
  for (char c : std::string("C:\\CONFIG.SYS")) r.data.push_back(static_cast<uint8_t>(c));
  std::string out;
  for (auto _ : state) {
    out.clear();
    AppendRecordText(1, r, Format::kNew, &entry, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FormatRecord);

}  // namespace
}  // namespace rastrace::stda

BENCHMARK_MAIN();
