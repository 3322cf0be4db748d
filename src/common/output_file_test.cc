#include "common/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace rastrace {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/rastrace-output-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

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

}  // namespace
}  // namespace rastrace
