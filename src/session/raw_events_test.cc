#include "session/raw_events.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "event/encode.h"
#include "event/reader.h"
#include "session/kernel_events.h"
#include "session/raw_test_pages.h"
#include "session/syscall_table.h"
#include "session/trace_line.h"
#include "session/tracefs_golden.h"

namespace rastrace::session {
namespace {

using testing::GoldenFormat;
using testing::PageBuilder;
using testing::Record;
using testing::TracefsGolden;

constexpr const char* kEvents[] = {
    "sys_enter",          "sys_exit",           "sched_switch",    "sched_process_fork",
    "sched_process_exec", "sched_process_exit", "page_fault_user", "page_fault_kernel",
    "irq_handler_entry",  "irq_handler_exit",
};

TEST(RawEvents, FormatsOfARealKernel) {
  const RawFormat enter = GoldenFormat("sys_enter");
  EXPECT_EQ(enter.name, "sys_enter");
  EXPECT_EQ(enter.id, 443);
  EXPECT_EQ(enter.fields.at("common_pid").offset, 4u);
  EXPECT_TRUE(enter.fields.at("common_pid").is_signed);
  EXPECT_EQ(enter.fields.at("args").offset, 16u);
  EXPECT_EQ(enter.fields.at("args").size, 48u);
  const RawFormat exec = GoldenFormat("sched_process_exec");
  EXPECT_TRUE(exec.fields.at("filename").data_loc);
  EXPECT_EQ(exec.fields.at("pid").offset, 12u);
  RawEventDecoder decoder(nullptr);
  for (const char* event : kEvents) {
    auto added = decoder.AddFormat(GoldenFormat(event));
    EXPECT_TRUE(added) << event << ": " << (added ? "" : added.error().message);
  }
  auto layout = ParseHeaderPage(TracefsGolden("header_page"), "header_page");
  ASSERT_TRUE(layout) << layout.error().message;
  EXPECT_EQ(layout->data_offset, 16u);
  EXPECT_EQ(layout->data_size, 4080u);
  EXPECT_EQ(layout->page_bytes(), 4096u);
}

TEST(RawEvents, BadFormatsSayWhere) {
  auto no_id = ParseEventFormat("name: x\nformat:\n", "x/format");
  ASSERT_FALSE(no_id);
  EXPECT_NE(no_id.error().message.find("x/format:"), std::string::npos) << no_id.error().message;
  auto bad_field =
      ParseEventFormat("name: x\nID: 5\nformat:\n\tfield:int a;\toffset:zz;\tsize:4;\n", "f");
  ASSERT_FALSE(bad_field);
  EXPECT_NE(bad_field.error().message.find("f:4:1:"), std::string::npos)
      << bad_field.error().message;
  // An event rastrace records must have the fields it reads.
  auto missing = ParseEventFormat(
      "name: sys_exit\nID: 9\nformat:\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n",
      "f");
  ASSERT_TRUE(missing);
  RawEventDecoder decoder(nullptr);
  auto refused = decoder.AddFormat(*missing);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("no usable field id"), std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(ParseHeaderPage("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n", "hp"));
}

TEST(RawEvents, PagesGiveEventsWithTheirTimes) {
  PageBuilder builder(1000);
  const std::vector<uint8_t> small(24, 0xAB), large(200, 0xCD), odd(10, 0xEF);
  builder.Data(5, small);
  builder.TimeExtend(uint64_t{3} << 27);  // a delta too large for 27 bits
  builder.Data(7, large);
  builder.Padding(12);  // a discarded event
  builder.Data(1, odd);
  const std::vector<uint8_t> page = builder.Finish(uint64_t{1} << 31);  // "events were missed"
  std::vector<RawRecord> records;
  ASSERT_TRUE(DecodePage(page, PageLayout{}, records));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].timestamp, 1005u);
  EXPECT_EQ(records[0].payload.size(), 24u);
  EXPECT_EQ(records[0].payload[0], 0xAB);
  EXPECT_EQ(records[1].timestamp, 1005u + (uint64_t{3} << 27) + 7);
  EXPECT_EQ(records[1].payload.size(), 200u);
  EXPECT_EQ(records[1].payload[199], 0xCD);
  EXPECT_EQ(records[2].timestamp, records[1].timestamp + 1);
  EXPECT_EQ(records[2].payload.size(), 10u);
}

