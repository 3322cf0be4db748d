#include "tsf/format_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rastrace::tsf {
namespace {

using ::testing::HasSubstr;

Module Sample() {
  auto out = ParseTsfFile(std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/os2/sample.tsf");
  EXPECT_TRUE(out.ok() && out->module.has_value());
  return *out->module;
}

TEST(FormatFile, NameIsMajorInFourHexDigits) {
  EXPECT_EQ(FormatFileName(100), "TRC0064.TFF");
  EXPECT_EQ(FormatFileName(0xABCD), "TRCABCD.TFF");
}

TEST(FormatFile, RoundTripsTheSample) {
  const FormatFile f = MakeFormatFile(Sample());
  const std::string text = WriteFormatText(f);
  EXPECT_THAT(text, HasSubstr("RASTRACE-TFF 1\nmajor 0x0064\n"));
  EXPECT_THAT(text, HasSubstr("tracepoint 0x8001 \"(OS) DosOpenC   Post-Invocation\""));
  auto back = ParseFormatText(text, "x.tff");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->major, 100);
  EXPECT_EQ(back->modname, "doscall1.dll");
  ASSERT_EQ(back->tracepoints.size(), 3u);
  const TracepointFormat* t = back->Find(1);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->fmt, f.Find(1)->fmt);
  EXPECT_EQ(t->parsed.size(), 3u);
  EXPECT_EQ(WriteFormatText(*back), text);
}

TEST(FormatFile, EscapesSurvive) {
  FormatFile f;
  f.major = 1;
  f.tracepoints[1] = {1, "quote \" back \\ tab\t", {"%W \"x\""}, {}};
  auto back = ParseFormatText(WriteFormatText(f), "x");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->Find(1)->desc, "quote \" back \\ tab\t");
  EXPECT_EQ(back->Find(1)->fmt[0], "%W \"x\"");
}

TEST(FormatFile, BadFilesAreErrorsWithLine) {
  EXPECT_THAT(ParseFormatText("hello\n", "a.tff").error().message,
              HasSubstr("a.tff:1: not a trace format file"));
  EXPECT_THAT(ParseFormatText("RASTRACE-TFF 2\n", "a.tff").error().message,
              HasSubstr("version 2 is not supported"));
  EXPECT_THAT(ParseFormatText("RASTRACE-TFF 1\nmajor 0x0001\ntracepoint 0x0001 \"d\"\n", "a.tff")
                  .error()
                  .message,
              HasSubstr("truncated"));
  EXPECT_THAT(
      ParseFormatText("RASTRACE-TFF 1\nmajor 0x0001\nfmt \"x\"\nend\n", "a.tff").error().message,
      HasSubstr("a.tff:3: 'fmt' before any 'tracepoint'"));
  EXPECT_THAT(ParseFormatText("RASTRACE-TFF 1\nmajor 0x0001\ntracepoint 0x0001 \"d\"\nfmt "
                              "\"%Z\"\nend\n",
                              "a.tff")
                  .error()
                  .message,
              HasSubstr("a.tff:4: FMT: offset 0"));
}

TEST(FormatFile, CombineKeepsTheFirstDefinitionAndWarns) {
  FormatFile a, b, c;
  a.major = b.major = 5;
  c.major = 6;
  a.tracepoints[1] = {1, "from a", {}, {}};
  b.tracepoints[1] = {1, "from b", {}, {}};
  b.tracepoints[2] = {2, "only b", {}, {}};
  std::vector<std::string> warnings;
  auto out = CombineFormatFiles({{"a.tff", a}, {"b.tff", b}}, warnings);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->Find(1)->desc, "from a");
  EXPECT_EQ(out->Find(2)->desc, "only b");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("b.tff: minor 0x0001 is already defined by a.tff"));
  auto mixed = CombineFormatFiles({{"a.tff", a}, {"c.tff", c}}, warnings);
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.error().message, HasSubstr("only format files of one major"));
}

}  // namespace
}  // namespace rastrace::tsf
