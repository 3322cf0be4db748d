#include "report/golden_logs.h"

#include <cstring>

#include "event/format.h"

namespace rastrace::report {

using event::testing::LogBuilder;

namespace {

constexpr uint64_t kPid = 4242;
constexpr uint64_t kWorker = 4243;
constexpr uint64_t kStart = 1795248470;  // Sat Nov 21 08:07:50 2026 GMT

std::vector<uint8_t> Text(std::string_view text, bool with_nul) {
  std::vector<uint8_t> bytes(text.begin(), text.end());
  if (with_nul) bytes.push_back(0);
  return bytes;
}

// The hooks of examples/example.c, timestamps in ticks.
void ExampleHooks(LogBuilder& log, int64_t t0) {
  log.Hook(event::kHookTraceOn, 0, {0}, kPid, t0);
  log.Hook(0x0100, 0, {}, kPid, t0 + 400);
  for (uint64_t i = 0; i < 5; ++i) {
    log.Hook(0x0110, 0, {i}, kPid, t0 + 800 + static_cast<int64_t>(i) * 400);
  }
  log.Hook(0x0120, 0, {1, 2, 3, 4, 5}, kPid, t0 + 3000);
  log.Hook(0x0130, 0, {0xdead, 0xbeef}, kPid, -1);
  auto hello = Text("hello from rastrace", true);
  log.Generic(0x0140, 0, 42, hello, kPid, t0 + 3400);
  log.Hook(0x0150, 0, {1, 7, 8}, kWorker, t0 + 4000);
  log.Hook(0x0160, 0, {}, kPid, t0 + 4400);
  log.Hook(event::kHookTraceOff, 0, {0}, kPid, t0 + 4800);
}

LogBuilder Example64(ByteOrder order) {
  LogBuilder log(event::Layout::k64, order);
  log.Header(kStart, "Linux", "node1", "6.1.0-13-amd64", "#1 SMP Debian", "x86_64",
             "rastrace record -o example.trc -- rastrace-example", 1000);
  log.TimeConversion(5, 2, 2, 1000);  // ns = ticks * 5 / 2
  log.Hook(event::kHookUtil, event::kUtilCpus, {2, 2}, 0, 1000);
  log.Hook(event::kHookUtil, event::kUtilBufferMode, {1, 65536, 1048576}, 0, 1000);
  log.Process(kPid, 1, kPid, "/usr/bin/rastrace-example", 1000);
  log.Process(kPid, 1, kWorker, "/usr/bin/rastrace-example", 1000);
  log.ThreadName(kWorker, "worker", 1000);
  ExampleHooks(log, 1000);
  // A 32-bit application on this 64-bit kernel: shown to the template in the 32-bit layout.
  log.Hook32BitData(0x0120, 0, {6, 7, 8, 9, 10}, kPid, 1000 + 5200);
  return log;
}

LogBuilder Example32(ByteOrder order) {
  // 32-bit events cannot carry 00A subhooks in generic events: no process table here.
  LogBuilder log(event::Layout::k32, order);
  log.Header(kStart, "AIX", "aixnode", "3", "7", "00C0FFEE4C00", "trace -a -o example.trc", 1000);
  ExampleHooks(log, 1000);
  return log;
}

LogBuilder RastraceEvents() {
  LogBuilder log;
  log.Header(kStart, "Linux", "node2", "6.1.0", "#1", "aarch64", "trace -a", 0);
  log.TimeConversion(1, 1, 0, 0);
  log.Hook(event::kHookUtil, event::kUtilCpus, {8, 4}, 0, 0);
  log.Hook(event::kHookUtil, event::kUtilBufferMode, {2, 4096, 0}, 0, 0);
  log.Process(100, 1, 100, "/bin/sh", 0);
  log.Exec(100, "/usr/bin/make", 100, 10);
  log.ThreadName(101, "make-worker", 20);
  log.Generic(event::kHookUtil, event::kUtilSource, 1, log.S2("cpu0.trc"), 0, 30);
  log.Hook(event::kHookTraceOn, 0, {3}, 100, 1'000);
  log.Hook(event::kHookLost, 0, {17, 101}, 101, 2'000);
  log.Hook(0x0000, 0, {}, 100, 3'000);  // trace id zero
  log.Hook(event::kHookLogWrapped, 0, {}, 0, 4'000);
  log.Hook(0x0FF0, 0, {1, 2}, 100, 5'000);                   // no template: 007
  log.Generic(0x0FE0, 0, 7, Text("ab", false), 100, 6'000);  // no template, generic
  log.Hook(event::kHookTraceOff, 0, {3}, 100, 1'000'000'000);
  return log;
}

LogBuilder Second() {
  LogBuilder log(event::Layout::k64, ByteOrder::kBig);
  log.Header(kStart, "Linux", "node3", "6.1.0", "#1", "ppc64", "trace -a -o second.trc", 500);
  log.Process(7, 1, 7, "/usr/bin/second", 500);
  log.Hook(0x0110, 0, {100}, 7, 2'300);
  log.Hook(0x0110, 0, {101}, 7, 7'000);
  return log;
}

LogBuilder Truncated() {
  LogBuilder log;
  log.Hook(0x0100, 0, {}, 1, 100);
  log.Hook(0x0110, 0, {9}, 1, 200);
  // The start of a TRCHKL1T whose data word and thread id never made it to disk.
  const uint8_t partial[] = {0x00, 0x00, 0x10, 0x01, 0x08, 0x00, 0x00, 0x80, 0x01, 0x02};
  log.Raw(partial);
  return log;
}

// In the order the recorder writes a log: TRACE ON before the header, then the 00A events, a
// thread name without a timestamp, the program's hooks.
LogBuilder RecorderOrder() {
  LogBuilder log;
  log.Hook(event::kHookTraceOn, 0, {0}, kPid, 5000);
  log.Hook(event::kHookTraceOn, 0, {1}, kPid, 5000);
  log.Header(kStart, "Linux", "node4", "6.1.0", "#1", "x86_64", "rastrace-example", 5000);
  log.TimeConversion(1, 1, 0, 5000);
  log.Hook(event::kHookUtil, event::kUtilCpus, {2, 2}, kPid, 5000);
  log.Process(kPid, 1, kPid, "/usr/bin/rastrace-example", 5000);
  log.ThreadName(kWorker, "worker", -1);
  log.Hook(0x0100, 0, {}, kPid, 6000);
  log.Hook(0x0150, 0, {1, 7, 8}, kWorker, 7000);
  log.Hook(event::kHookTraceOff, 0, {0}, kPid, 8000);
  return log;
}

// Kernel hooks of a system-wide session that feed the process table.
LogBuilder KernelEvents() {
  LogBuilder log;
  log.Header(kStart, "Linux", "node5", "6.1.0", "#1", "x86_64", "trace -a", 0);
  log.Generic(0x1340, 0, 300, log.S2("/usr/sbin/daemon"), 300, 100);
  log.Hook(0x1390, 0, {301, 300}, 300, 200);
  log.Hook(0x0100, 0, {}, 301, 300);
  log.Hook(0x4650, 0, {301, 120}, 301, 400);
  return log;
}

// A thread in a system call (101 ... 104) around an application hook: the SYSTEM CALL column
// and $SVC name the call for the events inside it only.
LogBuilder Syscalls() {
  LogBuilder log;
  log.Header(kStart, "Linux", "node5", "6.1.0", "#1", "x86_64", "trace -a", 0);
  log.Process(400, 1, 400, "/usr/bin/reader", 0);
  std::vector<uint8_t> entry;
  for (uint64_t arg : {3, 0x1000, 64, 0, 0, 0}) {
    auto word = log.Word64(arg);
    entry.insert(entry.end(), word.begin(), word.end());
  }
  auto name = log.S2("read");
  entry.insert(entry.end(), name.begin(), name.end());
  log.Generic(0x1010, 0, 0, entry, 400, 100);
  log.Hook(0x0110, 0, {7}, 400, 200);
  log.Generic(0x1040, 0, 64, log.S2("read"), 400, 300);
  log.Hook(0x0110, 0, {8}, 400, 400);
  return log;
}

// Two threads migrating between CPUs (00A/108 before each thread's first event on a new CPU).
// Thread 501 is on no known CPU until its first 108. Big-endian, to cover the word's byte order.
LogBuilder CpuMigration() {
  LogBuilder log(event::Layout::k64, ByteOrder::kBig);
  log.Header(kStart, "Linux", "node6", "6.1.0", "#1", "x86_64", "rastrace-mover", 0);
  log.TimeConversion(1, 1, 0, 0);
  log.Hook(event::kHookUtil, event::kUtilCpus, {4, 4}, 500, 0);
  log.Process(500, 1, 500, "/usr/bin/mover", 0);
  log.Process(500, 1, 501, "/usr/bin/mover", 0);
  log.Hook(0x0110, 0, {1}, 501, 50);
  log.Cpu(500, 0, 100).Hook(0x0110, 0, {2}, 500, 100);
  log.Cpu(501, 1, 200).Hook(0x0110, 0, {3}, 501, 200);
  log.Hook(0x0110, 0, {4}, 500, 300);
  log.Cpu(500, 2, 400).Hook(0x0110, 0, {5}, 500, 400);
  log.Cpu(501, 2, 500).Hook(0x0110, 0, {6}, 501, 500);  // both on CPU 2: one CPU active
  log.Hook(0x0130, 0, {7, 8}, 501, -1);                 // no timestamp, still CPU 2
  log.Cpu(500, 3, 600).Hook(0x0110, 0, {9}, 500, 600);
  log.Hook(event::kHookTraceOff, 0, {0}, 500, 700);
  return log;
}

// A second log whose thread 500 is another thread (another machine): its CPU is its own.
LogBuilder CpuOtherLog() {
  LogBuilder log;
  log.Header(kStart, "Linux", "node7", "6.1.0", "#1", "x86_64", "rastrace-other", 0);
  log.TimeConversion(1, 1, 0, 0);
  log.Cpu(500, 7, 150).Hook(0x0110, 0, {100}, 500, 150);
  log.Hook(0x0110, 0, {101}, 500, 450);
  // A kernel DISPATCH gives thread 500 its priority ($PRI): tid, priority, old tid, state, cpu.
  log.Hook(0x1060, 0, {500, 120, 0, 'R', 7}, 500, 460);
  log.Hook(0x0110, 0, {102}, 500, 470);
  return log;
}

LogBuilder Big() {
  LogBuilder log;
  log.Header(kStart, "Linux", "big", "6.1.0", "#1", "x86_64", "trace", 0);
  for (uint64_t pid = 1; pid <= 8; ++pid) {
    log.Process(pid * 100, 1, pid * 100, "/usr/bin/prog" + std::to_string(pid), 0);
  }
  auto hello = Text("hello from rastrace", true);
  int64_t t = 0;
  for (uint64_t i = 0; i < 30000; ++i) {
    uint64_t tid = (i % 8 + 1) * 100;
    t += 1 + static_cast<int64_t>(i % 7) * 130;
    switch (i % 6) {
      case 0:
        log.Hook(0x0110, 0, {i}, tid, t);
        break;
      case 1:
        log.Hook(0x0120, 0, {i, 2, 3, 4, 5}, tid, t);
        break;
      case 2:
        log.Hook(0x0130, 0, {0xdead, i}, tid, -1);
        break;
      case 3:
        log.Generic(0x0140, 0, i, hello, tid, t);
        break;
      case 4:
        log.Hook(0x0FF0, 0, {i}, tid, t);
        break;
      default:
        if (i % 1000 == 5) {
          log.Exec(tid, "/usr/bin/exec" + std::to_string(i), tid, t);
        } else {
          log.Hook(0x0150, 0, {i, 7, 8}, tid, t);
        }
    }
  }
  return log;
}

}  // namespace

std::vector<std::string> GoldenLogNames() {
  return {"example64le", "example64be",   "example32le", "example32be",    "rastrace_events",
          "second",      "truncated",     "big",         "recorder_order", "kernel_events",
          "syscalls",    "cpu_migration", "cpu_other"};
}

LogBuilder GoldenLog(const std::string& name) {
  if (name == "example64le") return Example64(ByteOrder::kLittle);
  if (name == "example64be") return Example64(ByteOrder::kBig);
  if (name == "example32le") return Example32(ByteOrder::kLittle);
  if (name == "example32be") return Example32(ByteOrder::kBig);
  if (name == "rastrace_events") return RastraceEvents();
  if (name == "second") return Second();
  if (name == "truncated") return Truncated();
  if (name == "big") return Big();
  if (name == "recorder_order") return RecorderOrder();
  if (name == "kernel_events") return KernelEvents();
  if (name == "syscalls") return Syscalls();
  if (name == "cpu_migration") return CpuMigration();
  if (name == "cpu_other") return CpuOtherLog();
  return LogBuilder();
}

}  // namespace rastrace::report
