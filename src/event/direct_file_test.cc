#include "event/direct_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "event/test_util.h"
#include "event/writer.h"

namespace rastrace::event {
namespace {

// In one read: the tests read back up to 12 MiB ten times, and an istreambuf_iterator byte by
// byte made that a minute under ASan at -O0.
std::vector<uint8_t> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::vector<uint8_t> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

class DirectFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SupportsDirectIo(dir_.path())) {
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

std::vector<uint8_t> RandomBytes(std::mt19937& random, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (auto& b : bytes) b = static_cast<uint8_t>(random());
  return bytes;
}

// RLIMIT_FSIZE for as long as it lives, with SIGXFSZ ignored: a write past it fails with EFBIG
// (the test's stand-in for a full disk: no other way makes an O_DIRECT write fail on demand).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    if (::getrlimit(RLIMIT_FSIZE, &old_) != 0) return;
    struct rlimit limit = old_;
    limit.rlim_cur = bytes;
    set_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() {
    if (set_) (void)::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool set() const { return set_; }

 private:
  struct rlimit old_ {};
  sighandler_t old_handler_ = SIG_DFL;
  bool set_ = false;
};

// Appends of every size, with syncs between some of them: the file holds exactly what was
// appended after each sync, partial blocks and chunk boundaries included. With several writes in
// flight the chunks reach the file in any order, and still each lands at its own offset.
void AppendAndSyncEverySize(const std::string& path, int fd, DirectFileOptions options) {
  auto file = DirectFile::Open(fd, path, options);
  ASSERT_TRUE(file) << file.error().message;
  const size_t chunk = options.chunk_bytes;
  std::mt19937 random(7);
  std::vector<uint8_t> expected;
  const std::vector<size_t> sizes = {
      1, 4095, 4096,  4097,      8,     chunk - 5,        3, chunk * 2 + 100,
      0, 17,   65536, chunk * 5, chunk, chunk * 3 + 4096, 5};
  for (size_t step = 0; step < sizes.size(); ++step) {
    const auto bytes = RandomBytes(random, sizes[step]);
    ASSERT_TRUE((*file)->Append(bytes));
    expected.insert(expected.end(), bytes.begin(), bytes.end());
    if (step % 3 != 1) {
      ASSERT_TRUE((*file)->Sync());
      ASSERT_EQ(FileBytes(path), expected) << "after step " << step;
    }
  }
  ASSERT_TRUE((*file)->Close());
  EXPECT_EQ(FileBytes(path), expected);
}

TEST_F(DirectFileTest, FileHoldsEveryAppendedByteAfterEachSync) {
  AppendAndSyncEverySize(path_, fd_, DirectFileOptions{});
}

TEST_F(DirectFileTest, OneWriteInFlightKeepsEveryByte) {
  AppendAndSyncEverySize(path_, fd_, {.chunk_bytes = 64 << 10, .chunks = 4, .in_flight = 1});
}

TEST_F(DirectFileTest, ManyChunksInFlightEachLandAtTheirOffset) {
  // 64 KiB chunks, 7 of them written at once: many chunks overtake the ones before them.
  AppendAndSyncEverySize(path_, fd_, {.chunk_bytes = 64 << 10, .chunks = 8, .in_flight = 7});
}

// written_bytes() says how much of the file is written: it moves only over chunks whose write,
// and the writes of all chunks before them, completed (the flight recorder publishes checkpoints
// up to it), never past the chunk being filled until Sync writes that.
TEST_F(DirectFileTest, WrittenBytesFollowTheCompletedWritesInFileOrder) {
  const DirectFileOptions options{.chunk_bytes = 64 << 10, .chunks = 8, .in_flight = 7};
  std::mt19937 random(5);
  const auto bytes = RandomBytes(random, options.chunk_bytes * 37 + 1234);
  auto file = DirectFile::Open(fd_, path_, options);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ((*file)->written_bytes(), 0u);
  ASSERT_TRUE((*file)->Append(bytes));
  EXPECT_EQ((*file)->submitted_bytes(), options.chunk_bytes * 37);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  uint64_t seen = 0;
  while (seen < options.chunk_bytes * 37 && std::chrono::steady_clock::now() < deadline) {
    const uint64_t written = (*file)->written_bytes();
    if (written == seen) continue;
    ASSERT_EQ(written % options.chunk_bytes, 0u);
    ASSERT_LE(written, options.chunk_bytes * 37);
    const auto in_file = FileBytes(path_);
    ASSERT_GE(in_file.size(), written);
    ASSERT_TRUE(
        std::equal(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(written), in_file.begin()))
        << "written_bytes() " << written << " is ahead of the file";
    seen = written;
  }
  EXPECT_EQ(seen, options.chunk_bytes * 37);
  ASSERT_TRUE((*file)->Sync());
  EXPECT_EQ((*file)->written_bytes(), bytes.size());
  ASSERT_TRUE((*file)->Close());
}

// Close (and the destructor, which closes) with chunks still queued and being written: every
// byte is in the file afterwards.
TEST_F(DirectFileTest, CloseWaitsForTheWritesInFlight) {
  const DirectFileOptions options{.chunk_bytes = 64 << 10, .chunks = 8, .in_flight = 4};
  std::mt19937 random(11);
  const auto bytes = RandomBytes(random, options.chunk_bytes * 37 + 1234);
  {
    auto file = DirectFile::Open(fd_, path_, options);
    ASSERT_TRUE(file) << file.error().message;
    ASSERT_TRUE((*file)->Append(bytes));
    ASSERT_TRUE((*file)->Close());
  }
  EXPECT_EQ(FileBytes(path_), bytes);

  ASSERT_EQ(::ftruncate(fd_, 0), 0);
  {
    auto file = DirectFile::Open(fd_, path_, options);
    ASSERT_TRUE(file) << file.error().message;
    ASSERT_TRUE((*file)->Append(bytes));
  }
  EXPECT_EQ(FileBytes(path_), bytes);
}

// A write that fails (here: past RLIMIT_FSIZE, EFBIG) while others are in flight is reported by
// a later Append or by Sync, with the file's name, and every call after it fails too.
TEST_F(DirectFileTest, AFailedWriteSurfacesFromAppendOrSync) {
  const DirectFileOptions options{.chunk_bytes = 64 << 10, .chunks = 6, .in_flight = 3};
  auto file = DirectFile::Open(fd_, path_, options);
  ASSERT_TRUE(file) << file.error().message;
  std::mt19937 random(3);
  const auto bytes = RandomBytes(random, options.chunk_bytes);
  Result<void> result = Ok();
  {
    FileSizeLimit limit(options.chunk_bytes * 5 + 4096);  // in the middle of the sixth chunk
    ASSERT_TRUE(limit.set()) << std::strerror(errno);
    for (size_t appended = 0; appended < 40 && result; ++appended) {
      result = (*file)->Append(bytes);
    }
    if (result) result = (*file)->Sync();
  }

  ASSERT_FALSE(result) << "40 chunks appended past the limit without an error";
  EXPECT_NE(result.error().message.find(path_), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find(std::strerror(EFBIG)), std::string::npos)
      << result.error().message;
  EXPECT_FALSE((*file)->Append(bytes));
  EXPECT_FALSE((*file)->Sync());
  EXPECT_FALSE((*file)->Close());
  // Once Close has waited for the writes still in flight (the failure may be reported before an
  // earlier chunk's write completes), the chunks before the failed one are whole in the file.
  const auto written = FileBytes(path_);
  ASSERT_GE(written.size(), options.chunk_bytes * 5);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), written.begin() + i * bytes.size()))
        << "chunk " << i;
  }
}

