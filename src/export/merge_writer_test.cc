#include "export/merge_writer.h"

#include <gtest/gtest.h>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"
#include "event/s2.h"
#include "event/temp_dir.h"
#include "event/timebase.h"
#include "export/process_table.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;

MergedStream Open(const std::vector<std::string>& paths) {
  auto stream = MergedStream::Open(paths);
  EXPECT_TRUE(stream.ok()) << stream.error().message;
  return std::move(stream).value();
}

TEST(ExportMergeWriter, MergesInTimeOrderKeepingSourcesAndConvertingToNanoseconds) {
  TempDir dir;
  LogBuilder a;  // 1 tick = 10 ns
  a.TimeConversion(10, 1)
      .Process(100, 1, 100, "/bin/alpha")
      .Hook(0x1230, 1, {11}, 100, 1)
      .Hook(0x1230, 2, {13}, 100, 30);
  LogBuilder b;  // 1 tick = 1/2 ns
  b.TimeConversion(1, 2)
      .Process(100, 1, 100, "/bin/beta")
      .Hook(0x4560, 1, {12}, 100, 40)
      .Hook(0x4560, 2, {14}, 100, 1000);
  EXPECT_TRUE(a.WriteTo(dir.File("a.trc")).ok());
  EXPECT_TRUE(b.WriteTo(dir.File("b.trc")).ok());
  auto stream = Open({dir.File("a.trc"), dir.File("b.trc")});
  stream.SetInputName(0, "hostA");
  stream.SetInputName(1, "hostB");
  auto order = CommonByteOrder(stream);
  ASSERT_TRUE(order.ok());
  {
    auto writer = event::LogWriter::Create(dir.File("m.trc"), {.byte_order = *order});
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    auto stats = WriteMergedLog(stream, *writer);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_EQ(stats->events, 6u);  // two process events, four hooks; 25C dropped
    ASSERT_TRUE(writer->Close().ok());
  }

  auto reader = event::LogReader::Open(dir.File("m.trc"), {.reformat = false});
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  event::TimeBase timebase;
  event::Event e;
  std::string current_source;
  std::vector<std::string> sequence;  // "source:word" of each hook in file order
  std::vector<uint64_t> times;
  int conversions = 0;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    if (timebase.Observe(e, reader->byte_order())) {
      ++conversions;
      continue;
    }
    if (e.hook_id == event::kHookUtil && e.subhook == event::kUtilSource) {
      current_source = std::string(*event::ReadS2(e.buffer, 0, reader->byte_order()));
      continue;
    }
    if (e.hook_id == event::kHookUtil) continue;
    sequence.push_back(fmt::format("{}:{}", current_source, e.words[0]));
    times.push_back(timebase.ToNanoseconds(e.timestamp));
  }
  EXPECT_EQ(conversions, 1);
  EXPECT_EQ(sequence, (std::vector<std::string>{"hostA:11", "hostB:12", "hostA:13", "hostB:14"}));
  EXPECT_EQ(times, (std::vector<uint64_t>{10, 20, 300, 500}));
}

// The recorder writes TRACE ON and the header before the time conversion: they are converted too.
TEST(ExportMergeWriter, EventsBeforeTheTimeConversionAreConvertedLikeTheRest) {
  TempDir dir;
  LogBuilder a;
  a.Hook(event::kHookTraceOn, 0, {0}, 1, 100).TimeConversion(5, 2).Hook(0x1230, 0, {1}, 1, 200);
  EXPECT_TRUE(a.WriteTo(dir.File("a.trc")).ok());
  auto stream = Open({dir.File("a.trc")});
  SourceEvent item;
  std::vector<uint64_t> times;
  while (stream.Next(item) == event::ReadStatus::kEvent) {
    if (item.event->timestamped) times.push_back(item.time_ns);
  }
  EXPECT_EQ(times, (std::vector<uint64_t>{250, 500}));
}

TEST(ExportMergeWriter, RefusesLogsOfDifferentByteOrders) {
  TempDir dir;
  EXPECT_TRUE(LogBuilder(event::Layout::k64, ByteOrder::kBig)
                  .Hook(0x1230, 0, {}, 1, 1)
                  .WriteTo(dir.File("big.trc"))
                  .ok());
  EXPECT_TRUE(LogBuilder(event::Layout::k64, ByteOrder::kLittle)
                  .Hook(0x1230, 0, {}, 1, 1)
                  .WriteTo(dir.File("little.trc"))
                  .ok());
  auto stream = Open({dir.File("big.trc"), dir.File("little.trc")});
  auto order = CommonByteOrder(stream);
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("little.trc is little-endian"), std::string::npos)
      << order.error().message;
}

TEST(ExportMergeWriter, ThirtyTwoBitEventsBecomeBEventsWithTheirWords) {
  TempDir dir;
  LogBuilder small(event::Layout::k32, ByteOrder::kBig);
  small.Hook(0x1230, 0x0042, {0xAABBCCDD}, 7, 5);
  EXPECT_TRUE(small.WriteTo(dir.File("small.trc")).ok());
  auto stream = Open({dir.File("small.trc")});
  {
    auto writer = event::LogWriter::Create(dir.File("m.trc"), {.byte_order = ByteOrder::kBig});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(WriteMergedLog(stream, *writer).ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  auto reader = event::LogReader::Open(dir.File("m.trc"), {.reformat = false});
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->layout(), event::Layout::k64);
  event::Event e;
  bool found = false;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    if (e.hook_id != 0x1230) continue;
    found = true;
    EXPECT_TRUE(e.data32);
    EXPECT_EQ(e.subhook, 0x0042);
    ASSERT_EQ(e.word_count, 1);
    EXPECT_EQ(e.words[0], 0xAABBCCDDu);
    EXPECT_EQ(e.thread_id, 7u);
    EXPECT_EQ(e.timestamp, 5u);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace rastrace::exporter
