// Which words are format codes, and what they mean.
#include "template/format_code.h"

#include <gtest/gtest.h>

namespace rastrace::tmpl {
namespace {

FormatCode Code(std::string_view word) {
  CodeParse p = ParseFormatCode(word);
  EXPECT_EQ(p.match, CodeMatch::kCode) << word;
  return p.code;
}

TEST(FormatCodeTest, ParsesEveryCode) {
  EXPECT_EQ(Code("G1.5").kind, CodeKind::kGoto);
  EXPECT_EQ(Code("G1.5").n, 5u);
  EXPECT_EQ(Code("O2").kind, CodeKind::kOmit);
  EXPECT_EQ(Code("R0").kind, CodeKind::kReverse);
  EXPECT_EQ(Code("W3").kind, CodeKind::kWord);
  EXPECT_TRUE(Code("A8.16").has_n);
  EXPECT_FALSE(Code("A16").has_n);
  EXPECT_TRUE(Code("SW").word_sized);
  EXPECT_EQ(Code("B0.19").n, 19u);
  EXPECT_EQ(Code("X16").m, 16u);
  EXPECT_TRUE(Code("XW").word_sized);
  EXPECT_EQ(Code("D8").kind, CodeKind::kSigned);
  EXPECT_EQ(Code("UW").kind, CodeKind::kUnsigned);
  EXPECT_EQ(Code("o4").kind, CodeKind::kOctal);
  EXPECT_TRUE(Code("ow").word_sized);
  EXPECT_EQ(Code("F8").kind, CodeKind::kFloat);
  EXPECT_EQ(Code("HB").kind, CodeKind::kBufferBytes);
  EXPECT_EQ(Code("HT").kind, CodeKind::kHookType);
  EXPECT_EQ(Code("T4").kind, CodeKind::kTime);
  EXPECT_EQ(Code("E1").kind, CodeKind::kErrno);
  EXPECT_EQ(Code("PW").kind, CodeKind::kPid);
}

TEST(FormatCodeTest, OrdinaryWordsAreText) {
  for (std::string_view w : {"block", "B_FLAG0", "E2BIG", "X4s", "OW", "A", "HBX", "x4", "LOOP"}) {
    EXPECT_EQ(ParseFormatCode(w).match, CodeMatch::kNotCode) << w;
  }
}

TEST(FormatCodeTest, BadSizesSayWhatWasExpected) {
  CodeParse p = ParseFormatCode("X17");
  EXPECT_EQ(p.match, CodeMatch::kInvalid);
  EXPECT_EQ(p.error, "'X17' is not a valid format code: expected X0 to X16 or XW");
  EXPECT_EQ(ParseFormatCode("D3").match, CodeMatch::kInvalid);
  EXPECT_EQ(ParseFormatCode("F2").match, CodeMatch::kInvalid);
  EXPECT_EQ(ParseFormatCode("B8.1").match, CodeMatch::kInvalid);  // 65 bits
  EXPECT_EQ(ParseFormatCode("R1.2").match, CodeMatch::kInvalid);
  EXPECT_EQ(ParseFormatCode("G999999").match, CodeMatch::kInvalid);
}

}  // namespace
}  // namespace rastrace::tmpl