// Issue 19 point 5: after a failure the writer learns the errno and exactly which appended bytes
// are in the file: the first `intact` of them, and every byte after those, from the chunks that
// failed or were never written, so that it can cut the file at a whole event and count the rest.
TEST_F(DirectFileTest, AFailureSaysWhichBytesReachedTheFile) {
  const DirectFileOptions options{.chunk_bytes = 64 << 10, .chunks = 6, .in_flight = 3};
  auto file = DirectFile::Open(fd_, path_, options);
  ASSERT_TRUE(file) << file.error().message;
  std::mt19937 random(9);
  std::vector<uint8_t> appended;
  Result<void> result = Ok();
  const size_t limit_bytes = options.chunk_bytes * 5 + 4096 + 100;
  {
    FileSizeLimit limit(limit_bytes);
    ASSERT_TRUE(limit.set()) << std::strerror(errno);
    // Appends of odd sizes, so that a failed Append has taken only part of its bytes.
    for (int i = 0; i < 60 && result; ++i) {
      const auto bytes = RandomBytes(random, 20000 + 777 * static_cast<size_t>(i));
      result = (*file)->Append(bytes);
      appended.insert(appended.end(), bytes.begin(), bytes.end());
    }
    ASSERT_FALSE(result) << "60 appends past the limit without an error";
    const DirectFile::Failure failure = (*file)->TakeFailure();
    EXPECT_EQ(failure.error_number, EFBIG);
    // The sixth chunk's write stops at the limit's last whole block (O_DIRECT) and the rest of
    // it at the limit itself (the ordinary descriptor); later chunks write nothing.
    EXPECT_EQ(failure.intact, limit_bytes);
    ASSERT_LE(failure.appended, appended.size());
    ASSERT_GT(failure.appended, failure.intact);
    ASSERT_EQ(failure.intact + failure.unwritten.size(), failure.appended);
    const auto in_file = FileBytes(path_);
    ASSERT_GE(in_file.size(), failure.intact);
    EXPECT_TRUE(std::equal(appended.begin(), appended.begin() + failure.intact, in_file.begin()))
        << "the file's first " << failure.intact << " bytes are not the appended ones";
    EXPECT_TRUE(std::equal(failure.unwritten.begin(), failure.unwritten.end(),
                           appended.begin() + failure.intact))
        << "the bytes reported unwritten are not the appended ones after the intact part";
  }
  EXPECT_FALSE((*file)->Close());
}

