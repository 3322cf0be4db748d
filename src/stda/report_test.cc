#include "stda/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tsf/format_file.h"

namespace rastrace::stda {
namespace {

using ::testing::HasSubstr;

tsf::FormatFile SampleFormats() {
  auto out = tsf::ParseTsfFile(std::string(RASTRACE_SOURCE_DIR) + "/tests/golden/os2/sample.tsf");
  EXPECT_TRUE(out.ok() && out->module.has_value());
  return tsf::MakeFormatFile(*out->module);
}

Record MakeRecord(uint16_t minor, std::vector<uint8_t> data,
                  uint8_t flags = flag::kNotKernel | flag::kDynamic) {
  Record r;
  r.major = 0x64;
  r.minor = minor;
  r.pid = 42;
  r.flags = flags;
  r.time = Timestamp{8, 30, 15, 50};
  r.data = std::move(data);
  return r;
}

// The seed 004 sample's FMT lines over records a dynamic tracer would store.
TEST(Report, Seed004SampleFormats) {
  const tsf::FormatFile formats = SampleFormats();
  std::string out;
  // DosOpen: REGS=(EAX), then ASCIIZ32 FileName (prefix: status 0, length 13).
  std::vector<uint8_t> open = {0x2C, 0x4B, 0x00, 0x00, 0, 13, 0};
  for (char c : std::string("C:\\CONFIG.SYS")) open.push_back(static_cast<uint8_t>(c));
  EXPECT_TRUE(AppendRecordText(1, MakeRecord(1, open), Format::kNew, formats.Find(1), out));
  EXPECT_EQ(out,
            "0001  Major 0x64  Minor 0x0001  PID 42  Time 08:30:15.50  [dynamic]  (OS) DosOpen  "
            "  Pre-Invocation\n"
            "Major = 0064  Minor = 0001\n"
            "            EAX = 0000 4B2C\n"
            "            FileName = C:\\CONFIG.SYS\n");

  out.clear();
  EXPECT_TRUE(AppendRecordText(2, MakeRecord(0x7001, {0, 2, 0, 0x05, 0x00}), Format::kNew,
                               formats.Find(0x7001), out));
  EXPECT_THAT(out, HasSubstr("\n                 New handle = 0005\n"));

  out.clear();
  // DosOpenC: retcode, then the variable record of LEN bytes.
  EXPECT_TRUE(AppendRecordText(3, MakeRecord(0x8001, {0, 2, 0, 0x00, 0x00, 0, 4, 0, 1, 2, 3, 4}),
                               Format::kGa, formats.Find(0x8001), out));
  EXPECT_THAT(out, HasSubstr("Time 15.50"));
  EXPECT_THAT(out, HasSubstr("\n                 Return Code = 0000\n"
                             "                 Variable Rec= 01 02 03 04\n"));

  out.clear();
  // The first pointer could not be followed: its value, then `?` for the rest.
  EXPECT_TRUE(AppendRecordText(4,
                               MakeRecord(0x8001, {2, 8, 0, 0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0},
                                          flag::kNotKernel | flag::kDynamic | flag::kIncomplete),
                               Format::kNew, formats.Find(0x8001), out));
  EXPECT_THAT(out, HasSubstr("[dynamic incomplete]"));
  EXPECT_THAT(out, HasSubstr("Return Code = <invalid address: 0xdeadbeef>\n"
                             "                 Variable Rec= ?\n"));
}

TEST(Report, RecordsWithoutFormatPrintAsHex) {
  std::string out;
  Record r = MakeRecord(9, std::vector<uint8_t>(20, 0xAB), 0);
  r.time.reset();
  EXPECT_FALSE(AppendRecordText(7, r, Format::kNew, nullptr, out));
  EXPECT_EQ(out,
            "0007  Major 0x64  Minor 0x0009  PID 42  Time -  [kernel]\n"
            "  no format; 20 data bytes:\n"
            "    0000: AB AB AB AB AB AB AB AB AB AB AB AB AB AB AB AB\n"
            "    0010: AB AB AB AB\n");
}

TEST(Report, LibraryLoadsByMajorAndReportsBrokenFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "rastrace_report_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "TRC0064.TFF") << tsf::WriteFormatText(SampleFormats());
  std::ofstream(dir / "trc0010.tff") << "RASTRACE-TFF 1\nmajor 0x0010\n";  // truncated
  FormatLibrary library(dir.string());
  ASSERT_NE(library.Find(0x64), nullptr);
  EXPECT_NE(library.Find(0x64)->Find(0x7001), nullptr);
  EXPECT_EQ(library.Find(0x10), nullptr);
  EXPECT_EQ(library.Find(0x11), nullptr);  // no file: not an error
  ASSERT_EQ(library.errors().size(), 1u);
  EXPECT_THAT(library.errors()[0], HasSubstr("truncated"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastrace::stda
