#include "event/writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "common/small_tmpfs.h"
#include "common/wait_or_kill.h"
#include "event/encode.h"
#include "event/reader.h"
#include "event/test_util.h"

namespace rastrace::event {
namespace {

using testing::Hex;
using testing::TempDir;

std::vector<uint8_t> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

EventFields OneWord(uint64_t word) {
  EventFields f;
  f.hook_id = 0x1230;
  f.subhook = 1;
  f.words[0] = word;
  f.word_count = 1;
  f.thread_id = 9;
  return f;
}

TEST(WriterTest, WritesMagicAndEventsInTheChosenOrder) {
  TempDir dir;
  for (ByteOrder order : {ByteOrder::kBig, ByteOrder::kLittle}) {
    for (Layout layout : {Layout::k64, Layout::k32}) {
      std::string path =
          dir.File(fmt::format("o{}l{}.log", static_cast<int>(order), static_cast<int>(layout)));
      auto writer = LogWriter::Create(path, {.layout = layout, .byte_order = order});
      ASSERT_TRUE(writer.ok()) << writer.error().message;
      EXPECT_EQ(writer->layout(), layout);
      EXPECT_EQ(writer->byte_order(), order);
      ASSERT_TRUE(writer->Write(OneWord(5)).ok());
      std::vector<uint8_t> expected;
      EncodeMagic(layout, order, expected);
      ASSERT_TRUE(Encode(OneWord(5), layout, order, expected).ok());
      ASSERT_TRUE(writer->WriteEncoded(std::span(expected).subspan(4)).ok());
      EXPECT_EQ(writer->bytes_written(), 4 + 2 * (expected.size() - 4));
      ASSERT_TRUE(writer->Close().ok());
      std::vector<uint8_t> twice = expected;
      twice.insert(twice.end(), expected.begin() + 4, expected.end());
      EXPECT_EQ(Hex(FileBytes(path)), Hex(twice));
    }
  }
}

TEST(WriterTest, CreatesPrivateFilesAndRefusesToReplaceOne) {
  TempDir dir;
  std::string path = dir.File("t.log");
  {
    auto writer = LogWriter::Create(path);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
  }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 4);
  auto again = LogWriter::Create(path);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message.rfind(path + ": cannot create trace log: File exists", 0), 0u)
      << again.error().message;
}

TEST(WriterTest, OverwriteTruncatesAndKeepOldRenames) {
  TempDir dir;
  std::string path = dir.File("t.log");
  {
    auto writer = LogWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Write(OneWord(1)).ok());
  }
  size_t first = FileBytes(path).size();
  ASSERT_EQ(first, 4u + 24);
  {
    auto writer = LogWriter::Create(path, {.overwrite = true});
    ASSERT_TRUE(writer.ok()) << writer.error().message;
  }
  EXPECT_EQ(FileBytes(path).size(), 4u);
  {
    auto writer = LogWriter::Create(path);
    ASSERT_FALSE(writer.ok());
    writer = LogWriter::Create(path, {.keep_old = true});
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    ASSERT_TRUE(writer->Write(OneWord(1)).ok());
    ASSERT_TRUE(writer->Write(OneWord(2)).ok());
  }
  EXPECT_EQ(FileBytes(path + ".old").size(), 4u);
  EXPECT_EQ(FileBytes(path).size(), 4u + 48);
}

// Replacing a log makes a new file (issue 19 point 4): a hard link to another file at the log's
// path is replaced, the other file keeps its bytes.
TEST(WriterTest, OverwriteNeverWritesThroughAHardLink) {
  TempDir dir;
  const std::string other = dir.File("other");
  std::ofstream(other) << "keep";
  const std::string path = dir.File("t.log");
  ASSERT_EQ(::link(other.c_str(), path.c_str()), 0);
  {
    auto writer = LogWriter::Create(path, {.overwrite = true});
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    ASSERT_TRUE(writer->Write(OneWord(1)).ok());
  }
  EXPECT_EQ(FileBytes(other).size(), 4u);
  EXPECT_EQ(FileBytes(path).size(), 4u + 24);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(WriterTest, RefusesSymlinks) {
  TempDir dir;
  std::string target = dir.File("target");
  std::string link = dir.File("link.log");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto writer = LogWriter::Create(link, {.overwrite = true});
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.error().message.find(link + ": cannot create trace log"), std::string::npos);
  EXPECT_NE(::access(target.c_str(), F_OK), 0) << "the link target must not be created";
}

TEST(WriterTest, ReportsUnencodableEventsAndClosedWriters) {
  TempDir dir;
  std::string path = dir.File("t.log");
  auto writer = LogWriter::Create(path, {.layout = Layout::k32});
  ASSERT_TRUE(writer.ok());
  EventFields f = OneWord(1);
  f.hook_id = 0x1234;  // not a 12-bit id
  auto result = writer->Write(f);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("12-bit"), std::string::npos) << result.error().message;
  EXPECT_EQ(writer->bytes_written(), 4u);
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_FALSE(writer->Write(OneWord(1)).ok());
  EXPECT_TRUE(writer->Close().ok());
  EXPECT_EQ(FileBytes(path).size(), 4u);
}

TEST(WriterTest, WriteErrorsNameThePath) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full is not available";
  auto writer = LogWriter::Create("/dev/full", {.overwrite = true});
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  auto flushed = writer->Flush();
  ASSERT_FALSE(flushed.ok());
  EXPECT_EQ(flushed.error().message, "/dev/full: write error: No space left on device");
  EXPECT_FALSE(writer->Write(OneWord(1)).ok());
}