// The same when Sync's own write fails (its whole blocks with O_DIRECT, its last partial block
// through the ordinary descriptor): the bytes of the last successful Sync stay intact.
TEST_F(DirectFileTest, AFailedSyncSaysWhichBytesReachedTheFile) {
  auto file = DirectFile::Open(fd_, path_, DirectFileOptions{});
  ASSERT_TRUE(file) << file.error().message;
  std::mt19937 random(13);
  const auto first = RandomBytes(random, 3 * 4096 + 500);
  const auto second = RandomBytes(random, 5 * 4096 + 10);
  ASSERT_TRUE((*file)->Append(first));
  ASSERT_TRUE((*file)->Sync());
  FileSizeLimit limit(first.size() + 4096);
  ASSERT_TRUE(limit.set()) << std::strerror(errno);
  ASSERT_TRUE((*file)->Append(second));
  const auto synced = (*file)->Sync();
  ASSERT_FALSE(synced);
  EXPECT_NE(synced.error().message.find(std::strerror(EFBIG)), std::string::npos)
      << synced.error().message;
  const DirectFile::Failure failure = (*file)->TakeFailure();
  EXPECT_EQ(failure.error_number, EFBIG);
  EXPECT_GE(failure.intact, first.size());
  EXPECT_LE(failure.intact, first.size() + 4096);
  ASSERT_EQ(failure.appended, first.size() + second.size());
  ASSERT_EQ(failure.intact + failure.unwritten.size(), failure.appended);
  std::vector<uint8_t> appended = first;
  appended.insert(appended.end(), second.begin(), second.end());
  const auto in_file = FileBytes(path_);
  ASSERT_GE(in_file.size(), failure.intact);
  EXPECT_TRUE(std::equal(appended.begin(), appended.begin() + failure.intact, in_file.begin()));
  EXPECT_TRUE(std::equal(failure.unwritten.begin(), failure.unwritten.end(),
                         appended.begin() + failure.intact));
  EXPECT_FALSE((*file)->Append(second));
  EXPECT_FALSE((*file)->Close());
}

// A writer killed (SIGKILL: no handler, no Close) while chunks are in flight leaves a prefix of
// what it appended: never a gap of zeros before data written later, which a reader would take
// for events. Every 8-byte word written is its own index + 1, so a zero word is a gap.
TEST_F(DirectFileTest, AKilledWriterLeavesAPrefixOfTheLog) {
  const DirectFileOptions options{.chunk_bytes = 64 << 10, .chunks = 8, .in_flight = 7};
  std::mt19937 random(5);
  for (int round = 0; round < 6; ++round) {
    ASSERT_EQ(::ftruncate(fd_, 0), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto file = DirectFile::Open(fd_, path_, options);
      if (!file) ::_exit(2);
      std::vector<uint64_t> words(8192);
      for (uint64_t next = 1;;) {
        for (auto& word : words) word = next++;
        if (!(*file)->Append({reinterpret_cast<const uint8_t*>(words.data()), 8 * words.size()})) {
          ::_exit(3);
        }
      }
    }
    ::usleep(static_cast<useconds_t>(20000 + random() % 80000));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself: status " << status;
    const auto bytes = FileBytes(path_);
    ASSERT_EQ(bytes.size() % 8, 0u);
    for (size_t i = 0; i < bytes.size() / 8; ++i) {
      uint64_t word = 0;
      std::memcpy(&word, bytes.data() + 8 * i, 8);
      ASSERT_EQ(word, i + 1) << "round " << round << ", byte offset " << 8 * i << " of "
                             << bytes.size();
    }
  }
}

TEST_F(DirectFileTest, BadChunkOptionsAreRefused) {
  for (const DirectFileOptions options : {
           DirectFileOptions{.chunk_bytes = 1000, .chunks = 4, .in_flight = 1},
           DirectFileOptions{.chunk_bytes = 0, .chunks = 4, .in_flight = 1},
           DirectFileOptions{.chunk_bytes = 4096, .chunks = 1, .in_flight = 1},
           DirectFileOptions{.chunk_bytes = 4096, .chunks = 4, .in_flight = 0},
           DirectFileOptions{.chunk_bytes = 4096, .chunks = 4, .in_flight = 4},
       }) {
    auto file = DirectFile::Open(fd_, path_, options);
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message.find("bad O_DIRECT chunk options"), std::string::npos)
        << file.error().message;
  }
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
