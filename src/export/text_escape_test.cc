#include "export/text_escape.h"

#include <gtest/gtest.h>

#include "export/process_table.h"

namespace rastrace::exporter {
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(ExportTextEscape, JsonEscapesQuotesControlsAndReplacesInvalidUtf8) {
  EXPECT_EQ(Json("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Json("l1\nl2\tx\r"), R"("l1\nl2\tx\r")");
  EXPECT_EQ(Json(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(Json("caf\xC3\xA9"), "\"caf\xC3\xA9\"");                            // valid UTF-8 kept
  EXPECT_EQ(Json("\xFF"), "\"\xEF\xBF\xBD\"");                                  // stray byte
  EXPECT_EQ(Json("\xC3"), "\"\xEF\xBF\xBD\"");                                  // cut sequence
  EXPECT_EQ(Json("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                  // overlong
  EXPECT_EQ(Json("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
}

TEST(ExportTextEscape, CsvQuotesOnlyWhenNeeded) {
  std::string out;
  AppendCsvField(out, "plain");
  out.push_back('|');
  AppendCsvField(out, "a,b");
  out.push_back('|');
  AppendCsvField(out, "say \"hi\"\nbye");
  EXPECT_EQ(out, "plain|\"a,b\"|\"say \"\"hi\"\"\nbye\"");
}

TEST(ExportTextEscape, HexAndIds) {
  std::string out;
  AppendHex(out, std::vector<uint8_t>{0x00, 0xAB, 0x7F});
  EXPECT_EQ(out, "00ab7f");
  out.clear();
  AppendHexWord(out, 0xDEADBEEF);
  EXPECT_EQ(out, "0x00000000deadbeef");
  EXPECT_EQ(TemplateIdText(0x1230), "123");
  EXPECT_EQ(TemplateIdText(0x1234), "1234");
  EXPECT_EQ(TemplateIdText(0x00A0), "00A");
}

TEST(ExportProcessTable, BaseNameIsTheLastComponent) {
  EXPECT_EQ(BaseName("/usr/bin/ls"), "ls");
  EXPECT_EQ(BaseName("ls"), "ls");
  EXPECT_EQ(BaseName("/opt/app/"), "app");
}

}  // namespace
}  // namespace rastrace::exporter
