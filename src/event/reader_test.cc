#include "event/reader.h"

#include <gtest/gtest.h>

#include <string>

#include "event/encode.h"
#include "event/test_util.h"
#include "event/writer.h"

namespace rastrace::event {
namespace {

using testing::Bytes;
using testing::Hex;
using testing::Log;
using testing::ReadLog;

class ReaderTest : public ::testing::TestWithParam<ByteOrder> {
 protected:
  ByteOrder order() const { return GetParam(); }
};

TEST(ReaderMagicTest, DetectsLayoutAndByteOrderFromTheFirstBytes) {
  struct Case {
    std::vector<uint8_t> magic;
    Layout layout;
    ByteOrder order;
  };
  for (const Case& c : {Case{{0xEF, 0xDF, 0x11, 0x14}, Layout::k64, ByteOrder::kBig},
                        Case{{0x14, 0x11, 0xDF, 0xEF}, Layout::k64, ByteOrder::kLittle},
                        Case{{0xEF, 0xDF, 0x11, 0x12}, Layout::k32, ByteOrder::kBig},
                        Case{{0x12, 0x11, 0xDF, 0xEF}, Layout::k32, ByteOrder::kLittle}}) {
    auto reader = LogReader::FromBytes(c.magic, "m.log");
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    EXPECT_EQ(reader->layout(), c.layout);
    EXPECT_EQ(reader->byte_order(), c.order);
    EXPECT_EQ(reader->offset(), 4u);
    Event event;
    EXPECT_EQ(reader->Next(event), ReadStatus::kEnd);
    EXPECT_EQ(reader->Next(event), ReadStatus::kEnd);
  }
}

TEST(ReaderMagicTest, RejectsOtherFilesNamingTheBytesFound) {
  const std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  auto reader = LogReader::FromBytes(elf, "a.out");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().message.rfind("a.out: not a trace log: first bytes 7f 45 4c 46", 0), 0u)
      << reader.error().message;
  const std::vector<uint8_t> short_file = {0xEF, 0xDF};
  reader = LogReader::FromBytes(short_file, "s.log");
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().message.find("not a trace log: first bytes ef df"), std::string::npos)
      << reader.error().message;
  reader = LogReader::FromBytes({}, "e.log");
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().message.find("e.log: not a trace log"), std::string::npos);
}

TEST(ReaderOpenTest, MissingFileSaysWhy) {
  auto reader = LogReader::Open("/nonexistent/dir/x.log");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().message,
            "/nonexistent/dir/x.log: cannot open: No such file or directory");
}

TEST(ReaderOpenTest, ReadErrorsSayWhy) {
  testing::TempDir dir;
  auto reader = LogReader::Open(dir.path());
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().message, dir.path() + ": read error at offset 0x0: Is a directory");
}

TEST_P(ReaderTest, DecodesTheSeedLayouts) {
  auto all = ReadLog(Log(Layout::k64, order(),
                         "8000000810300007 00000000000000aa 0000000000000011 0000000000000022 "
                         "4000000312340006 0000000000000001 \"abc\" =0000000000 0000000000000033"),
                     {.reformat = false});
  ASSERT_EQ(all.status, ReadStatus::kEnd) << all.error;
  ASSERT_EQ(all.events.size(), 2u);
  const Event& a = all.events[0].event;
  EXPECT_EQ(a.offset, 4u);
  EXPECT_EQ(a.hook_id, 0x1030);
  EXPECT_EQ(a.subhook, 7);
  EXPECT_EQ(a.flags, kFlagTimestamp);
  EXPECT_EQ(a.word_count, 1);
  EXPECT_EQ(a.words[0], 0xaau);
  EXPECT_EQ(a.data_length, 8);
  EXPECT_EQ(a.thread_id, 0x11u);
  EXPECT_EQ(a.timestamp, 0x22u);
  EXPECT_EQ(a.bytes.size(), 32u);
  const Event& b = all.events[1].event;
  EXPECT_EQ(b.offset, 36u);
  EXPECT_TRUE(b.generic);
  EXPECT_EQ(b.data_length, 3);
  EXPECT_EQ(std::string(b.buffer.begin(), b.buffer.end()), "abc");
  EXPECT_EQ(b.generic_word, 1u);
  EXPECT_EQ(b.thread_id, 0x33u);
  EXPECT_FALSE(b.timestamped);
  EXPECT_EQ(b.bytes.size(), 32u);
}

