#include "session/kernel_events.h"

#include <gtest/gtest.h>

#include <cstring>

#include "event/encode.h"
#include "event/reader.h"
#include "session/trace_line.h"

namespace rastrace::session {
namespace {

// The events of `body`; 00A/108 (cpu changes) only when `with_cpu`, so the mapping tests below
// see the events they are about.
std::vector<event::EventFields> Decode(const std::vector<uint8_t>& body,
                                       std::vector<std::vector<uint8_t>>& buffers,
                                       bool with_cpu = false) {
  std::vector<uint8_t> bytes;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
  bytes.insert(bytes.end(), body.begin(), body.end());
  auto reader = event::LogReader::FromBytes(bytes);
  EXPECT_TRUE(reader);
  std::vector<event::EventFields> out;
  event::Event ev;
  while (reader->Next(ev) == event::ReadStatus::kEvent) {
    if (!with_cpu && ev.hook_id == event::kHookUtil && ev.subhook == event::kUtilCpu) continue;
    buffers.emplace_back(ev.buffer.begin(), ev.buffer.end());
    out.push_back(ev);
    out.back().buffer = {};
  }
  return out;
}

std::bitset<65536> All() {
  std::bitset<65536> all;
  all.set();
  return all;
}

std::vector<uint8_t> MapLine(KernelEventMapper& mapper, std::string_view text,
                             uint32_t child_tgid = 0) {
  static SyscallTable syscalls;
  auto line = ParseTraceLine(text);
  EXPECT_TRUE(line) << text;
  KernelEvent event;
  const bool mapped = line && ToKernelEvent(*line, syscalls, event);
  EXPECT_TRUE(mapped) << text;
  event.child_tgid = child_tgid;
  std::vector<uint8_t> out;
  if (mapped) mapper.Map(event, out);
  return out;
}

std::string S2At(const std::vector<uint8_t>& buffer, size_t at) {
  uint16_t length = 0;
  std::memcpy(&length, buffer.data() + at, 2);
  return std::string(reinterpret_cast<const char*>(buffer.data() + at + 2), length);
}

TEST(KernelEvents, SystemCallEntryAndReturnCarryTheName) {
  KernelEventMapper mapper(All(), nullptr);
  mapper.KnowThread(100, 100);
  std::vector<std::vector<uint8_t>> buffers;
  auto events = Decode(MapLine(mapper,
                               "a-100 (100) [000] ..... 1.000001: sys_enter: NR 0 (3, "
                               "7ffd, 340, 0, 0, 0)"),
                       buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookSystemCall);
  EXPECT_EQ(events[0].generic_word, 0u);
  EXPECT_EQ(events[0].thread_id, 100u);
  EXPECT_EQ(events[0].timestamp, 1000001000u);
  uint64_t arg1 = 0;
  std::memcpy(&arg1, buffers[0].data() + 8, 8);
  EXPECT_EQ(arg1, 0x7ffdu);
  EXPECT_EQ(S2At(buffers[0], 48), "read");

  buffers.clear();
  events =
      Decode(MapLine(mapper, "a-100 (100) [000] ..... 1.000002: sys_exit: NR 1 = -14"), buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookSyscallReturn);
  EXPECT_EQ(static_cast<int64_t>(events[0].generic_word), -14);
  EXPECT_EQ(S2At(buffers[0], 0), "write");
}

TEST(KernelEvents, DispatchIdleForkExecExit) {
  KernelEventMapper mapper(All(), [](uint32_t) { return std::string("/bin/x"); });
  mapper.KnowThread(5, 5);
  std::vector<std::vector<uint8_t>> buffers;
  auto events =
      Decode(MapLine(mapper,
                     "x-5 (5) [001] d..2. 2.0: sched_switch: prev_comm=x prev_pid=5 "
                     "prev_prio=120 prev_state=S ==> next_comm=y next_pid=9 next_prio=110"),
             buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookDispatch);
  EXPECT_EQ(events[0].words[0], 9u);
  EXPECT_EQ(events[0].words[1], 110u);
  EXPECT_EQ(events[0].words[2], 5u);
  EXPECT_EQ(events[0].words[3], uint64_t{'S'});
  EXPECT_EQ(events[0].words[4], 1u);

  events = Decode(MapLine(mapper,
                          "x-5 (5) [001] d..2. 2.1: sched_switch: prev_comm=x prev_pid=5 "
                          "prev_prio=120 prev_state=R ==> next_comm=swapper/1 next_pid=0 "
                          "next_prio=120"),
                  buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookIdle);

  events = Decode(MapLine(mapper,
                          "x-5 (5) [001] ..... 2.2: sched_process_fork: comm=x pid=5 "
                          "child_comm=x child_pid=6"),
                  buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookFork);
  EXPECT_EQ(events[0].words[0], 6u);
  EXPECT_EQ(events[0].words[1], 5u);

  // The child's first line puts it in the process table, then its exec renames it.
  buffers.clear();
  events = Decode(MapLine(mapper,
                          "x-6 (6) [000] ..... 2.3: sched_process_exec: "
                          "filename=/usr/bin/ls pid=6 old_pid=6"),
                  buffers);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].hook_id, event::kHookUtil);
  EXPECT_EQ(events[0].subhook, event::kUtilProcess);
  EXPECT_EQ(events[0].generic_word, 6u);
  EXPECT_EQ(S2At(buffers[0], 16), "/bin/x");
  EXPECT_EQ(events[1].subhook, event::kUtilExec);
  EXPECT_EQ(S2At(buffers[1], 0), "/usr/bin/ls");
  EXPECT_EQ(events[2].hook_id, kHookExec);

