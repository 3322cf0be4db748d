#include "event/writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "event/encode.h"
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

}  // namespace
}  // namespace rastrace::event