TEST_P(ReaderTest, Decodes32BitTypes) {
  auto all = ReadLog(Log(Layout::k32, order(),
                         "10010002 00000007 "                    // type 1
                         "100a0003 000000aa 00000007 00000099 "  // type A
                         "100e0004 00000001 00000002 00000003 00000004 00000005 00000007 00000098 "
                         "10000002 00000005 \"hi\" =0000 00000007"),  // generic, 2 bytes
                     {.reformat = false});
  ASSERT_EQ(all.status, ReadStatus::kEnd) << all.error;
  ASSERT_EQ(all.events.size(), 4u);
  EXPECT_EQ(all.events[0].event.type32, 1);
  EXPECT_EQ(all.events[0].event.subhook, 2);
  EXPECT_EQ(all.events[0].event.hook_id, 0x1000);
  EXPECT_EQ(all.events[1].event.type32, 0xA);
  EXPECT_EQ(all.events[1].event.words[0], 0xaau);
  EXPECT_EQ(all.events[1].event.timestamp, 0x99u);
  EXPECT_EQ(all.events[2].event.type32, 0xE);
  EXPECT_EQ(all.events[2].event.word_count, 5);
  EXPECT_EQ(all.events[2].event.words[4], 5u);
  EXPECT_EQ(all.events[2].event.data_length, 20);
  EXPECT_EQ(all.events[2].event.offset, 4u + 8 + 16);
  const Event& g = all.events[3].event;
  EXPECT_TRUE(g.generic);
  EXPECT_EQ(g.type32, 0);
  EXPECT_EQ(g.data_length, 2);
  EXPECT_EQ(g.generic_word, 5u);
  EXPECT_EQ(std::string(g.buffer.begin(), g.buffer.end()), "hi");
  EXPECT_EQ(g.thread_id, 7u);
}

TEST_P(ReaderTest, CorruptThirtyTwoBitTypeNamesTheOffsetAndKeepsEarlierEvents) {
  auto all = ReadLog(Log(Layout::k32, order(), "10010002 00000007 10030002 00000007"));
  EXPECT_EQ(all.status, ReadStatus::kError);
  EXPECT_EQ(all.events.size(), 1u);
  EXPECT_NE(all.error.find("test.log: offset 0xc: corrupt event"), std::string::npos) << all.error;
  EXPECT_NE(all.error.find("hook type 3"), std::string::npos) << all.error;
}

TEST_P(ReaderTest, CorruptSixtyFourBitLengths) {
  for (std::string word0 :
       {"0000000c10300000", "0000003010300000", "2000001810300000", "2000000610300000"}) {
    auto all = ReadLog(Log(Layout::k64, order(),
                           "0000000010300000 0000000000000001 " + word0 +
                               " 0000000000000000 0000000000000000 0000000000000000 "
                               "0000000000000000 0000000000000000 0000000000000000"));
    EXPECT_EQ(all.status, ReadStatus::kError) << word0;
    EXPECT_EQ(all.events.size(), 1u) << word0;
    EXPECT_NE(all.error.find("offset 0x14: corrupt event"), std::string::npos) << all.error;
  }
}

// Cutting a log at every byte keeps the whole events before the cut and names the cut one.
TEST_P(ReaderTest, TruncationAtEveryBytePosition) {
  for (Layout layout : {Layout::k64, Layout::k32}) {
    std::vector<uint8_t> log;
    EncodeMagic(layout, order(), log);
    std::vector<size_t> starts;
    static const uint8_t kText[] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; ++i) {
      EventFields f;
      f.hook_id = 0x1230;
      f.timestamped = i != 1;
      f.generic = i == 1;
      f.buffer = kText;
      f.word_count = static_cast<uint8_t>(i == 2 ? 3 : 0);
      starts.push_back(log.size());
      ASSERT_TRUE(Encode(f, layout, order(), log).ok());
    }
    starts.push_back(log.size());
    for (size_t cut = 4; cut < log.size(); ++cut) {
      std::vector<uint8_t> part(log.begin(), log.begin() + static_cast<long>(cut));
      auto all = ReadLog(part);
      size_t whole = 0;
      while (starts[whole + 1] <= cut) ++whole;
      SCOPED_TRACE(fmt::format("layout {} cut {}", static_cast<int>(layout), cut));
      ASSERT_EQ(all.events.size(), whole);
      if (cut == starts[whole]) {
        EXPECT_EQ(all.status, ReadStatus::kEnd);
        continue;
      }
      ASSERT_EQ(all.status, ReadStatus::kError);
      size_t left = cut - starts[whole];
      size_t size = starts[whole + 1] - starts[whole];
      size_t word = WordSize(layout);
      size_t need = left < word ? word : size;
      EXPECT_EQ(all.error, fmt::format("test.log: offset {:#x}: truncated event (need {} bytes, {} "
                                       "left)",
                                       starts[whole], need, left));
    }
  }
}