  events = Decode(MapLine(mapper,
                          "ls-6 (6) [000] ..... 2.4: sched_process_exit: comm=ls pid=6 "
                          "prio=120"),
                  buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookExit);
  EXPECT_EQ(events[0].words[0], 6u);
}

// A new thread's process is named from /proc as it is now, never from an earlier read: that one
// may be from before an exec whose EXEC event the kernel lost.
TEST(KernelEvents, ANewThreadIsNamedByItsProcessesExecutableNowNotAsFirstRead) {
  std::string exe = "/usr/bin/parent_test";  // what /proc/6/exe says: the child before its exec
  KernelEventMapper mapper(All(), [&](uint32_t) { return exe; });
  std::vector<std::vector<uint8_t>> buffers;
  auto events = Decode(MapLine(mapper, "x-6 (6) [000] ..... 2.0: sys_exit: NR 57 = 0"), buffers);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(S2At(buffers[0], 16), "/usr/bin/parent_test");
  // The child execs; its EXEC event is lost. A thread it then starts is named as it is now.
  exe = "/usr/bin/session_hooker";
  buffers.clear();
  events =
      Decode(MapLine(mapper, "session_hooker-7 (6) [001] ..... 2.5: sys_exit: NR 56 = 0"), buffers);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].subhook, event::kUtilProcess);
  EXPECT_EQ(events[0].generic_word, 6u);
  EXPECT_EQ(S2At(buffers[0], 16), "/usr/bin/session_hooker");
  // Once the process is gone, the last path known stands.
  exe.clear();
  buffers.clear();
  events =
      Decode(MapLine(mapper, "session_hooker-8 (6) [001] ..... 2.6: sys_exit: NR 60 = 0"), buffers);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(S2At(buffers[0], 16), "/usr/bin/session_hooker");
}

