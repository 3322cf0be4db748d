#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "stda/stda.h"

namespace rastrace::stda {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> SampleStda() {
  auto buf = TraceBuffer::Create(Format::kNew, 0x80).value();
  const uint8_t a[] = {1, 2, 3, 4};
  EXPECT_TRUE(buf.Write({0x10, 1, 5, flag::kNotKernel, {1, 2, 3, 4}, a}).ok());
  EXPECT_TRUE(buf.Write({0x10, 2, 5, flag::kNotKernel, {1, 2, 3, 5}, {}}).ok());
  return buf.Snapshot();
}

TEST(SaveFile, HeaderLayout) {
  const auto stda = SampleStda();
  DateTime d{8, 30, 15, 50, 21, 11, 2026, -60, 6};
  const auto file = MakeSaveFile(stda, d);
  ASSERT_EQ(file.size(), 0x1A + stda.size());
  EXPECT_EQ(file[0] | file[1] << 8 | file[2] << 16 | file[3] << 24, 0x80);
  EXPECT_EQ(file[4], 8);   // hours
  EXPECT_EQ(file[9], 11);  // month
  EXPECT_EQ(file[10] | file[11] << 8, 2026);
  EXPECT_EQ(file[12] | file[13] << 8, 0xFFC4);  // -60 minutes
  EXPECT_EQ(file[14], 6);
  EXPECT_EQ(std::string(file.begin() + 0x0F, file.begin() + 0x1A), "RASTRACEFMT");
  EXPECT_EQ(std::string(file.begin() + 0x1A, file.begin() + 0x22), "SYSTRACE");
}

TEST(SaveFile, RoundTripThroughAFile) {
  const auto stda = SampleStda();
  const auto path = std::filesystem::temp_directory_path() / "rastrace_save_file_test.stda";
  ASSERT_TRUE(WriteSaveFile(path.string(), stda).ok());
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::filesystem::remove(path);
  SaveFile s = ReadSaveFile(bytes);
  EXPECT_TRUE(s.contents.problems.empty());
  EXPECT_EQ(s.stda_length, 0x80u);
  EXPECT_EQ(std::string(s.check_key.begin(), s.check_key.end()), "RASTRACEFMT");
  ASSERT_EQ(s.contents.records.size(), 2u);
  EXPECT_EQ(s.contents.records[0].minor, 1);
  EXPECT_EQ(s.contents.records[1].minor, 2);
}

TEST(SaveFile, AnyCheckKeyIsAccepted) {
  auto file = MakeSaveFile(SampleStda(), {});
  std::fill(file.begin() + 0x0F, file.begin() + 0x1A, 'Z');
  EXPECT_TRUE(ReadSaveFile(file).contents.problems.empty());
}

TEST(SaveFile, LengthDisagreeingWithFileIsReported) {
  auto file = MakeSaveFile(SampleStda(), {});
  file[0] = 0x90;
  SaveFile s = ReadSaveFile(file);
  ASSERT_FALSE(s.contents.problems.empty());
  EXPECT_EQ(s.contents.problems[0].offset, 0u);
  EXPECT_THAT(s.contents.problems[0].message, HasSubstr("STDA length 144 disagrees"));
  EXPECT_EQ(s.contents.records.size(), 2u);  // still read
}

TEST(SaveFile, TruncatedFileReportsOffsetAndKeepsRecords) {
  auto file = MakeSaveFile(SampleStda(), {});
  file.resize(0x1A + 0x60);
  SaveFile s = ReadSaveFile(file);
  ASSERT_GE(s.contents.problems.size(), 2u);
  EXPECT_THAT(s.contents.problems[1].message, HasSubstr("LAST 0x007f is beyond"));
  EXPECT_EQ(s.contents.problems[1].offset, 0x1Au + 0x60);
  EXPECT_EQ(s.contents.records.size(), 2u);
}

TEST(SaveFile, ShortHeader) {
  std::vector<uint8_t> file(10, 0);
  SaveFile s = ReadSaveFile(file);
  ASSERT_EQ(s.contents.problems.size(), 1u);
  EXPECT_THAT(s.contents.problems[0].message, HasSubstr("shorter than the 26-byte"));
}

TEST(SaveFile, OffsetsInsideTheFile) {
  auto file = MakeSaveFile(SampleStda(), {});
  file[0x1A + 12] = 0xF0;  // NEXT outside the record area
  SaveFile s = ReadSaveFile(file);
  ASSERT_EQ(s.contents.problems.size(), 1u);
  EXPECT_EQ(s.contents.problems[0].offset, 0x1Au + 12);
}

}  // namespace
}  // namespace rastrace::stda
