// Load test: two threads record as fast as they can in each buffer mode, and the log must account
// for every event exactly: events in the log + the sum of 006 counts == events generated
// (alternate, circular, blocking, and alternate with --shm-path); blocking mode must lose nothing;
// in single mode each thread's events are 1..k without a gap and the event that ended tracing is
// counted (docs/reliability.md).
//
// RASTRACE_LOAD_EVENTS sets the events per thread (default 200000, so the CTest run is short;
// the figures in docs/performance.md come from 50000000). Prints one line per mode; exits 1 when
// an accounting check fails.
#include <fmt/format.h>
#include <rastrace/trchk.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "event/format.h"
#include "event/reader.h"
#include "recorder/options.h"
#include "recorder/recorder.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr unsigned kThreads = 2;

struct Count {
  uint64_t events = 0;                                       // load events in the log
  uint64_t lost = 0;                                         // sum of 006 word 1
  std::map<uint64_t, std::vector<uint64_t>> seqs_by_thread;  // single mode only
  std::string error;
};

// Streams the log (it can be gigabytes) and counts the load events and the losses.
Count CountLog(const std::string& path, bool keep_seqs) {
  Count count;
  auto reader = rastrace::event::LogReader::Open(path, {.reformat = false});
  if (!reader) {
    count.error = reader.error().message;
    return count;
  }
  rastrace::event::Event e;
  for (;;) {
    const auto status = reader->Next(e);
    if (status == rastrace::event::ReadStatus::kEnd) break;
    if (status == rastrace::event::ReadStatus::kError) {
      count.error = reader->error().message;
      break;
    }
    if (e.hook_id == rastrace::event::kHookLost) {
      count.lost += e.words[0];
    } else if ((e.hook_id & 0xFFF0) == 0x0E20) {
      ++count.events;
      if (keep_seqs) count.seqs_by_thread[e.thread_id].push_back(e.words[0]);
    }
  }
  return count;
}

void Produce(unsigned index, uint64_t events) {
  const uint32_t hkwd = (0x0E20u + index) << 16;
  for (uint64_t seq = 1; seq <= events; ++seq) TRCHKL1T(hkwd, seq);
}

bool RunMode(const std::string& name, const std::string& args, uint64_t per_thread,
             const std::string& dir) {
  const std::string log = dir + "/load-" + name + ".trc";
  std::string full_args = "-o " + log + " " + args;
  if (name == "shm") {
    fs::create_directory(dir + "/shm");
    full_args += " --shm-path " + dir + "/shm";
  }
  auto options = rastrace::recorder::ParseTraceString(full_args);
  if (!options) {
    fmt::print(stderr, "load_test: {}\n", options.error().message);
    return false;
  }
  auto& recorder = rastrace::recorder::Recorder::Get();
  if (auto started = recorder.Start(*options); !started) {
    fmt::print(stderr, "load_test: {}\n", started.error().message);
    return false;
  }
  const auto begin = Clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) threads.emplace_back(Produce, t, per_thread);
  for (auto& thread : threads) thread.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  auto stopped = recorder.Stop();
  if (!stopped) {
    fmt::print(stderr, "load_test: {}\n", stopped.error().message);
    return false;
  }
  const bool single = name == "single";
  const Count count = CountLog(log, single);
  // 00A/108 CPU markers are not traced events: never counted lost, so not counted here.
  const uint64_t generated = per_thread * kThreads;
  bool ok = count.error.empty();
  std::string check;
  if (single) {
    // Tracing ended at the first event that did not fit; hooks after that are not traced.
    for (const auto& [tid, seqs] : count.seqs_by_thread) {
      for (size_t i = 0; i < seqs.size(); ++i) ok = ok && seqs[i] == i + 1;
    }
    ok = ok && count.lost >= 1 && count.lost <= kThreads;
    check = "each thread 1..k, stop counted";
  } else {
    ok = ok && count.events + count.lost == generated;
    // The writer runs all along, so a blocked hook always gets its room in time.
    if (name == "blocking") ok = ok && count.lost == 0;
    check = fmt::format("written + lost {} generated", ok ? "==" : "!=");
  }
  fmt::print(
      "{:<10} {:>2} x {:>10} events: {:>11} written, {:>11} lost ({:5.1f}%), {:6.2f} s, "
      "{:6.1f} M events/s generated; {}: {}\n",
      name, kThreads, per_thread, count.events, count.lost,
      100.0 * static_cast<double>(count.lost) / static_cast<double>(generated), seconds,
      static_cast<double>(generated) / seconds / 1e6, check, ok ? "ok" : "FAILED");
  if (!count.error.empty()) fmt::print(stderr, "load_test: {}\n", count.error);
  fs::remove(log);
  return ok;
}

}  // namespace

int main() {
  uint64_t per_thread = 200000;
  if (const char* text = std::getenv("RASTRACE_LOAD_EVENTS"); text != nullptr && *text != '\0') {
    per_thread = std::strtoull(text, nullptr, 10);
    if (per_thread == 0) {
      fmt::print(stderr, "load_test: RASTRACE_LOAD_EVENTS: '{}' is not a positive number\n", text);
      return 2;
    }
  }
  std::string pattern = (fs::temp_directory_path() / "rastrace-load-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return 1;
  const std::string dir = pattern;
  bool ok = true;
  ok = RunMode("alternate", "", per_thread, dir) && ok;
  ok = RunMode("circular", "-l", per_thread, dir) && ok;
  ok = RunMode("single", "-f", per_thread, dir) && ok;
  ok = RunMode("blocking", "--blocking", per_thread, dir) && ok;
  ok = RunMode("shm", "", per_thread, dir) && ok;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return ok ? 0 : 1;
}