TEST(KernelEvents, PageFaultsAndInterrupts) {
  KernelEventMapper mapper(All(), nullptr);
  mapper.KnowThread(0, 0);
  std::vector<std::vector<uint8_t>> buffers;
  auto events = Decode(MapLine(mapper,
                               "<idle>-0 (-------) [000] d.h1. 3.0: irq_handler_entry: "
                               "irq=24 name=virtio0-input.0"),
                       buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookInterrupt);
  EXPECT_EQ(events[0].generic_word, 24u);
  EXPECT_EQ(S2At(buffers[0], 0), "virtio0-input.0");
  events = Decode(
      MapLine(mapper, "<idle>-0 (-------) [000] d.h1. 3.1: irq_handler_exit: irq=24 ret=handled"),
      buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookResume);
  EXPECT_EQ(events[0].words[1], 1u);
  events = Decode(MapLine(mapper,
                          "<idle>-0 (-------) [000] d.h1. 3.2: page_fault_user: "
                          "address=0x7f00 ip=0x4000 error_code=0x6"),
                  buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookPageFault);
  EXPECT_EQ(events[0].words[0], 0x7f00u);
  EXPECT_EQ(events[0].words[2], 6u);
}

TEST(KernelEvents, FilteredHooksAreNotWritten) {
  std::bitset<65536> allowed;
  allowed.set(kHookSyscallReturn);
  KernelEventMapper mapper(allowed, nullptr);
  mapper.KnowThread(1, 1);
  EXPECT_TRUE(
      MapLine(mapper, "a-1 (1) [000] ..... 1.0: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)").empty());
  EXPECT_FALSE(MapLine(mapper, "a-1 (1) [000] ..... 1.0: sys_exit: NR 0 = 0").empty());
}

TEST(KernelEvents, ACpuChangeIsWrittenBeforeTheThreadsEvent) {
  KernelEventMapper mapper(All(), nullptr);
  mapper.KnowThread(7, 7);
  mapper.KnowThread(8, 8);
  std::vector<std::vector<uint8_t>> buffers;
  auto decode = [&](std::string_view line) {
    return Decode(MapLine(mapper, line), buffers, /*with_cpu=*/true);
  };
  // A thread's first event says where it runs.
  auto events = decode("a-7 (7) [002] ..... 1.0: sys_exit: NR 0 = 0");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].hook_id, event::kHookUtil);
  EXPECT_EQ(events[0].subhook, event::kUtilCpu);
  EXPECT_EQ(events[0].word_count, 1u);
  EXPECT_EQ(events[0].words[0], 2u);
  EXPECT_EQ(events[0].thread_id, 7u);
  EXPECT_TRUE(events[0].timestamped);
  EXPECT_EQ(events[0].timestamp, events[1].timestamp);
  EXPECT_EQ(events[1].hook_id, kHookSyscallReturn);
  // Same cpu: nothing more. Another thread on that cpu has its own first event.
  EXPECT_EQ(decode("a-7 (7) [002] ..... 1.1: sys_exit: NR 0 = 0").size(), 1u);
  events = decode("b-8 (8) [002] ..... 1.2: sys_exit: NR 0 = 0");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].thread_id, 8u);
  // The first thread moves to cpu 0, then back to 2.
  events = decode("a-7 (7) [000] ..... 1.3: sys_exit: NR 0 = 0");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].subhook, event::kUtilCpu);
  EXPECT_EQ(events[0].words[0], 0u);
  events = decode("a-7 (7) [002] ..... 1.4: sys_exit: NR 0 = 0");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].words[0], 2u);
  // An event -j/-k leaves out changes nothing: the next written event still says where it ran.
  std::bitset<65536> only_exit;
  only_exit.set(kHookSyscallReturn);
  KernelEventMapper filtered(only_exit, nullptr);
  filtered.KnowThread(7, 7);
  EXPECT_TRUE(
      MapLine(filtered, "a-7 (7) [001] ..... 2.0: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)").empty());
  events = Decode(MapLine(filtered, "a-7 (7) [003] ..... 2.1: sys_exit: NR 0 = 0"), buffers, true);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].words[0], 3u);
  // The idle tasks (tid 0 on every cpu) get none.
  mapper.KnowThread(0, 0);
  EXPECT_EQ(
      decode("<idle>-0 (-------) [001] d.h1. 3.0: irq_handler_exit: irq=24 ret=handled").size(),
      1u);
}