TEST_P(ReaderTest, ReformatsOnlyWhenAsked) {
  std::vector<uint8_t> log = Log(Layout::k64, order(),
                                 "a000001450000005 00000001 00000002 00000003 00000004 "
                                 "00000005 00000000 0000000000000011 0000000000000022");
  auto raw = ReadLog(log, {.reformat = false});
  ASSERT_EQ(raw.events.size(), 1u);
  EXPECT_EQ(raw.events[0].event.layout, Layout::k64);
  EXPECT_FALSE(raw.events[0].event.reformatted);
  auto shown = ReadLog(log);
  ASSERT_EQ(shown.events.size(), 1u) << shown.error;
  const Event& e = shown.events[0].event;
  EXPECT_EQ(e.layout, Layout::k32);
  EXPECT_TRUE(e.reformatted);
  EXPECT_EQ(e.offset, 4u);
  EXPECT_EQ(Hex(e.bytes), Hex(Bytes("500e0005 00000001 00000002 00000003 00000004 00000005 "
                                    "0000000000000011 0000000000000022",
                                    order())));
}

// A multi-megabyte log read through a file with a small window: events cross window boundaries,
// large generic events make the window grow, and every event comes back as written.
TEST_P(ReaderTest, StreamsLargeFilesThroughASmallWindow) {
  testing::TempDir dir;
  std::string path = dir.File("big.log");
  std::vector<uint8_t> payload(60000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  auto writer = LogWriter::Create(path, {.layout = Layout::k64, .byte_order = order()});
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  constexpr int kEvents = 100000;
  auto fields_of = [&](int i) {
    EventFields f;
    f.hook_id = static_cast<uint16_t>(0x1000 + i % 0x100);
    f.subhook = static_cast<uint16_t>(i);
    f.timestamped = i % 3 != 0;
    f.timestamp = f.timestamped ? static_cast<uint64_t>(i) * 1000 : 0;
    f.thread_id = static_cast<uint64_t>(i);
    if (i % 97 == 0) {
      f.generic = true;
      f.buffer = std::span<const uint8_t>(payload).first(static_cast<size_t>(i % 7) * 9000 + 1);
    } else {
      f.word_count = static_cast<uint8_t>(i % 6);
      for (unsigned w = 0; w < f.word_count; ++w) f.words[w] = static_cast<uint64_t>(i) + w;
    }
    return f;
  };
  for (int i = 0; i < kEvents; ++i) ASSERT_TRUE(writer->Write(fields_of(i)).ok());
  ASSERT_TRUE(writer->Close().ok());
  uint64_t size = writer->bytes_written();
  ASSERT_GT(size, 4u << 20);

  auto reader = LogReader::Open(path, {.window_bytes = 4096});
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  Event e;
  uint64_t offset = 4;
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_EQ(reader->Next(e), ReadStatus::kEvent) << i << ": " << reader->error().message;
    EventFields f = fields_of(i);
    ASSERT_EQ(e.offset, offset);
    ASSERT_EQ(e.subhook, f.subhook);
    ASSERT_EQ(e.thread_id, f.thread_id);
    ASSERT_EQ(e.timestamp, f.timestamp);
    ASSERT_EQ(e.word_count, f.word_count);
    ASSERT_EQ(e.words, f.words);
    ASSERT_TRUE(std::equal(e.buffer.begin(), e.buffer.end(), f.buffer.begin(), f.buffer.end()))
        << i;
    offset += e.bytes.size();
  }
  EXPECT_EQ(reader->Next(e), ReadStatus::kEnd);
  EXPECT_EQ(offset, size);
}

INSTANTIATE_TEST_SUITE_P(BothOrders, ReaderTest,
                         ::testing::Values(ByteOrder::kBig, ByteOrder::kLittle),
                         [](const auto& info) {
                           return info.param == ByteOrder::kBig ? "Big" : "Little";
                         });

}  // namespace
}  // namespace rastrace::event
