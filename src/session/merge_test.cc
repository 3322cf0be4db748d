#include "session/merge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "event/encode.h"
#include "event/format.h"
#include "event/reader.h"
#include "session/event_builder.h"

namespace rastrace::session {
namespace {

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/session_merge_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::vector<uint8_t>& events) {
    std::vector<uint8_t> bytes;
    event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
    bytes.insert(bytes.end(), events.begin(), events.end());
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  std::string dir_;
};

TEST_F(MergeTest, TimestampOrderProcessTableAndDroppedHeaders) {
  std::vector<uint8_t> a, b;
  // Process 10: its header (dropped), its own process event, a hook from a second thread.
  AppendWords(event::kHookTraceOn, 0, {0}, 10, 1, true, a);
  AppendProcessEvent(10, 1, 10, "/bin/a", 1, a);
  AppendWords(0x0200, 0, {1}, 10, 100, true, a);
  AppendWords(0x0200, 0, {2}, 11, 300, true, a);
  AppendWords(0x0200, 0, {3}, 11, 0, false, a);  // no timestamp: stays after its predecessor
  AppendWords(event::kHookLost, 0, {7, 11}, 11, 400, true, a);
  // The kernel: events between.
  AppendWords(0x1060, 0, {1, 2, 3, 4, 5}, 99, 200, true, b);
  AppendWords(0x1060, 0, {1, 2, 3, 4, 5}, 99, 350, true, b);
  std::vector<MergeInput> inputs = {{Write("p10-1.trc", a), 10}, {Write("kernel.trc", b), 0}};

  recorder::RecorderOptions options;
  const std::string out = dir_ + "/out";
  auto sink = recorder::LogSink::Open(
      out, options, [](std::vector<uint8_t>&) {}, [](uint64_t, std::vector<uint8_t>&) {});
  ASSERT_TRUE(sink) << sink.error().message;
  auto totals = MergeLogs(inputs, *sink);
  ASSERT_TRUE(totals) << totals.error().message;
  ASSERT_TRUE(sink->Close());
  EXPECT_EQ(totals->lost_events, 7u);
  EXPECT_TRUE(totals->warnings.empty());

  auto reader = event::LogReader::Open(out);
  ASSERT_TRUE(reader);
  std::vector<std::pair<uint16_t, uint64_t>> seen;  // hook, timestamp or thread for 00A/100
  event::Event ev;
  while (reader->Next(ev) == event::ReadStatus::kEvent) {
    seen.emplace_back(ev.hook_id, ev.hook_id == event::kHookUtil ? ev.thread_id : ev.timestamp);
  }
  const std::vector<std::pair<uint16_t, uint64_t>> expected = {
      {event::kHookUtil, 10}, {0x0200, 100}, {0x1060, 200}, {event::kHookUtil, 11},
      {0x0200, 300},          {0x0200, 0},   {0x1060, 350}, {event::kHookLost, 400}};
  EXPECT_EQ(seen, expected);
}

TEST_F(MergeTest, DamagedLogsAreMergedUpToTheirLastWholeEvent) {
  std::vector<uint8_t> a;
  AppendWords(0x0200, 0, {1}, 10, 100, true, a);
  AppendWords(0x0200, 0, {2}, 10, 200, true, a);
  a.resize(a.size() - 5);  // the process died while its log was being written
  std::vector<MergeInput> inputs = {{Write("p10-1.trc", a), 10}, {dir_ + "/missing.trc", 0}};
  recorder::RecorderOptions options;
  auto sink = recorder::LogSink::Open(
      dir_ + "/out", options, [](std::vector<uint8_t>&) {}, [](uint64_t, std::vector<uint8_t>&) {});
  ASSERT_TRUE(sink);
  auto totals = MergeLogs(inputs, *sink);
  ASSERT_TRUE(totals);
  EXPECT_EQ(totals->events, 1u);
  EXPECT_EQ(totals->warnings.size(), 2u);
}

TEST(MergeNames, PidFromLogName) {
  EXPECT_EQ(PidFromLogName("p123-456.trc"), 123u);
  EXPECT_EQ(PidFromLogName("p123-456.trc.789"), 789u);
  EXPECT_EQ(PidFromLogName("kernel.trc"), 0u);
  EXPECT_EQ(PidFromLogName("p-.trc"), 0u);
}

}  // namespace
}  // namespace rastrace::session
