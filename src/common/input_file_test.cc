#include "common/input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/scratch_dir_test.h"

namespace rastrace {
namespace {

class InputFileTest : public testing::ScratchDirTest {};

TEST_F(InputFileTest, ReadsAFileUpToItsLimit) {
  std::ofstream(dir_ + "/f") << "0123456789";
  auto text = ReadInputFile(dir_ + "/f", 10, "test files");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "0123456789");
  auto over = ReadInputFile(dir_ + "/f", 9, "test files");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message, dir_ + "/f: larger than 9 bytes, the limit for test files");
}

TEST_F(InputFileTest, ADirectoryIsAnError) {
  auto text = ReadInputFile(dir_, 100, "test files");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, dir_ + ": is a directory");
}

TEST_F(InputFileTest, AnEndlessDeviceStopsAtTheLimit) {
  auto text = ReadInputFile("/dev/zero", size_t{1} << 20, "test files");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "/dev/zero: larger than 1 MiB, the limit for test files");
}

TEST_F(InputFileTest, AMissingFileSaysWhy) {
  auto text = ReadInputFile(dir_ + "/none", 100, "test files");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, dir_ + "/none: cannot open: No such file or directory");
}

TEST(SizeText, NamesTheLargestWholeUnit) {
  EXPECT_EQ(SizeText(16 << 20), "16 MiB");
  EXPECT_EQ(SizeText(65562), "65562 bytes");
  EXPECT_EQ(SizeText(64 << 10), "64 KiB");
  EXPECT_EQ(SizeText(uint64_t{1} << 30), "1 GiB");
}

}  // namespace
}  // namespace rastrace
