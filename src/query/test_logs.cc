#include "query/test_logs.h"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "event/format.h"
#include "posix/log_format.h"
#include "session/kernel_events.h"
#include "session/trace_line.h"
#include "stda/stda.h"

namespace rastrace::query::testing {

using event::testing::LogBuilder;

namespace {

constexpr uint64_t kStart = 1795248470;  // Sat Nov 21 08:07:50 2026 GMT

LogBuilder Aix64() {
  LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  log.Hook(event::kHookTraceOn, 0, {0}, 4242, 1000);
  log.Header(kStart, "Linux", "node1", "6.1.0-13-amd64", "#1 SMP Debian", "x86_64",
             "rastrace record -o example.trc -- rastrace-example", 1000);
  log.TimeConversion(5, 2, 2, 1000);  // ns = ticks * 5 / 2
  log.Hook(event::kHookUtil, event::kUtilCpus, {2, 2}, 0, 1000);
  log.Process(4242, 1, 4242, "/usr/bin/rastrace-example", 1000);
  log.ThreadName(4243, "worker", -1);
  log.Cpu(4242, 1, 1000);
  log.Hook(0x0100, 0, {}, 4242, 1400);
  for (uint64_t i = 0; i < 3; ++i) {
    log.Hook(0x0110, 0, {i}, 4242, 1800 + static_cast<int64_t>(i) * 400);
  }
  log.Hook(0x0120, 0, {1, 2, 3, 4, 5}, 4242, 3000);
  log.Hook(0x0130, 0, {0xdead, 0xbeef}, 4242, -1);
  log.Generic(0x0140, 0, 42, "hello from rastrace", 4242, 3400);
  log.Cpu(4243, 0, 4000).Hook(0x0150, 0, {1, 7, 8}, 4243, 4000);
  log.Hook(event::kHookLost, 0, {17, 4243}, 4243, 4200);
  // A 32-bit application on this 64-bit kernel (B flag): words keep their values.
  log.Hook32BitData(0x0120, 0, {6, 7, 8, 9, 10}, 4242, 4400);
  log.Hook(event::kHookTraceOff, 0, {0}, 4242, 4800);
  return log;
}

LogBuilder Aix32Be() {
  LogBuilder log(event::Layout::k32, ByteOrder::kBig);
  log.Header(kStart, "AIX", "aixnode", "3", "7", "00C0FFEE4C00", "trace -a -o example.trc", 1000);
  log.Hook(event::kHookTraceOn, 0, {0}, 77, 1000);
  log.Hook(0x0100, 0, {}, 77, 1500);
  log.Hook(0x0110, 0x0005, {9}, 77, 2000);
  log.Hook(0x0120, 0, {1, 2, 3, 4, 5}, 77, 2500);
  log.Generic(0x0140, 0, 7, "ab", 78, 3000);
  log.Hook(event::kHookTraceOff, 0, {0}, 77, 3500);
  return log;
}

LogBuilder Posix() {
  const ByteOrder order = ByteOrder::kLittle;
  LogBuilder log(event::Layout::k64, order);
  std::vector<uint8_t> bytes;
  posix::EncodeTimeIsNanoseconds(order, bytes);
  posix::EncodeProcess(900, 900, "/usr/bin/posix-app", order, bytes);
  posix::EncodeProcess(900, 901, "/usr/bin/posix-app", order, bytes);
  posix::EncodeEventType(1, "posix_trace_stop", order, bytes);
  posix::EncodeEventType(100, "request", order, bytes);
  auto event = [&](uint16_t id, std::string_view name, uint64_t ns, std::vector<uint8_t> data) {
    posix::EventRecord e;
    e.event_id = id;
    e.pid = 900;
    e.kernel_tid = 901;
    e.thread = 0x7f00;
    e.prog_address = 0x401000;
    e.realtime_ns = ns;
    e.data = std::move(data);
    posix::EncodePosixEvent(e, name, order, bytes);
  };
  const uint64_t t0 = kStart * 1'000'000'000ull;
  event(0, "posix_trace_start", t0 + 100, {});
  event(100, "request", t0 + 200, {1, 2, 3});
  event(100, "request", t0 + 300, {4});
  event(1, "posix_trace_stop", t0 + 1000, {});
  log.Raw(bytes);
  return log;
}

LogBuilder Dyntrace() {
  LogBuilder log;
  log.TimeConversion(1, 1, 0);  // as trace on --log writes it: ticks are CLOCK_REALTIME ns
  log.TracepointDef(0x64, 1, 1, "DosOpen");
  log.TracepointDef(0x64, 2, 2, "DosOpen");
  log.TracepointDef(0x64, 3, 0, "main.c:42");
  const int64_t t0 = static_cast<int64_t>(kStart) * 1'000'000'000;
  log.TracepointHit(0x64, 1, 1200, 1201, t0 + 10, "\x01\x02");
  log.TracepointHit(0x64, 3, 1200, 1201, t0 + 20);
  log.TracepointHit(0x64, 2, 1200, 1201, t0 + 50, std::string_view("\0", 1));
  log.TracepointHit(0x65, 7, 1200, 1202, t0 + 60, "xyz");  // no definition
  log.TracepointHit(0x64, 1, 1200, 1202, t0 + 70);         // never returns
  return log;
}

// A system-wide session's log: the header and process table it writes, then kernel events as
// the session maps them from tracefs lines (src/session/kernel_events.cc), so this log changes
// when the session's encoding does.
LogBuilder Kernel() {
  LogBuilder log;
  log.Hook(event::kHookTraceOn, 0, {0}, 0, 1'000'000'000);
  log.Header(kStart, "Linux", "kernelbox", "6.1.0", "#1", "x86_64", "trace -a", 1'000'000'000);
  log.TimeConversion(1, 1, 0, 1'000'000'000);
  log.Hook(event::kHookUtil, event::kUtilCpus, {2, 2}, 0, 1'000'000'000);
  log.Process(1, 0, 1, "/sbin/init");
  log.Process(500, 1, 500, "/usr/bin/bash");
  log.Process(600, 500, 600, "/usr/bin/cat");
  log.Process(600, 500, 601, "/usr/bin/cat");
  std::bitset<65536> all;
  all.set();
  session::KernelEventMapper mapper(all, [](uint32_t) { return std::string(); });
  for (uint32_t tid : {1u, 500u, 600u, 601u}) mapper.KnowThread(tid, tid == 601 ? 600 : tid);
  const char* lines[] = {
      "bash-500 (500) [000] ..... 1.000010: sys_enter: NR 0 (3, 7ffd0000, 40, 0, 0, 0)",
      "cat-600 (600) [001] ..... 1.000020: sys_enter: NR 1 (1, 55d0, 6, 0, 0, 0)",
      "cat-600 (600) [001] ..... 1.000030: sys_exit: NR 1 = 6",
      "bash-500 (500) [000] ..... 1.000110: sys_exit: NR 0 = 64",
      "cat-601 (600) [001] ..... 1.000120: sys_exit: NR 3 = 0",
      "cat-601 (600) [001] ..... 1.000130: sys_enter: NR 257 (ffffff9c, 7ffd1000, 0, 0, 0, 0)",
      "cat-601 (600) [001] ..... 1.000330: sys_exit: NR 257 = -2",
      "bash-500 (500) [000] d.... 1.000400: sched_switch: prev_comm=bash prev_pid=500 "
      "prev_prio=120 prev_state=S ==> next_comm=cat next_pid=600 next_prio=120",
      "cat-600 (600) [000] ..... 1.000500: sched_process_fork: comm=cat pid=600 "
      "child_comm=cat child_pid=602",
      "cat-602 (602) [001] ..... 1.000600: sched_process_exec: filename=/usr/bin/ls pid=602 "
      "old_pid=602",
      "ls-602 (602) [001] ..... 1.000700: sys_enter: NR 60 (0, 0, 0, 0, 0, 0)",
      "ls-602 (602) [001] ..... 1.000710: sched_process_exit: comm=ls pid=602 prio=120",
      "cat-600 (600) [000] d.... 1.000900: sched_switch: prev_comm=cat prev_pid=600 "
      "prev_prio=120 prev_state=R ==> next_comm=swapper/0 next_pid=0 next_prio=120",
      "cat-601 (600) [001] ..... 1.001000: sys_enter: NR 0 (4, 7ffd2000, 1000, 0, 0, 0)",
  };
  session::SyscallTable syscalls;
  for (const char* text : lines) {
    auto line = session::ParseTraceLine(text);
    if (!line) throw std::invalid_argument(line.error().message);
    session::KernelEvent kernel_event;
    if (!session::ToKernelEvent(*line, syscalls, kernel_event)) {
      throw std::invalid_argument(std::string("not a kernel event rastrace maps: ") + text);
    }
    std::vector<uint8_t> out;
    mapper.Map(kernel_event, out);
    log.Raw(out);
  }
  log.Hook(event::kHookLost, 0, {5, 0}, 0, 1'001'100'000);
  log.Hook(event::kHookTraceOff, 0, {0}, 0, 1'001'200'000);
  return log;
}

LogBuilder Merged() {
  LogBuilder log;
  log.TimeConversion(1, 1, 2, 0);
  log.Source(0, "hostA", 100);
  log.Header(kStart, "Linux", "hostA", "6.1.0", "#1", "x86_64", "trace -a", 100);
  log.Process(100, 1, 100, "/usr/bin/alpha");
  log.Hook(0x0110, 0, {1}, 100, 200);
  log.Source(1, "hostB", 250);
  log.Header(kStart + 3600, "Linux", "hostB", "6.1.0", "#1", "aarch64", "trace -a", 250);
  log.Process(100, 1, 100, "/usr/bin/beta");
  log.Hook(0x0110, 0, {2}, 100, 300);
  log.Source(0, "hostA", 400);
  log.Hook(0x0110, 0, {3}, 100, 400);
  return log;
}

LogBuilder Damaged() {
  LogBuilder log = Aix64();
  // The start of a TRCHKL1T whose data word and thread id never made it to disk.
  const uint8_t partial[] = {0x00, 0x00, 0x10, 0x01, 0x08, 0x00, 0x00, 0x80, 0x01, 0x02};
  log.Raw(partial);
  return log;
}

}  // namespace

std::vector<std::string> TestLogNames() {
  return {"aix64", "aix32be", "posix", "dyntrace", "kernel", "merged", "damaged"};
}

LogBuilder TestLog(const std::string& name) {
  if (name == "aix64") return Aix64();
  if (name == "aix32be") return Aix32Be();
  if (name == "posix") return Posix();
  if (name == "dyntrace") return Dyntrace();
  if (name == "kernel") return Kernel();
  if (name == "merged") return Merged();
  if (name == "damaged") return Damaged();
  throw std::invalid_argument("no test log called " + name);
}

std::vector<std::string> TestInputNames() {
  return {"savefile"};
}

std::string TestInputFileName(const std::string& name) {
  return name == "savefile" ? name + ".sav" : name + ".trc";
}

namespace {

// Three DosOpen records of major 0x64 (one with a file name, one whose return carries a handle)
// and one of major 0x65 that no format file describes, saved at 08:07:50 UTC on the header day of
// the other logs.
std::vector<uint8_t> SaveFile() {
  auto buffer = stda::TraceBuffer::Create(stda::Format::kNew, 4096);
  if (!buffer.ok()) throw std::invalid_argument(buffer.error().message);
  const auto record = [&](uint8_t major, uint16_t minor, uint8_t seconds, uint8_t hundredths,
                          std::string_view data) {
    stda::RecordSpec spec;
    spec.major = major;
    spec.minor = minor;
    spec.pid = 1200;
    spec.time = stda::Timestamp{8, 7, seconds, hundredths};
    spec.data = std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    if (auto written = buffer->Write(spec); !written.ok()) {
      throw std::invalid_argument(written.error().message);
    }
  };
  using namespace std::string_view_literals;
  record(0x64, 1, 40, 0,
         "\x2c\x4b\x00\x00\x00\x0d\x00"
         "C:\\CONFIG.SYS"sv);
  record(0x64, 2, 40, 5, "\x07\x00"sv);
  record(0x65, 7, 41, 0, "xyz"sv);
  stda::DateTime saved;
  saved.hours = 8;
  saved.minutes = 7;
  saved.seconds = 50;
  saved.day = 21;
  saved.month = 11;
  saved.year = 2026;
  saved.timezone = 0;  // UTC
  return stda::MakeSaveFile(buffer->Snapshot(), saved);
}

}  // namespace

Result<void> WriteTestInput(const std::string& name, const std::string& path) {
  if (name != "savefile") return TestLog(name).WriteTo(path);
  const std::vector<uint8_t> bytes = SaveFile();
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) return MakeError("{}: cannot create it", path);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  if (std::fclose(out) != 0 || !written) return MakeError("{}: write error", path);
  return Ok();
}

}  // namespace rastrace::query::testing