TEST(RawEvents, DamagedPagesSayWhereAndKeepWhatCameBefore) {
  PageBuilder builder(0);
  builder.Data(1, std::vector<uint8_t>(8, 1));
  std::vector<uint8_t> page = builder.Finish();
  // A second event whose length runs past the committed bytes.
  const uint32_t header = 0, length = 1000;
  page.insert(page.begin() + 28, reinterpret_cast<const uint8_t*>(&length),
              reinterpret_cast<const uint8_t*>(&length) + 4);
  page.insert(page.begin() + 28, reinterpret_cast<const uint8_t*>(&header),
              reinterpret_cast<const uint8_t*>(&header) + 4);
  page.resize(4096);
  const uint64_t commit = 12 + 8 + 16;
  std::memcpy(page.data() + 8, &commit, 8);
  std::vector<RawRecord> records;
  auto decoded = DecodePage(page, PageLayout{}, records);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().message.find("offset 0x1c"), std::string::npos)
      << decoded.error().message;
  EXPECT_EQ(records.size(), 1u);
  // A commit larger than the page.
  const uint64_t huge = 5000;
  std::memcpy(page.data() + 8, &huge, 8);
  EXPECT_FALSE(DecodePage(page, PageLayout{}, records));
  EXPECT_FALSE(DecodePage(std::span(page).first(10), PageLayout{}, records));
}

// The same event read as text and read in binary must give the same hooks.
void ExpectSameHooks(const std::string& text_line, const std::vector<uint8_t>& record,
                     uint64_t timestamp, uint32_t cpu,
                     std::initializer_list<const char*> more_formats = {}) {
  std::bitset<65536> all;
  all.set();
  KernelEventMapper text_mapper(all, nullptr), raw_mapper(all, nullptr);
  // The binary record has no task name or process id: the decoder asks for them.
  auto parsed = ParseTraceLine(text_line);
  ASSERT_TRUE(parsed) << text_line;
  const std::string comm(parsed->comm);
  SyscallTable syscalls;
  RawEventDecoder decoder(
      [&](uint32_t tid) {
        return RawEventDecoder::Task{tid, comm};
      },
      &syscalls);
  for (const char* event : kEvents) ASSERT_TRUE(decoder.AddFormat(GoldenFormat(event)));
  for (const char* event : more_formats) ASSERT_TRUE(decoder.AddFormat(GoldenFormat(event)));
  std::vector<uint8_t> from_text, from_raw;
  KernelEvent text_event, raw_event;
  ASSERT_TRUE(ToKernelEvent(*parsed, syscalls, text_event)) << text_line;
  text_mapper.Map(text_event, from_text);
  ASSERT_TRUE(decoder.Decode({timestamp, record}, cpu, raw_event)) << text_line;
  raw_mapper.Map(raw_event, from_raw);
  EXPECT_FALSE(from_text.empty()) << text_line;
  EXPECT_EQ(from_raw, from_text) << text_line;
}

