#include "session/raw_events.h"

#include <gtest/gtest.h>

#include <cstring>

#include "session/kernel_events.h"
#include "session/raw_test_pages.h"
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
                     uint64_t timestamp, uint32_t cpu) {
  std::bitset<65536> all;
  all.set();
  KernelEventMapper text_mapper(all, nullptr), raw_mapper(all, nullptr);
  auto parsed = ParseTraceLine(text_line);
  ASSERT_TRUE(parsed) << text_line;
  std::vector<uint8_t> from_text, from_raw;
  text_mapper.Map(*parsed, from_text);
  // The binary record has no task name or process id: the decoder asks for them.
  const std::string comm(parsed->comm);
  RawEventDecoder decoder([&](uint32_t tid) { return RawEventDecoder::Task{tid, comm}; });
  for (const char* event : kEvents) ASSERT_TRUE(decoder.AddFormat(GoldenFormat(event)));
  TraceLine line;
  std::string storage;
  ASSERT_TRUE(decoder.Decode({timestamp, record}, cpu, line, storage)) << text_line;
  raw_mapper.Map(line, from_raw);
  EXPECT_FALSE(from_text.empty()) << text_line;
  EXPECT_EQ(from_raw, from_text) << text_line << "\nbinary as: " << line.body;
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
  TraceLine line;
  std::string storage;
  auto record = Record(enter, 1, {{"id", 0}});
  EXPECT_TRUE(decoder.Decode({0, record}, 0, line, storage));
  EXPECT_FALSE(decoder.Decode({0, std::span(record).first(40)}, 0, line, storage));
  record[0] = 0x01;  // another id
  record[1] = 0x00;
  EXPECT_FALSE(decoder.Decode({0, record}, 0, line, storage));
  // A __data_loc pointing outside the record reads as empty.
  const RawFormat irq = GoldenFormat("irq_handler_entry");
  ASSERT_TRUE(decoder.AddFormat(irq));
  auto entry = Record(irq, 1, {{"irq", 3}, {"name", 0xFFFF0040}});
  ASSERT_TRUE(decoder.Decode({0, entry}, 0, line, storage));
  EXPECT_EQ(line.body, "irq=3 name=");
}

}  // namespace
}  // namespace rastrace::session
