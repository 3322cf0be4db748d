#include "common/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/scratch_dir_test.h"

namespace rastrace {
namespace {

class OutputFileTest : public testing::ScratchDirTest {};

TEST_F(OutputFileTest, CreatesPrivateFile) {
  const std::string path = dir_ + "/out";
  auto file = OpenOutputStream(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::fputs("data", *file);
  std::fclose(*file);
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 4);
}

TEST_F(OutputFileTest, RefusesSymbolicLinkAndLeavesTargetAlone) {
  const std::string target = dir_ + "/victim";
  { std::ofstream(target) << "precious"; }
  const std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  auto file = OpenOutputStream(link);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, link + ": refusing to write through a symbolic link");
  std::ifstream in(target);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(OutputFileTest, ReportsMissingDirectory) {
  auto file = OpenOutputStream(dir_ + "/no/such/out");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().message.find("cannot create: No such file or directory"),
            std::string::npos);
}

TEST_F(OutputFileTest, AFullDeviceIsAWriteError) {
  std::FILE* full = std::fopen("/dev/full", "w");
  ASSERT_NE(full, nullptr);
  std::fputs("lost", full);
  auto finished = FinishOutput(full, "/dev/full");
  std::fclose(full);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().message, "/dev/full: write error: No space left on device");

  std::FILE* fine = std::fopen((dir_ + "/fine").c_str(), "w");
  ASSERT_NE(fine, nullptr);
  std::fputs("kept", fine);
  EXPECT_TRUE(FinishOutput(fine));
  std::fclose(fine);
}

TEST_F(OutputFileTest, WholeFilesAreWrittenAndCheckedNeverThroughASymlink) {
  const std::string path = dir_ + "/whole";
  ASSERT_TRUE(WriteWholeFile(path, "text\n"));
  std::FILE* in = std::fopen(path.c_str(), "r");
  ASSERT_NE(in, nullptr);
  char buffer[16] = {};
  EXPECT_EQ(std::fread(buffer, 1, sizeof buffer, in), 5u);
  std::fclose(in);
  ASSERT_EQ(symlink(path.c_str(), (dir_ + "/link").c_str()), 0);
  auto linked = WriteWholeFile(dir_ + "/link", "x");
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().message, dir_ + "/link: cannot write: it is a symlink");
  auto full = WriteWholeFile("/dev/full", "lost");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().message, "/dev/full: cannot write: No space left on device");
}

}  // namespace
}  // namespace rastrace