// What the full-disk tests below check, in the child that sees the small file system (or the
// small file size limit): `events` of 40 bytes each, far more than it holds, written with
// `options`; the writer's message gives `reason`. Returns a description of the first thing that
// is wrong, or nothing.
std::string CheckCutLog(const std::string& dir, WriterOptions options = {},
                        uint64_t kEvents = 20000,
                        const std::string& reason = "no space left on device") {
  constexpr uint64_t kReportedLost = 5;
  const std::string path = dir + "/t.log";
  options.overwrite = true;
  auto writer = LogWriter::Create(path, options);
  if (!writer) return writer.error().message;
  uint64_t refused = 0;
  for (uint64_t i = 1; i <= kEvents; ++i) {
    EventFields f = OneWord(i);
    f.words[1] = i;
    f.word_count = 2;  // 40 bytes: the events do not end where the file system's pages do
    f.timestamped = true;
    f.timestamp = i;
    if (!writer->Write(f)) ++refused;
  }
  if (!writer->cut()) return "the writer did not cut the log";
  if (refused == 0) return "no write was refused";
  // Events handed over encoded after the cut count too; a 006 counts the events it reports.
  std::vector<uint8_t> more;
  EventFields lost;
  lost.hook_id = kHookLost;
  lost.word_count = 2;
  lost.words[0] = kReportedLost;
  (void)Encode(lost, Layout::k64, NativeByteOrder(), more);
  if (writer->WriteEncoded(more)) return "a write after the cut succeeded";
  auto closed = writer->Close();
  if (closed) return "Close succeeded";
  // The log reads to its end: events 1..k, then the writer's 006 with the count of the rest.
  auto reader = LogReader::Open(path, {.reformat = false});
  if (!reader) return reader.error().message;
  Event e;
  uint64_t kept = 0;
  uint64_t count = 0;
  bool ended_with_006 = false;
  for (;;) {
    const ReadStatus status = reader->Next(e);
    if (status == ReadStatus::kEnd) break;
    if (status == ReadStatus::kError) return reader->error().message;
    if (ended_with_006) return "an event after the 006";
    if (e.hook_id == kHookLost) {
      ended_with_006 = true;
      count = e.words[0];
      if (e.timestamp != kept) return fmt::format("006 stamped {}, not {}", e.timestamp, kept);
    } else if (e.words[0] != ++kept) {
      return fmt::format("event {} holds {}", kept, e.words[0]);
    }
  }
  if (!ended_with_006) return "no 006 at the end";
  if (kept == 0 || kept + count != kEvents + kReportedLost) {
    return fmt::format("{} events kept + {} counted != {}", kept, count, kEvents + kReportedLost);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "no log";
  const std::string expected =
      fmt::format("{}: {} after {} bytes; {} events not written", path, reason, st.st_size, count);
  if (closed.error().message != expected) return closed.error().message + " != " + expected;
  if (CutLogLostCount(path) != count) return "CutLogLostCount does not find the count";
  return "";
}

// Issue 19 point 5: a log cut by a full disk ends with a whole event and a 006 event counting
// every event not written, and the error says how many.
TEST(WriterTest, AFullFileSystemCutsTheLogAtAWholeEventAndCountsTheRest) {
  const auto result = rastrace::testing::RunWithSmallTmpfs(64 << 10, [](const std::string& dir) {
    const std::string problem = CheckCutLog(dir);
    if (problem.empty()) return 0;
    std::fprintf(stderr, "%s\n", problem.c_str());
    return 1;
  });
  if (result.unavailable) GTEST_SKIP() << *result.unavailable;
  EXPECT_EQ(result.status, 0) << "(the child's stderr says what is wrong)";
}

// The same with O_DIRECT (the default of `rastrace record` on a disk): the write that fails is
// one of the direct path's chunks, written by its own threads while the writer goes on; the log
// is still cut at a whole event in the file, and the events of every chunk not written are
// counted. A file size limit (EFBIG) stands in for the full disk here; the end-to-end test in
// tests/reliability/full_disk_test.cc fills a real one.
TEST(WriterTest, AFileTooLargeForTheDirectPathCutsTheLogAtAWholeEventAndCountsTheRest) {
  TempDir dir;
  if (!testing::SupportsDirectIo(dir.path())) {
    GTEST_SKIP() << dir.path() << " is on a file system without O_DIRECT";
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // 1.5 MiB and 100 bytes: inside a chunk, and not where an event ends.
    struct rlimit limit {};
    ::signal(SIGXFSZ, SIG_IGN);
    if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    limit.rlim_cur = (size_t{3} << 19) + 100;
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    const std::string problem =
        CheckCutLog(dir.path(), {.direct_io = true}, 200000, "file too large");
    if (problem.empty()) ::_exit(0);
    std::fprintf(stderr, "%s\n", problem.c_str());
    ::_exit(1);
  }
  const auto status = WaitOrKill(child, std::chrono::minutes(1));
  ASSERT_TRUE(status) << "the child hung";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
      << "status " << *status << " (the child's stderr says what is wrong)";
}

TEST(WriterTest, OnlyACutLogHasACutCount) {
  TempDir dir;
  const std::string path = dir.File("t.log");
  auto writer = LogWriter::Create(path);
  ASSERT_TRUE(writer.ok());
  EventFields lost;
  lost.hook_id = kHookLost;
  lost.word_count = 2;
  lost.words[0] = 3;
  lost.words[1] = 77;  // a thread's 006 is not the writer's
  ASSERT_TRUE(writer->Write(lost).ok());
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_EQ(CutLogLostCount(path), std::nullopt);
  EXPECT_EQ(CutLogLostCount(dir.File("missing")), std::nullopt);
}

}  // namespace
}  // namespace rastrace::event
