#include "tsf/fmt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rastrace::tsf {
namespace {

using ::testing::HasSubstr;

// Formats one FMT line over `data`.
std::string Format(std::string_view fmt, std::vector<uint8_t> data, bool kernel = false) {
  auto items = ParseFmt(fmt);
  EXPECT_TRUE(items.ok()) << items.error().message;
  if (!items.ok()) return "";
  const std::vector<FmtLineItems> lines = {items.value()};
  return FormatRecord(lines, {0x64, 0x0001, kernel, data})[0];
}

TEST(Fmt, MajorMinorAndPercent) {
  EXPECT_EQ(Format("Major = %X  Minor = %Y 100%%", {}), "Major = 0064  Minor = 0001 100%");
}

TEST(Fmt, FixedSizeControls) {
  EXPECT_EQ(Format("%B", {0xAB}), "AB");
  EXPECT_EQ(Format("%C%C%C", {'h', 0x01, 0x7F}), "h..");
  EXPECT_EQ(Format("%W", {0x34, 0x12}), "1234");
  EXPECT_EQ(Format("EAX = %D", {0x2C, 0x4B, 0x00, 0x00}), "EAX = 0000 4B2C");
  EXPECT_EQ(Format("%F", {0x2C, 0x4B, 0x00, 0x00}), "00004B2C");
  EXPECT_EQ(Format("%Q", {1, 2, 3, 4, 5, 6, 7, 8}), "0807060504030201");
  EXPECT_EQ(Format("%A", {0x34, 0x12, 0x0F, 0x00}), "000F:1234");  // offset first, then selector
}

TEST(Fmt, ControlsAreCaseInsensitive) {
  EXPECT_EQ(Format("%w %b %x", {0x34, 0x12, 0x56}), "1234 56 0064");
}

TEST(Fmt, SkipTakesItsTrailingBlank) {
  EXPECT_EQ(Format("%I2 %W", {1, 2, 0x34, 0x12}), "1234");
  EXPECT_EQ(Format("%I00001x%B", {1, 2}), "x02");
}

// Records in declaration order: an ASCIIZ32 record, then REGS=(AX), formatted by two FMT lines
// (the data cursor runs on from one line to the next).
TEST(Fmt, RegisterDataAfterAStringRecord) {
  auto name = ParseFmt("FileName = %P%S");
  auto ax = ParseFmt("AX = %W");
  ASSERT_TRUE(name.ok() && ax.ok());
  const std::vector<FmtLineItems> lines = {name.value(), ax.value()};
  const std::vector<uint8_t> data = {0, 5, 0, 'a', '.', 't', 'x', 't', 0x34, 0x12};
  EXPECT_EQ(FormatRecord(lines, {0x64, 0x0001, false, data}),
            (std::vector<std::string>{"FileName = a.txt", "AX = 1234"}));
}

TEST(Fmt, PrefixedControls) {
  // MEM32 of 2 bytes: status 0, length 2, then the word.
  EXPECT_EQ(Format("New handle = %P%W", {0, 2, 0, 0x07, 0x00}), "New handle = 0007");
  EXPECT_EQ(Format("%PW", {0, 2, 0, 0x07, 0x00}), "0007");
  // ASCIIZ32: the prefix gives the length; no NUL is stored.
  EXPECT_EQ(Format("FileName = %P%S", {0, 5, 0, 'a', '.', 't', 'x', 't'}), "FileName = a.txt");
  EXPECT_EQ(Format("%P%U", {0, 3, 0, 0xDE, 0xAD, 0x01}), "DE AD 01");
}

TEST(Fmt, NextPrefixStartsAfterTheWholeRecord) {
  // A 4-byte record formatted with %W only: the second %P still finds its prefix.
  EXPECT_EQ(Format("%P%W %P%W", {0, 4, 0, 1, 0, 2, 0, 0, 2, 0, 9, 0}), "0001 0009");
}

TEST(Fmt, BadStatusPrintsThePointerThenQuestionMarks) {
  std::vector<uint8_t> not_present = {1, 4, 0, 0x00, 0x10, 0x02, 0x00, 0xFF};
  EXPECT_EQ(Format("%P%W then %W %P%S", not_present), "<page not present: 0x21000> then ? ?");
  std::vector<uint8_t> invalid = {2, 8, 0, 0x08, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(Format("%P%S|%B", invalid), "<invalid address: 0x8>|?");
}

TEST(Fmt, MissingDataPrintsQuestionMark) {
  EXPECT_EQ(Format("%W %B", {0x01}), "? ?");
  EXPECT_EQ(Format("%D", {1, 2, 3}), "?");
  EXPECT_EQ(Format("%P%W", {0, 2}), "?");
  EXPECT_EQ(Format("%P%W", {0, 2, 0, 1}), "?");  // the record says 2 bytes, 1 is there
  EXPECT_EQ(Format("%U", {}), "?");
  EXPECT_EQ(Format("%S", {}), "?");
}

TEST(Fmt, StringWithoutPrefix) {
  EXPECT_EQ(Format("%S|%B", {'a', 'b', 0, 0x7E}), "ab|7E");
  EXPECT_EQ(Format("%S", {'a', 'b'}), "ab");  // to the record's end
  // Kernel-generated records: a reserved byte, the length, then the string (seed 000).
  EXPECT_EQ(Format("%S|%B", {0xEE, 3, 0, 'x', 'y', 'z', 0x42}, true), "xyz|42");
  EXPECT_EQ(Format("%S", {0xEE, 9, 0, 'x'}, true), "?");
}

TEST(Fmt, HexWithoutPrefixIsTheRestOfTheRecord) {
  EXPECT_EQ(Format("%B: %U", {1, 2, 3}), "01: 02 03");
}

TEST(Fmt, LinesShareTheDataCursor) {
  auto a = ParseFmt("a=%W").value();
  auto b = ParseFmt("b=%W").value();
  std::vector<uint8_t> data = {1, 0, 2, 0};
  auto lines = FormatRecord(std::vector<FmtLineItems>{a, b}, {1, 1, false, data});
  EXPECT_EQ(lines, (std::vector<std::string>{"a=0001", "b=0002"}));
}

TEST(Fmt, ParseErrorsNameTheOffset) {
  auto r = ParseFmt("ab %Z");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("offset 3: unknown control '%Z'"));
  EXPECT_FALSE(ParseFmt("%").ok());
  EXPECT_FALSE(ParseFmt("%I").ok());
  // %P before a control that takes no data only consumes the prefix.
  auto prefix_then_major = ParseFmt("%P%X");
  ASSERT_TRUE(prefix_then_major.ok());
  ASSERT_EQ(prefix_then_major->size(), 2u);
  EXPECT_EQ((*prefix_then_major)[0].control, FmtControl::kPrefixOnly);
  EXPECT_EQ((*prefix_then_major)[1].control, FmtControl::kMajor);
}

}  // namespace
}  // namespace rastrace::tsf
