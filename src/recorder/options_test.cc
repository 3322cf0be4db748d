#include "recorder/options.h"

#include <gtest/gtest.h>

#include <map>

namespace rastrace::recorder {
namespace {

TEST(OptionsTest, SizesTakeBinarySuffixes) {
  EXPECT_EQ(*ParseSize("4096", "-T"), 4096u);
  EXPECT_EQ(*ParseSize("64K", "-T"), 65536u);
  EXPECT_EQ(*ParseSize("4M", "-T"), 4u << 20);
  EXPECT_EQ(*ParseSize("1G", "-T"), 1u << 30);
  auto bad = ParseSize("12Q", "-T");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("-T: '12Q' has an unknown suffix"), std::string::npos);
  EXPECT_FALSE(ParseSize("", "-L"));
  EXPECT_FALSE(ParseSize("99999999999999999999", "-L"));
}

TEST(OptionsTest, AbsurdBufferSizesAreRefused) {
  EXPECT_EQ(*ParseBufferSize("1G", "-T"), kMaxBufferBytes);
  auto huge = ParseTraceString("-T 18446744073709551615");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message,
            "-T: '18446744073709551615' is larger than the largest buffer, 1073741824 bytes (1G) "
            "per thread");
  EXPECT_FALSE(ParseTraceString("--buffer-max 2G"));
  EXPECT_TRUE(ParseTraceString("-L 64G"));  // a log limit is not memory
  for (const char* variable : {"RASTRACE_BUFSIZE", "RASTRACE_BUFMAX"}) {
    auto options = OptionsFromEnvironment([&](const char* name) -> const char* {
      return std::string_view(name) == variable ? "64G" : nullptr;
    });
    ASSERT_FALSE(options) << variable;
    EXPECT_EQ(options.error().message,
              std::string(variable) +
                  ": '64G' is larger than the largest buffer, 1073741824 bytes (1G) per thread");
  }
}

TEST(OptionsTest, HookIdsOfThreeDigitsAreTwelveBit) {
  auto hooks = ParseHookList("010,0A1,4001,0x0120", "-j");
  ASSERT_TRUE(hooks) << hooks.error().message;
  EXPECT_EQ(*hooks, (std::vector<uint16_t>{0x0100, 0x0A10, 0x4001, 0x0120}));
  auto bad = ParseHookList("01G", "-j");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("'01G' is not a hook id"), std::string::npos);
  EXPECT_FALSE(ParseHookList("12345", "-k"));
}

TEST(OptionsTest, DirectIoIsTheDefaultAndBufferedIoTurnsItOff) {
  EXPECT_TRUE(ParseTraceString("")->direct_io);
  auto buffered = ParseTraceString("-o x --buffered-io");
  ASSERT_TRUE(buffered) << buffered.error().message;
  EXPECT_FALSE(buffered->direct_io);
  // Carried into traced programs by the environment, and back.
  std::map<std::string, std::string> env;
  for (auto& [name, value] : OptionsToEnvironment(*buffered)) env[name] = value;
  EXPECT_EQ(env["RASTRACE_DIRECT_IO"], "0");
  auto back = OptionsFromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->direct_io);
  auto bad = OptionsFromEnvironment([](const char* name) -> const char* {
    return std::string_view(name) == "RASTRACE_DIRECT_IO" ? "yes" : nullptr;
  });
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("RASTRACE_DIRECT_IO: 'yes' is not 0 or 1"), std::string::npos);
}

TEST(OptionsTest, DefaultRingsGrowAndAnExplicitSizeStaysFixed) {
  const RecorderOptions defaults = *ParseTraceString("");
  EXPECT_EQ(defaults.buffer_bytes, kDefaultBufferBytes);
  EXPECT_EQ(defaults.buffer_max_bytes, kDefaultBufferMaxBytes);
  EXPECT_GT(kDefaultBufferMaxBytes, kDefaultBufferBytes);
  // -T alone: fixed, as on AIX; with --buffer-max (before or after it): that limit.
  EXPECT_EQ(ParseTraceString("-T 1M")->buffer_max_bytes, 1u << 20);
  EXPECT_EQ(ParseTraceString("-T 1M --buffer-max 8M")->buffer_max_bytes, 8u << 20);
  EXPECT_EQ(ParseTraceString("--buffer-max 8M -T 1M")->buffer_max_bytes, 8u << 20);
  EXPECT_EQ(ParseTraceString("--buffer-max 16M")->buffer_bytes, kDefaultBufferBytes);
  auto bad = ParseTraceString("--buffer-max lots");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--buffer-max: 'lots'"), std::string::npos)
      << bad.error().message;
  // The same through the environment, and carried there and back.
  auto from_env = [](std::map<std::string, std::string> env) {
    return OptionsFromEnvironment([env = std::move(env)](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    });
  };
  EXPECT_EQ(from_env({})->buffer_max_bytes, kDefaultBufferMaxBytes);
  EXPECT_EQ(from_env({{"RASTRACE_BUFSIZE", "1M"}})->buffer_max_bytes, 1u << 20);
  EXPECT_EQ(from_env({{"RASTRACE_BUFSIZE", "1M"}, {"RASTRACE_BUFMAX", "2M"}})->buffer_max_bytes,
            2u << 20);
  EXPECT_FALSE(from_env({{"RASTRACE_BUFMAX", "2Q"}}));
  std::map<std::string, std::string> env;
  for (auto& [name, value] : OptionsToEnvironment(*ParseTraceString("--buffer-max 32M"))) {
    env[name] = value;
  }
  auto back = from_env(env);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->buffer_bytes, kDefaultBufferBytes);
  EXPECT_EQ(back->buffer_max_bytes, 32u << 20);
}

