// trcrpt speed: events formatted per second in one thread for a typical mix of templates (a
// label, an X4, two data words, one SWITCH) written to /dev/null; the --jobs speedup; and the
// peak RSS of a report over a multi-GB log generated in /tmp (RASTRACE_BENCH_LOG_GB, default 2).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "event/log_builder.h"
#include "report/options.h"
#include "report/report.h"

namespace rastrace::report {
namespace {

using event::testing::LogBuilder;

constexpr std::string_view kMixTemplates =
    "010 1.0 L=APPL \"LABEL ONLY\"\n"
    "011 1.0 L=APPL \"HEX\" W1 X4\n"
    "012 1.0 L=APPL \"TWO WORDS\" W1 UW UW\n"
    "013 1.0 L=APPL \"SWITCH\" W1 UW, 1 \"one\", 2 \"two\", \\* \"other\"\n"
    // As in the default templates: 00A/108 (a thread's CPU) prints nothing.
    "00A 1.0 L=0 \"@UTIL\" G6 X2, 0108 { $SKIP }, \\* \"utility\"\n";

// Appends `count` events of the mix (one in four of each template) to `log`. With `cpu_every`,
// each thread moves to another CPU (00A/108) every `cpu_every` events, as a recorder writes it.
void AddMix(LogBuilder& log, uint64_t count, int64_t& t, uint64_t cpu_every = 0) {
  for (uint64_t i = 0; i < count; ++i) {
    t += 100;
    if (cpu_every != 0 && i % cpu_every < 2) {
      log.Cpu(1000 + i % 2, static_cast<uint32_t>((i / cpu_every) % 4), t);
    }
    switch (i % 4) {
      case 0:
        log.Hook(0x0100, 0, {}, 1000, t);
        break;
      case 1:
        log.Hook(0x0110, 0, {i}, 1000, t);
        break;
      case 2:
        log.Hook(0x0120, 0, {i, i * 3}, 1001, t);
        break;
      default:
        log.Hook(0x0130, 0, {i % 3}, 1001, t);
        break;
    }
  }
}

// Removes the benchmark's log when the program ends.
struct RemoveAtExit {
  std::string path;
  ~RemoveAtExit() {
    if (!path.empty()) std::filesystem::remove(path);
  }
};

std::string MixLog(uint64_t events, uint64_t cpu_every = 0) {
  static RemoveAtExit cleanup;
  std::string& path = cleanup.path;
  static uint64_t made = 0, made_cpu_every = 0;
  if (made != events || made_cpu_every != cpu_every) {
    path = "/tmp/rastrace_report_bench_" + std::to_string(::getpid()) + ".trc";
    LogBuilder log;
    log.Process(1000, 1, 1000, "/usr/bin/bench", 0);
    log.Process(1000, 1, 1001, "/usr/bin/bench", 0);
    int64_t t = 0;
    AddMix(log, events, t, cpu_every);
    if (!log.WriteTo(path).ok()) std::abort();
    made = events;
    made_cpu_every = cpu_every;
  }
  return path;
}

tmpl::TemplateSet& MixTemplates() {
  static tmpl::TemplateSet set = [] {
    tmpl::TemplateSet s;
    std::vector<tmpl::Diagnostic> diagnostics;
    s.AddText(kMixTemplates, "mix", diagnostics);
    if (!diagnostics.empty()) std::abort();
    return s;
  }();
  return set;
}

void RunTo(const ReportOptions& options, benchmark::State& state) {
  std::FILE* null = std::fopen("/dev/null", "w");
  if (RunReport(options, MixTemplates(), null, stderr) != 0) state.SkipWithError("report failed");
  std::fclose(null);
}

void BM_FormatMix(benchmark::State& state) {
  const uint64_t events = 400000;
  ReportOptions options;
  options.logs = {MixLog(events)};
  options.jobs = static_cast<unsigned>(state.range(0));
  for (auto _ : state) RunTo(options, state);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
}
BENCHMARK(BM_FormatMix)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime();

// The mix with the CPU column on and each thread changing CPU every 64 events: 3% more events
// (00A/108, run through 00A and not printed) than the items counted.
void BM_FormatMixCpus(benchmark::State& state) {
  const uint64_t events = 400000;
  ReportOptions options;
  options.logs = {MixLog(events, 64)};
  options.layout.cpuid = true;
  for (auto _ : state) RunTo(options, state);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
}
BENCHMARK(BM_FormatMixCpus)->Unit(benchmark::kMillisecond)->UseRealTime();

// Writes a log of about `gib` GiB in pieces, so the generator itself stays small.
std::string BigLog(double gib) {
  std::string path = "/tmp/rastrace_report_bench_big_" + std::to_string(::getpid()) + ".trc";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return {};
  LogBuilder head;
  head.Process(1000, 1, 1000, "/usr/bin/bench", 0);
  std::fwrite(head.bytes().data(), 1, head.bytes().size(), file);
  int64_t t = 0;
  uint64_t written = head.bytes().size();
  const auto target = static_cast<uint64_t>(gib * 1024 * 1024 * 1024);
  while (written < target) {
    LogBuilder piece;
    AddMix(piece, 200000, t);
    // Skip the piece's own magic: the file has one.
    std::fwrite(piece.bytes().data() + 4, 1, piece.bytes().size() - 4, file);
    written += piece.bytes().size() - 4;
  }
  std::fclose(file);
  return path;
}

// Peak RSS of a report over a multi-GB log, measured on a child process so the benchmark's own
// memory does not count.
void BM_PeakRssBigLog(benchmark::State& state) {
  const char* env = std::getenv("RASTRACE_BENCH_LOG_GB");
  double gib = env != nullptr ? std::atof(env) : 2.0;
  std::string path = BigLog(gib);
  if (path.empty()) {
    state.SkipWithError("cannot write the log in /tmp");
    return;
  }
  long max_rss_kib = 0;
  for (auto _ : state) {
    pid_t child = ::fork();
    if (child == 0) {
      ReportOptions options;
      options.logs = {path};
      options.jobs = static_cast<unsigned>(state.range(0));
      std::FILE* null = std::fopen("/dev/null", "w");
      int status = RunReport(options, MixTemplates(), null, stderr);
      std::_Exit(status);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(child, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) state.SkipWithError("report failed");
    max_rss_kib = usage.ru_maxrss;
  }
  state.counters["peak_rss_MiB"] = static_cast<double>(max_rss_kib) / 1024.0;
  state.counters["log_GiB"] = static_cast<double>(std::filesystem::file_size(path)) / (1 << 30);
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * std::filesystem::file_size(path)));
  std::filesystem::remove(path);
}
BENCHMARK(BM_PeakRssBigLog)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace rastrace::report

BENCHMARK_MAIN();
