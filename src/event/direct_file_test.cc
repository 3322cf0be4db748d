#include "event/direct_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "event/test_util.h"
#include "event/writer.h"

namespace rastrace::event {
namespace {

std::vector<uint8_t> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool SupportsDirect(const std::string& dir) {
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) != 0 || fs.f_type == TMPFS_MAGIC) return false;
  const std::string probe = dir + "/direct-probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0600);
  if (fd >= 0) ::close(fd);
  ::unlink(probe.c_str());
  return fd >= 0;
}

class DirectFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!SupportsDirect(dir_.path())) {
      GTEST_SKIP() << dir_.path() << " is on a file system without O_DIRECT";
    }
    path_ = dir_.File("direct.bin");
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }

  testing::TempDir dir_;
  std::string path_;
  int fd_ = -1;
};

// Appends of every size, with syncs between some of them: the file holds exactly what was
// appended after each sync, partial blocks and chunk boundaries included.
TEST_F(DirectFileTest, FileHoldsEveryAppendedByteAfterEachSync) {
  auto file = DirectFile::Open(fd_, path_);
  ASSERT_TRUE(file) << file.error().message;
  std::mt19937 random(7);
  std::vector<uint8_t> expected;
  const std::vector<size_t> sizes = {1,     4095,
                                     4096,  4097,
                                     8,     DirectFile::kChunkBytes - 5,
                                     3,     DirectFile::kChunkBytes * 2 + 100,
                                     0,     17,
                                     65536, DirectFile::kChunkBytes * 5};
  for (size_t step = 0; step < sizes.size(); ++step) {
    std::vector<uint8_t> bytes(sizes[step]);
    for (auto& b : bytes) b = static_cast<uint8_t>(random());
    ASSERT_TRUE((*file)->Append(bytes));
    expected.insert(expected.end(), bytes.begin(), bytes.end());
    if (step % 3 != 1) {
      ASSERT_TRUE((*file)->Sync());
      ASSERT_EQ(FileBytes(path_), expected) << "after step " << step;
    }
  }
  ASSERT_TRUE((*file)->Close());
  EXPECT_EQ(FileBytes(path_), expected);
}

TEST_F(DirectFileTest, TmpfsIsRefusedSoTheCallerWritesNormally) {
  struct statfs fs {};
  if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
    GTEST_SKIP() << "/dev/shm is not a tmpfs here";
  }
  const std::string path = "/dev/shm/rastrace-direct-test-" + std::to_string(getpid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  auto file = DirectFile::Open(fd, path);
  EXPECT_FALSE(file);
  if (!file) {
    EXPECT_NE(file.error().message.find("tmpfs"), std::string::npos);
  }
  ::close(fd);
  ::unlink(path.c_str());
}

// A log written through the direct path is byte for byte the log written normally.
TEST_F(DirectFileTest, LogWriterWithDirectIoWritesTheSameLog) {
  auto write_log = [&](const std::string& path, bool direct) {
    WriterOptions options;
    options.overwrite = true;
    options.direct_io = direct;
    auto writer = LogWriter::Create(path, options);
    ASSERT_TRUE(writer) << writer.error().message;
    std::vector<uint8_t> event(32);
    for (uint64_t i = 0; i < 200000; ++i) {
      event[0] = static_cast<uint8_t>(i);
      event[8] = static_cast<uint8_t>(i >> 8);
      ASSERT_TRUE(writer->WriteEncoded(event));
      if (i % 50000 == 7) {
        ASSERT_TRUE(writer->Flush());
      }
    }
    ASSERT_TRUE(writer->Close());
  };
  write_log(dir_.File("normal.trc"), false);
  write_log(dir_.File("direct.trc"), true);
  const auto normal = FileBytes(dir_.File("normal.trc"));
  EXPECT_EQ(normal.size(), 4 + 200000u * 32);
  EXPECT_EQ(FileBytes(dir_.File("direct.trc")), normal);
}

}  // namespace
}  // namespace rastrace::event