TEST(RawEvents, BinaryAndTextGiveTheSameHooks) {
  const uint64_t ts = 1000001000;  // 1.000001 s
  ExpectSameHooks("a-100 (100) [001] ..... 1.000001: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)",
                  Record(GoldenFormat("sys_enter"), 100, {{"id", 0}}), ts, 1);
  {
    // args: six words from offset 16.
    auto record = Record(GoldenFormat("sys_enter"), 100, {{"id", 1}});
    const uint64_t args[6] = {3, 0x7ffd, 0x340, 0, 0, 0xb};
    std::memcpy(record.data() + 16, args, sizeof args);
    ExpectSameHooks("a-100 (100) [001] ..... 1.000001: sys_enter: NR 1 (3, 7ffd, 340, 0, 0, b)",
                    record, ts, 1);
  }
  ExpectSameHooks("a-100 (100) [000] ..... 1.000001: sys_exit: NR 1 = -14",
                  Record(GoldenFormat("sys_exit"), 100, {{"id", 1}, {"ret", uint64_t(-14)}}), ts,
                  0);
  ExpectSameHooks(
      "x-5 (5) [001] d..2. 1.000001: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 "
      "prev_state=D ==> next_comm=y next_pid=9 next_prio=110",
      Record(GoldenFormat("sched_switch"), 5,
             {{"prev_pid", 5},
              {"prev_prio", 120},
              {"prev_state", 2},
              {"next_pid", 9},
              {"next_prio", 110}}),
      ts, 1);
  ExpectSameHooks(
      "x-5 (5) [001] d..2. 1.000001: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 "
      "prev_state=R+ ==> next_comm=swapper/1 next_pid=0 next_prio=120",
      Record(GoldenFormat("sched_switch"), 5,
             {{"prev_pid", 5},
              {"prev_prio", 120},
              {"prev_state", 0x100},
              {"next_pid", 0},
              {"next_prio", 120}}),
      ts, 1);
  ExpectSameHooks(
      "x-5 (5) [000] ..... 1.000001: sched_process_fork: comm=x pid=5 child_comm=x child_pid=6",
      Record(GoldenFormat("sched_process_fork"), 5, {{"parent_pid", 5}, {"child_pid", 6}}), ts, 0);
  ExpectSameHooks(
      "x-6 (6) [000] ..... 1.000001: sched_process_exec: filename=/usr/bin/ls pid=6 old_pid=6",
      Record(GoldenFormat("sched_process_exec"), 6, {{"pid", 6}}, "/usr/bin/ls", "filename"), ts,
      0);
  ExpectSameHooks("ls-6 (6) [000] ..... 1.000001: sched_process_exit: comm=ls pid=6 prio=120",
                  Record(GoldenFormat("sched_process_exit"), 6, {{"pid", 6}, {"prio", 120}}), ts,
                  0);
  ExpectSameHooks(
      "a-7 (7) [000] ..... 1.000001: page_fault_user: address=0x7f00 ip=0x4000 error_code=0x6",
      Record(GoldenFormat("page_fault_user"), 7,
             {{"address", 0x7f00}, {"ip", 0x4000}, {"error_code", 6}}),
      ts, 0);
  ExpectSameHooks(
      "a-7 (7) [000] d.h1. 1.000001: irq_handler_entry: irq=24 name=virtio0-input.0",
      Record(GoldenFormat("irq_handler_entry"), 7, {{"irq", 24}}, "virtio0-input.0", "name"), ts,
      0);
  ExpectSameHooks("a-7 (7) [000] d.h1. 1.000001: irq_handler_exit: irq=24 ret=handled",
                  Record(GoldenFormat("irq_handler_exit"), 7, {{"irq", 24}, {"ret", 1}}), ts, 0);
}

TEST(RawEvents, RecordsTooShortOrUnknownAreSkipped) {
  RawEventDecoder decoder(nullptr);
  const RawFormat enter = GoldenFormat("sys_enter");
  ASSERT_TRUE(decoder.AddFormat(enter));
  KernelEvent event;
  auto record = Record(enter, 1, {{"id", 0}});
  EXPECT_TRUE(decoder.Decode({0, record}, 0, event));
  EXPECT_FALSE(decoder.Decode({0, std::span(record).first(40)}, 0, event));
  record[0] = 0x01;  // another id
  record[1] = 0x00;
  EXPECT_FALSE(decoder.Decode({0, record}, 0, event));
  // A __data_loc pointing outside the record reads as empty.
  const RawFormat irq = GoldenFormat("irq_handler_entry");
  ASSERT_TRUE(decoder.AddFormat(irq));
  auto entry = Record(irq, 1, {{"irq", 3}, {"name", 0xFFFF0040}});
  ASSERT_TRUE(decoder.Decode({0, entry}, 0, event));
  EXPECT_EQ(event.kind, KernelEventKind::kIrqEntry);
  EXPECT_EQ(event.values[0], 3u);
  EXPECT_EQ(event.text, "");
}

