// Export throughput per format (events/s, input MB/s) and peak memory at two log sizes, to show it
// stays flat. `export_benchmark --make-log=PATH [--events=N]` only writes the synthetic log (used
// by bench/babeltrace_compare.sh).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "event/format.h"
#include "event/timebase.h"
#include "event/writer.h"
#include "export/export_run.h"
#include "export/exporter.h"
#include "export/merge_writer.h"
#include "export/template_text.h"
#include "schema/descriptions.h"

namespace rastrace::exporter {
namespace {

// A recorder-like mix, written event by event (the generator must not hold the log in memory
// either): process table, then per thread a system call pair with a hook of three words between,
// and every fourth round a generic event with a 25-byte buffer.
void MakeLog(const std::string& path, uint64_t events, uint64_t tick_scale = 1,
             uint16_t hook = 0x1230) {
  auto writer = event::LogWriter::Create(path, {.overwrite = true});
  if (!writer.ok()) throw std::runtime_error(writer.error().message);
  const auto write = [&](const event::EventFields& f) {
    if (!writer->Write(f).ok()) throw std::runtime_error("cannot write " + path);
  };
  const auto conversion = event::EncodeTimeConversion({1, 1, 2}, writer->byte_order());
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilTimeConversion;
  f.generic = true;
  f.buffer = conversion;
  write(f);
  uint64_t ticks = 1'000'000;
  const auto hook_event = [&](uint16_t id, uint64_t tid, uint64_t advance,
                              std::initializer_list<uint64_t> words) {
    event::EventFields h;
    h.hook_id = id;
    h.subhook = 1;
    h.thread_id = tid;
    h.timestamped = true;
    h.timestamp = (ticks += advance) * tick_scale;
    for (uint64_t w : words) h.words[h.word_count++] = w;
    write(h);
  };
  static constexpr std::string_view kData = "twenty-five bytes of data";
  for (uint64_t i = 0; i < events;) {
    const uint64_t tid = 1000 + (i % 8);
    hook_event(0x1010, tid, 7, {i});
    hook_event(hook, tid, 11, {i, i * 3, 0xFFFF0000});
    hook_event(0x1040, tid, 5, {0});
    i += 3;
    if (i % 4 == 0) {
      event::EventFields g;
      g.hook_id = 0x4560;
      g.thread_id = tid;
      g.timestamped = true;
      g.timestamp = (ticks += 3) * tick_scale;
      g.generic = true;
      g.generic_word = i;
      g.buffer = std::span(reinterpret_cast<const uint8_t*>(kData.data()), kData.size());
      write(g);
      ++i;
    }
  }
  if (!writer->Close().ok()) throw std::runtime_error("cannot close " + path);
}

std::string TempPath(std::string_view name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("rastrace_export_bench_{}_{}", ::getpid(), name))
      .string();
}

double MaxRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void ExportFormat(benchmark::State& state, Format format, bool with_text) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  const std::string log_path = TempPath(fmt::format("in_{}.trc", events));
  if (!std::filesystem::exists(log_path)) MakeLog(log_path, events);
  const uint64_t log_bytes = std::filesystem::file_size(log_path);
  // As `rastrace export` runs: the default template file describes the events (schemas), and
  // with text also runs for the text column.
  schema::DescriptionProblems problems;
  auto descriptions = schema::LoadDescriptions(
      {.given = {std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt"}}, problems);
  if (!descriptions.ok()) {
    state.SkipWithError(descriptions.error().message.c_str());
    return;
  }
  std::unique_ptr<TemplateText> templates;
  if (with_text) templates = TemplateText::Create((*descriptions)->templates);
  const std::string out = format == Format::kCtf ? TempPath("ctf") : "/dev/null";
  uint64_t exported = 0;
  for (auto _ : state) {
    auto stream = MergedStream::Open(std::vector<std::string>{log_path});
    schema::Decoder decoder((*descriptions)->sources());
    auto exporter = CreateExporter(format, out,
                                   {.stream = &stream.value(),
                                    .catalog = &decoder.catalog(),
                                    .declarations = &(*descriptions)->declarations,
                                    .force = true});
    if (!exporter.ok()) {
      state.SkipWithError(exporter.error().message.c_str());
      return;
    }
    auto summary = RunExport(*stream, **exporter, templates.get(), decoder);
    if (!summary.ok()) {
      state.SkipWithError(summary.error().message.c_str());
      return;
    }
    exported += summary->events;
  }
  state.SetItemsProcessed(static_cast<int64_t>(exported));
  state.SetBytesProcessed(static_cast<int64_t>(log_bytes * state.iterations()));
  state.counters["max_rss_MiB"] = MaxRssMiB();
  if (format == Format::kCtf) std::filesystem::remove_all(out);
}

void BM_ExportCtf(benchmark::State& s) {
  ExportFormat(s, Format::kCtf, false);
}
void BM_ExportChrome(benchmark::State& s) {
  ExportFormat(s, Format::kChrome, false);
}
void BM_ExportJsonl(benchmark::State& s) {
  ExportFormat(s, Format::kJsonl, false);
}
void BM_ExportCsv(benchmark::State& s) {
  ExportFormat(s, Format::kCsv, false);
}
void BM_ExportJsonlWithText(benchmark::State& s) {
  ExportFormat(s, Format::kJsonl, true);
}

// Two logs with different clocks merged into one.
void BM_Merge(benchmark::State& state) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  const std::string a = TempPath(fmt::format("merge_a_{}.trc", events));
  const std::string b = TempPath(fmt::format("merge_b_{}.trc", events));
  if (!std::filesystem::exists(a)) MakeLog(a, events / 2, 1, 0x1230);
  if (!std::filesystem::exists(b)) MakeLog(b, events / 2, 3, 0x7890);
  const uint64_t bytes = std::filesystem::file_size(a) + std::filesystem::file_size(b);
  uint64_t merged = 0;
  for (auto _ : state) {
    auto stream = MergedStream::Open(std::vector<std::string>{a, b});
    auto writer = event::LogWriter::Create("/dev/null", {.overwrite = true});
    if (!writer.ok()) {
      state.SkipWithError(writer.error().message.c_str());
      return;
    }
    auto stats = WriteMergedLog(*stream, *writer);
    if (!stats.ok()) {
      state.SkipWithError(stats.error().message.c_str());
      return;
    }
    merged += stats->events;
  }
  state.SetItemsProcessed(static_cast<int64_t>(merged));
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.counters["max_rss_MiB"] = MaxRssMiB();
}

constexpr int64_t kSmall = 200'000;
constexpr int64_t kLarge = 2'000'000;
BENCHMARK(BM_ExportCtf)->Arg(kSmall)->Arg(kLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportChrome)->Arg(kSmall)->Arg(kLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportJsonl)->Arg(kSmall)->Arg(kLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportCsv)->Arg(kSmall)->Arg(kLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportJsonlWithText)->Arg(kSmall)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Merge)->Arg(kSmall)->Arg(kLarge)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rastrace::exporter

int main(int argc, char** argv) {
  // --make-log=PATH [--events=N]: write the synthetic log and stop.
  std::string make_log;
  uint64_t events = 1'000'000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--make-log=", 11) == 0) make_log = argv[i] + 11;
    if (std::strncmp(argv[i], "--events=", 9) == 0)
      events = std::strtoull(argv[i] + 9, nullptr, 10);
  }
  if (!make_log.empty()) {
    rastrace::exporter::MakeLog(make_log, events);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  // The synthetic logs are kept between benchmarks of one run, removed at its end.
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    if (entry.path().filename().string().rfind(fmt::format("rastrace_export_bench_{}_", ::getpid()),
                                               0) == 0) {
      std::filesystem::remove_all(entry.path());
    }
  }
  return 0;
}