TEST(OptionsTest, ChannelsAsListsRangesOrAll) {
  EXPECT_EQ(*ParseChannels("0", "c"), 0x1u);
  EXPECT_EQ(*ParseChannels("0,3,5", "c"), 0x29u);
  EXPECT_EQ(*ParseChannels("2-4", "c"), 0x1Cu);
  EXPECT_EQ(*ParseChannels("all", "c"), 0xFFu);
  EXPECT_FALSE(ParseChannels("8", "c"));
  EXPECT_FALSE(ParseChannels("4-2", "c"));
  EXPECT_FALSE(ParseChannels("x", "c"));
}

TEST(OptionsTest, TraceArgsAsAixTrace) {
  auto options = ParseTraceString("-o /tmp/x.log -l -T 64K -L 1M -s -c -j 010,011 --channels 0,1");
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->log_path, "/tmp/x.log");
  EXPECT_EQ(options->mode, buffer::Mode::kCircular);
  EXPECT_EQ(options->buffer_bytes, 65536u);
  EXPECT_EQ(options->log_bytes, 1u << 20);
  EXPECT_EQ(options->log_full, LogFull::kStop);
  EXPECT_TRUE(options->keep_old);
  EXPECT_EQ(options->include_hooks, (std::vector<uint16_t>{0x0100, 0x0110}));
  EXPECT_EQ(options->channels, 0x3u);
  EXPECT_EQ(ParseTraceString("-f")->mode, buffer::Mode::kSingle);
}

TEST(OptionsTest, TraceArgErrorsSayWhatWasExpected) {
  auto missing = ParseTraceString("-o");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "trace option -o needs a value");
  auto unknown = ParseTraceString("-z");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown trace option '-z' (expected -o LOG"),
            std::string::npos);
}

TEST(OptionsTest, EnvironmentRoundTrip) {
  RecorderOptions options;
  options.log_path = "/tmp/log";
  options.mode = buffer::Mode::kSingle;
  options.buffer_bytes = 8192;
  options.log_bytes = 1 << 20;
  options.log_full = LogFull::kStop;
  options.keep_old = true;
  options.channels = 0x81;
  options.include_hooks = {0x0100};
  options.exclude_hooks = {0x0110, 0x4001};
  options.clock = ClockChoice::kMonotonic;
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : OptionsToEnvironment(options)) env[name] = value;
  auto back = OptionsFromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->log_path, options.log_path);
  EXPECT_EQ(back->mode, options.mode);
  EXPECT_EQ(back->buffer_bytes, options.buffer_bytes);
  EXPECT_EQ(back->log_bytes, options.log_bytes);
  EXPECT_EQ(back->log_full, options.log_full);
  EXPECT_EQ(back->keep_old, options.keep_old);
  EXPECT_EQ(back->channels, options.channels);
  EXPECT_EQ(back->include_hooks, options.include_hooks);
  EXPECT_EQ(back->exclude_hooks, options.exclude_hooks);
  EXPECT_EQ(back->clock, options.clock);
}

TEST(OptionsTest, BadEnvironmentIsAnError) {
  auto options = OptionsFromEnvironment([](const char* name) -> const char* {
    return std::string_view(name) == "RASTRACE_MODE" ? "sideways" : nullptr;
  });
  ASSERT_FALSE(options);
  EXPECT_NE(options.error().message.find("'sideways' is not a mode"), std::string::npos);
}

}  // namespace
}  // namespace rastrace::recorder
