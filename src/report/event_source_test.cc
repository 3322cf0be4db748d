#include "report/event_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "event/format.h"
#include "event/log_builder.h"

namespace rastrace::report {
namespace {

using event::testing::LogBuilder;

class EventSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("report_source_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const LogBuilder& log, const std::string& name) {
    std::string path = (dir_ / name).string();
    EXPECT_TRUE(log.WriteTo(path).ok());
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(EventSourceTest, ElapsedTimeUsesTheTimeConversion) {
  LogBuilder log;
  log.TimeConversion(3, 2, 2, 1000)  // ns = ticks * 3 / 2
      .Hook(0x0100, 0, {}, 5, 3000)
      .Hook(0x0110, 0, {1}, 5, -1);
  auto source = EventSource::Open({Write(log, "a.trc")}, nullptr);
  ASSERT_TRUE(source.ok()) << source.error().message;
  SourcedEvent e;
  ASSERT_TRUE((*source)->Next(e));
  EXPECT_EQ(e.elapsed_ns, 0);
  ASSERT_TRUE((*source)->Next(e));
  EXPECT_EQ(e.elapsed_ns, 3000);  // (3000 - 1000) * 3 / 2
  EXPECT_TRUE(e.timestamped);
  ASSERT_TRUE((*source)->Next(e));
  EXPECT_FALSE(e.timestamped);
  EXPECT_EQ(e.elapsed_ns, 3000);  // an untimestamped event has the time of the one before
  EXPECT_EQ(e.sequence, 3u);
  EXPECT_FALSE((*source)->Next(e));
  EXPECT_TRUE((*source)->warnings().empty());
}

TEST_F(EventSourceTest, SeveralLogsMergeByTime) {
  LogBuilder a, b(event::Layout::k64, ByteOrder::kBig);
  a.Hook(0x0100, 0, {}, 1, 100).Hook(0x0110, 0, {}, 1, 300);
  b.Hook(0x0200, 0, {}, 2, 200).Hook(0x0210, 0, {}, 2, -1).Hook(0x0220, 0, {}, 2, 400);
  auto source = EventSource::Open({Write(a, "a.trc"), Write(b, "b.trc")}, nullptr);
  ASSERT_TRUE(source.ok());
  std::vector<uint16_t> ids;
  SourcedEvent e;
  while ((*source)->Next(e)) ids.push_back(e.event->hook_id);
  EXPECT_EQ(ids, (std::vector<uint16_t>{0x0100, 0x0200, 0x0210, 0x0110, 0x0220}));
}

TEST_F(EventSourceTest, TruncatedLogGivesOneWarningWithTheOffset) {
  LogBuilder log;
  log.Hook(0x0100, 0, {}, 1, 100);
  std::vector<uint8_t> partial = {0x00, 0x00, 0x10, 0x01, 0x08};
  log.Raw(partial);
  auto source = EventSource::Open({Write(log, "t.trc")}, nullptr);
  ASSERT_TRUE(source.ok());
  SourcedEvent e;
  EXPECT_TRUE((*source)->Next(e));
  EXPECT_FALSE((*source)->Next(e));
  ASSERT_EQ((*source)->warnings().size(), 1u);
  EXPECT_NE((*source)->warnings()[0].find("t.trc"), std::string::npos);
}

TEST_F(EventSourceTest, NotALogIsAnError) {
  std::string path = (dir_ / "junk").string();
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs("hello world", f);
  std::fclose(f);
  auto source = EventSource::Open({path}, nullptr);
  ASSERT_FALSE(source.ok());
  EXPECT_NE(source.error().message.find("junk"), std::string::npos);
}

TEST_F(EventSourceTest, HeaderGivesTheWallClock) {
  LogBuilder log;
  log.Header(1'000'000, "Linux", "node", "6.1", "#1", "x86_64", "trace", 0)
      .Hook(0x0100, 0, {}, 1, 2'500'000'000);
  auto source = EventSource::Open({Write(log, "h.trc")}, nullptr);
  ASSERT_TRUE(source.ok());
  SourcedEvent e;
  ASSERT_TRUE((*source)->Next(e));
  ASSERT_TRUE((*source)->Next(e));
  ASSERT_TRUE(e.wall_seconds.has_value());
  EXPECT_EQ(*e.wall_seconds, 1'000'002);
}

}  // namespace
}  // namespace rastrace::report
