#include "schema/names.h"

#include <gtest/gtest.h>

namespace rastrace::schema {
namespace {

TEST(Identifier, LowersAndJoinsWordsWithUnderscores) {
  EXPECT_EQ(Identifier("child pid="), "child_pid");
  EXPECT_EQ(Identifier("FileName = "), "filename");
  EXPECT_EQ(Identifier("(OS) DosOpen    Pre-Invocation"), "os_dosopen_pre_invocation");
  EXPECT_EQ(Identifier("TRACE ON"), "trace_on");
  EXPECT_EQ(Identifier("@UTILITY"), "utility");
}

TEST(Identifier, NeverStartsWithADigitAndIsEmptyWithoutLettersOrDigits) {
  EXPECT_EQ(Identifier("2nd try"), "_2nd_try");
  EXPECT_EQ(Identifier("( )"), "");
  EXPECT_EQ(Identifier(""), "");
  EXPECT_EQ(Identifier("caf\xc3\xa9"), "caf");  // only ASCII letters count
}

TEST(FieldNameFromLabel, DropsTheTrailingEqualsOrColon) {
  EXPECT_EQ(FieldNameFromLabel("tid="), "tid");
  EXPECT_EQ(FieldNameFromLabel("            EAX = "), "eax");
  EXPECT_EQ(FieldNameFromLabel("Return Code = "), "return_code");
  EXPECT_EQ(FieldNameFromLabel("Node:"), "node");
  EXPECT_EQ(FieldNameFromLabel("("), "");
}

TEST(MakeUnique, NumbersRepeatsAndFillsEmptyNames) {
  std::vector<std::string> names = {"pid", "", "pid", "pid_2", "pid"};
  MakeUnique(names);
  EXPECT_EQ(names, (std::vector<std::string>{"pid", "field2", "pid_2", "pid_2_2", "pid_3"}));
}

}  // namespace
}  // namespace rastrace::schema