// The buffer of a 101 event: its six slots, then the name, then (subhook 1) the argument names.
struct SyscallEntryBuffer {
  std::array<uint64_t, 6> slots{};
  std::string name;
  std::vector<std::string> arguments;
};
SyscallEntryBuffer ReadEntry(std::span<const uint8_t> buffer) {
  SyscallEntryBuffer out;
  EXPECT_GE(buffer.size(), 51u);
  if (buffer.size() < 51) return out;
  std::memcpy(out.slots.data(), buffer.data(), 48);
  uint16_t length = 0;
  std::memcpy(&length, buffer.data() + 48, 2);
  size_t at = 50;
  out.name.assign(reinterpret_cast<const char*>(buffer.data() + at), length);
  at += length;
  const uint8_t count = buffer[at++];
  for (uint8_t i = 0; i < count && at < buffer.size(); ++i) {
    const uint8_t n = buffer[at++];
    out.arguments.emplace_back(reinterpret_cast<const char*>(buffer.data() + at), n);
    at += n;
  }
  EXPECT_EQ(at, buffer.size());
  return out;
}

// The events of `bytes` (a mapper's output), without the 00A/108 cpu events.
std::vector<std::pair<event::EventFields, std::vector<uint8_t>>> Events(
    const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> log;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), log);
  log.insert(log.end(), bytes.begin(), bytes.end());
  auto reader = event::LogReader::FromBytes(log);
  EXPECT_TRUE(reader);
  std::vector<std::pair<event::EventFields, std::vector<uint8_t>>> out;
  event::Event ev;
  while (reader && reader->Next(ev) == event::ReadStatus::kEvent) {
    if (ev.hook_id == event::kHookUtil && ev.subhook == event::kUtilCpu) continue;
    out.emplace_back(ev, std::vector<uint8_t>(ev.buffer.begin(), ev.buffer.end()));
    out.back().first.buffer = {};
  }
  return out;
}