TEST(KernelEvents, UnknownSystemCallNumbersGetANumberName) {
  std::string scratch;
  EXPECT_EQ(SyscallName(0, scratch), "read");
  EXPECT_EQ(SyscallName(59, scratch), "execve");
  EXPECT_EQ(SyscallName(99999, scratch), "nr99999");
}

uint64_t U64At(const std::vector<uint8_t>& buffer, size_t at) {
  uint64_t value = 0;
  std::memcpy(&value, buffer.data() + at, 8);
  return value;
}

// sched_process_fork is written for a new thread as for a new process. A thread the program (or
// librastrace inside it: its writer and attach threads) starts belongs to the program from the
// start: an 00A/100 ties it to its process; there is no FORK, which the report would take for a
// new process named after its parent.
TEST(KernelEvents, ANewThreadIsAThreadOfItsProcessNotAFork) {
  KernelEventMapper mapper(
      All(), [](uint32_t pid) { return pid == 5 ? std::string("/usr/bin/prog") : std::string(); },
      [](uint32_t pid) { return pid == 5 ? 1u : 0u; });
  mapper.KnowThread(5, 5);
  std::vector<std::vector<uint8_t>> buffers;
  auto events = Decode(MapLine(mapper,
                               "prog-5 (5) [001] ..... 2.2: sched_process_fork: comm=prog pid=5 "
                               "child_comm=prog child_pid=7",
                               /*child_tgid=*/5),
                       buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, event::kHookUtil);
  EXPECT_EQ(events[0].subhook, event::kUtilProcess);
  EXPECT_EQ(events[0].generic_word, 5u);  // pid
  EXPECT_EQ(U64At(buffers[0], 0), 1u);    // ppid
  EXPECT_EQ(U64At(buffers[0], 8), 7u);    // tid
  EXPECT_EQ(S2At(buffers[0], 16), "/usr/bin/prog");
  // Its first event then needs nothing more.
  buffers.clear();
  events =
      Decode(MapLine(mapper, "rastrace-writer-7 (5) [000] ..... 2.3: sys_exit: NR 0 = 0"), buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookSyscallReturn);
  // A new process is a FORK, with the parent's process id.
  buffers.clear();
  events = Decode(MapLine(mapper,
                          "rastrace-writer-7 (5) [000] ..... 2.4: sched_process_fork: "
                          "comm=prog pid=7 child_comm=prog child_pid=8",
                          /*child_tgid=*/8),
                  buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].hook_id, kHookFork);
  EXPECT_EQ(events[0].words[0], 8u);
  EXPECT_EQ(events[0].words[1], 5u);
}

// Process events carry the real parent: the forking process for a child the session saw forked,
// else /proc's (the `parent_of` lookup); 0 only when neither knows.
TEST(KernelEvents, ProcessEventsCarryTheRealParent) {
  KernelEventMapper mapper(
      All(), [](uint32_t pid) { return "/bin/p" + std::to_string(pid); },
      [](uint32_t pid) { return pid == 9 ? 4u : 0u; });
  mapper.KnowThread(5, 5);
  std::vector<std::vector<uint8_t>> buffers;
  auto events = Decode(MapLine(mapper, "a-9 (9) [000] ..... 1.0: sys_exit: NR 0 = 0"), buffers);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].subhook, event::kUtilProcess);
  EXPECT_EQ(U64At(buffers[0], 0), 4u);
  // Forked while the session ran: the parent is the forking process, /proc need not know it.
  buffers.clear();
  Decode(MapLine(mapper, "a-5 (5) [000] ..... 1.1: sched_process_fork: pid=5 child_pid=6", 6),
         buffers);
  buffers.clear();
  events = Decode(MapLine(mapper, "a-6 (6) [000] ..... 1.2: sys_exit: NR 0 = 0"), buffers);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].generic_word, 6u);
  EXPECT_EQ(U64At(buffers[0], 0), 5u);
}

}  // namespace
}  // namespace rastrace::session
