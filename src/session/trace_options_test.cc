#include <gtest/gtest.h>

#include "session/kernel_events.h"
#include "session/session_config.h"

namespace rastrace::session {
namespace {

Result<SessionConfig> Parse(std::vector<std::string> args) {
  return ParseTraceArgs(args);
}

TEST(TraceOptions, AixFlags) {
  auto c = Parse({"-a", "-l", "-s", "-c", "-n", "-d", "-o", "/tmp/log", "-T", "64K", "-L", "1M"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->background);
  EXPECT_TRUE(c->defer);
  EXPECT_TRUE(c->symbols);
  EXPECT_TRUE(c->log.keep_old);
  EXPECT_EQ(c->log.mode, buffer::Mode::kCircular);
  EXPECT_EQ(c->log.log_full, recorder::LogFull::kStop);
  EXPECT_EQ(c->log.log_path, "/tmp/log");
  EXPECT_EQ(c->log.buffer_bytes, 64u * 1024);
  EXPECT_EQ(c->log.log_bytes, 1024u * 1024);
  EXPECT_FALSE(c->filter_active);
  EXPECT_TRUE(c->allowed.test(kHookSystemCall));
}

TEST(TraceOptions, GroupedFlagsAndAttachedValues) {
  auto c = Parse({"-af", "-o/tmp/x", "-gC", "0,2"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->background);
  EXPECT_TRUE(c->generic);
  EXPECT_EQ(c->log.mode, buffer::Mode::kSingle);
  EXPECT_EQ(c->log.log_path, "/tmp/x");
  EXPECT_TRUE(c->per_cpu);
  EXPECT_EQ(c->cpus, (std::vector<unsigned>{0, 2}));
}

TEST(TraceOptions, EventListsTwoDigitsMeanSixteenIds) {
  auto c = Parse({"-j", "10,465", "-k", "104"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->filter_active);
  for (uint16_t low = 0; low < 16; ++low) {
    EXPECT_EQ(c->allowed.test(0x1000 | (low << 4)), low != 4) << low;
  }
  EXPECT_TRUE(c->allowed.test(kHookExit));
  EXPECT_FALSE(c->allowed.test(kHookDispatch + 0x1000));
  EXPECT_FALSE(c->allowed.test(0x0200));
  auto ids = ParseEventList("0AB1", "-j");
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, std::vector<uint16_t>{0x0AB1});
}

TEST(TraceOptions, CommandTakesTheRest) {
  auto c = Parse({"-o", "x", "-x", "ls -l", "/tmp"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->command, (std::vector<std::string>{"ls", "-l", "/tmp"}));
  EXPECT_EQ(c->log.log_path.front(), '/');  // made absolute for the daemon
}

TEST(TraceOptions, ErrorsSayWhat) {
  EXPECT_NE(Parse({"-q"}).error().message.find("unknown flag -q"), std::string::npos);
  EXPECT_NE(Parse({"-o"}).error().message.find("-o needs a value"), std::string::npos);
  EXPECT_NE(Parse({"-j", "1"}).error().message.find("not a hook id"), std::string::npos);
  EXPECT_NE(Parse({"-j", "xyz"}).error().message.find("not a hook id"), std::string::npos);
  EXPECT_FALSE(Parse({"-T", "lots"}));
  EXPECT_NE(Parse({"-T", "64G"}).error().message.find("larger than the largest buffer"),
            std::string::npos);
  EXPECT_FALSE(Parse({"-C", "a"}));
  EXPECT_FALSE(Parse({"stray"}));
  EXPECT_FALSE(Parse({"-x", " "}));
  EXPECT_NE(Parse({"-C", "all", "-o", "-"}).error().message.find("needs -o FILE"),
            std::string::npos);
}

}  // namespace
}  // namespace rastrace::session