// Each system call has an event of its own (syscalls/sys_enter_<name>) whose format names the
// arguments that call takes: the formats of a real kernel (6.18) give openat its four, read its
// three, getpid none; a 101 event carries them with their names (point 5 of issue 16).
TEST(RawEvents, SystemCallArgumentsByNameFromTheirFormats) {
  const RawFormat openat = GoldenFormat("sys_enter_openat");
  auto signature = SignatureFromFormat(openat);
  ASSERT_TRUE(signature) << signature.error().message;
  EXPECT_EQ(signature->name(), "openat");
  std::vector<std::string> names;
  for (const SyscallArgument& argument : signature->arguments()) names.push_back(argument.name);
  EXPECT_EQ(names, (std::vector<std::string>{"dfd", "filename", "flags", "mode"}));
  EXPECT_EQ(signature->arguments()[1].offset, 24u);
  EXPECT_EQ(signature->number(), 257u);  // x86-64
  auto read = SignatureFromFormat(GoldenFormat("sys_enter_read"));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->arguments().size(), 3u);
  auto getpid = SignatureFromFormat(GoldenFormat("sys_enter_getpid"));
  ASSERT_TRUE(getpid);
  EXPECT_TRUE(getpid->arguments().empty());
  auto mmap = SignatureFromFormat(GoldenFormat("sys_enter_mmap"));
  ASSERT_TRUE(mmap);
  EXPECT_EQ(mmap->arguments().size(), 6u);
  // Other events are not system call entries.
  EXPECT_FALSE(SignatureFromFormat(GoldenFormat("sys_exit_read")));
  EXPECT_FALSE(SignatureFromFormat(GoldenFormat("sched_switch")));

  SyscallTable syscalls;
  RawEventDecoder decoder([](uint32_t tid) { return RawEventDecoder::Task{tid, "a"}; }, &syscalls);
  for (const char* event : {"sys_enter_openat", "sys_exit_openat", "sys_enter_getpid",
                            "sys_enter_read", "sys_exit_read", "sys_enter_mmap"}) {
    auto added = decoder.AddFormat(GoldenFormat(event));
    ASSERT_TRUE(added) << event << ": " << added.error().message;
  }
  std::bitset<65536> all;
  all.set();
  KernelEventMapper mapper(all, nullptr);
  mapper.KnowThread(42, 42);
  std::vector<uint8_t> bytes;
  KernelEvent event;
  ASSERT_TRUE(decoder.Decode({1000, Record(openat, 42,
                                           {{"__syscall_nr", 257},
                                            {"dfd", 0xffffff9c},
                                            {"filename", 0x7ffd1000},
                                            {"flags", 0x241},
                                            {"mode", 0x1b6}})},
                             1, event));
  EXPECT_EQ(event.kind, KernelEventKind::kSysEnter);
  EXPECT_EQ(event.nr, 257u);
  mapper.Map(event, bytes);
  ASSERT_TRUE(decoder.Decode(
      {1001, Record(GoldenFormat("sys_enter_getpid"), 42, {{"__syscall_nr", 39}})}, 1, event));
  mapper.Map(event, bytes);
  ASSERT_TRUE(decoder.Decode(
      {1002, Record(GoldenFormat("sys_exit_openat"), 42, {{"__syscall_nr", 257}, {"ret", 3}})}, 1,
      event));
  EXPECT_EQ(event.kind, KernelEventKind::kSysExit);
  mapper.Map(event, bytes);

  auto events = Events(bytes);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].first.hook_id, kHookSystemCall);
  EXPECT_EQ(events[0].first.subhook, kSyscallNamedArguments);
  EXPECT_EQ(events[0].first.generic_word, 257u);
  const SyscallEntryBuffer entry = ReadEntry(events[0].second);
  EXPECT_EQ(entry.name, "openat");
  EXPECT_EQ(entry.arguments, (std::vector<std::string>{"dfd", "filename", "flags", "mode"}));
  EXPECT_EQ(entry.slots, (std::array<uint64_t, 6>{0xffffff9c, 0x7ffd1000, 0x241, 0x1b6, 0, 0}));
  const SyscallEntryBuffer none = ReadEntry(events[1].second);
  EXPECT_EQ(none.name, "getpid");
  EXPECT_TRUE(none.arguments.empty());
  EXPECT_EQ(events[2].first.hook_id, kHookSyscallReturn);
  EXPECT_EQ(events[2].first.generic_word, 3u);

  // The same hooks from the text the kernel prints for these events.
  ExpectSameHooks(
      "a-100 (100) [001] ..... 1.000001: sys_openat(dfd: 3, filename: 7ffd1000, "
      "flags: 241, mode: 1b6)",
      Record(openat, 100,
             {{"__syscall_nr", 257},
              {"dfd", 3},
              {"filename", 0x7ffd1000},
              {"flags", 0x241},
              {"mode", 0x1b6}}),
      1000001000, 1, {"sys_enter_openat"});
  ExpectSameHooks("a-100 (100) [001] ..... 1.000001: sys_getpid()",
                  Record(GoldenFormat("sys_enter_getpid"), 100, {{"__syscall_nr", 39}}), 1000001000,
                  1, {"sys_enter_getpid"});
  ExpectSameHooks("a-100 (100) [001] ..... 1.000001: sys_read -> 0x1",
                  Record(GoldenFormat("sys_exit_read"), 100, {{"__syscall_nr", 0}, {"ret", 1}}),
                  1000001000, 1, {"sys_enter_read", "sys_exit_read"});
}

// Without syscalls/ events (raw_syscalls only) a call is known by number: its name from this
// machine's headers, six arguments named arg1..arg6.
TEST(RawEvents, SystemCallsKnownOnlyByNumberHaveSixUnnamedArguments) {
  RawEventDecoder decoder([](uint32_t tid) { return RawEventDecoder::Task{tid, "a"}; });
  ASSERT_TRUE(decoder.AddFormat(GoldenFormat("sys_enter")));
  KernelEvent event;
  ASSERT_TRUE(decoder.Decode({0, Record(GoldenFormat("sys_enter"), 5, {{"id", 0}})}, 0, event));
  ASSERT_NE(event.syscall, nullptr);
  EXPECT_EQ(event.syscall->name(), "read");
  EXPECT_FALSE(event.syscall->described());
  ASSERT_EQ(event.syscall->arguments().size(), 6u);
  EXPECT_EQ(event.syscall->arguments()[5].name, "arg6");
}

}  // namespace
}  // namespace rastrace::session
