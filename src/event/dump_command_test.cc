// End to end: `rastrace dump` on real files, through the installed command line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "event/command_run.h"
#include "event/test_util.h"

namespace rastrace::event {
namespace {

using testing::CommandRun;

class DumpCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    rastrace_ = testing::BuiltCommand("rastrace", why);
    if (rastrace_.empty()) GTEST_SKIP() << why;
  }

  static std::string Slurp(const std::string& path) { return testing::ReadTextFile(path); }

  CommandRun Rastrace(const std::string& args, const std::string& stdin_path = "/dev/null") {
    return testing::RunCommand(rastrace_ + " " + args, dir_, stdin_path);
  }

  std::string WriteLog(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::string path = dir_.File(name);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
    return path;
  }

  std::string rastrace_;
  testing::TempDir dir_;
};

constexpr const char* kTwoEvents =
    "8000000800100000 0000000000000005 00000000000004d2 000000000000162e "
    "0000000000200000 0000000000000007";

TEST_F(DumpCommandTest, DumpsEveryEvent) {
  std::string log = WriteLog("a.log", testing::Log(Layout::k64, ByteOrder::kLittle, kTwoEvents));
  CommandRun run = Rastrace("dump " + log);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out,
            "# 64-bit events, little-endian\n"
            "00000004  ID 0010 SUB 0000 T G- B- len 8  tid 1234 ts 5678  | 0000100008000080 "
            "0500000000000000 d204000000000000 2e16000000000000\n"
            "00000024  ID 0020 SUB 0000 T- G- B- len 0  tid 7 ts 0  | 0000200000000000 "
            "0700000000000000\n");
}

TEST_F(DumpCommandTest, ReadsStandardInput) {
  std::string log = WriteLog("a.log", testing::Log(Layout::k64, ByteOrder::kBig, kTwoEvents));
  CommandRun run = Rastrace("dump -", log);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("00000024  ID 0020 SUB 0000"), std::string::npos) << run.out;
}

TEST_F(DumpCommandTest, ReadsAPipeInPieces) {
  // Many events through a pipe: reads return partial windows and events straddle them.
  std::string notation;
  for (int i = 0; i < 20000; ++i) notation += "0000000812340000 0000000000000005 0000000000000007 ";
  std::string log = WriteLog("p.log", testing::Log(Layout::k64, ByteOrder::kBig, notation));
  std::string out = dir_.File("pipe.out");
  std::string command = "cat " + log + " | " + rastrace_ + " dump - >" + out;
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::string text = Slurp(out);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 20001);
  EXPECT_NE(text.find(fmt::format("{:08x}  ID 1234", 4 + 19999 * 24)), std::string::npos);
}

TEST_F(DumpCommandTest, ShowsReformattedEventsWithR) {
  std::string log =
      WriteLog("b.log", testing::Log(Layout::k64, ByteOrder::kBig,
                                     "2000000450000005 00000009 =00000000 0000000000000007"));
  CommandRun raw = Rastrace("dump " + log);
  EXPECT_EQ(raw.status, 0) << raw.err;
  EXPECT_NE(raw.out.find("ID 5000 SUB 0005 T- G- B len 4  tid 7 ts 0  | 2000000450000005"),
            std::string::npos)
      << raw.out;
  CommandRun shown = Rastrace("dump -R " + log);
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("ID 5000 SUB 0005 type 2 len 4  tid 7 ts 0  R  | 50020005 00000009"),
            std::string::npos)
      << shown.out;
}

TEST_F(DumpCommandTest, SeveralLogsAreNamedAndOneBadLogFailsTheRun) {
  std::string good =
      WriteLog("g.log", testing::Log(Layout::k32, ByteOrder::kBig, "00190000 00000007 00000009"));
  CommandRun run = Rastrace("dump " + good + " " + dir_.File("missing.log") + " " + good);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(
      run.out,
      "# " + good +
          "\n# 32-bit events, big-endian\n"
          "00000004  ID 0010 SUB 0000 type 9 len 0  tid 7 ts 9  | 00190000 00000007 00000009\n"
          "# " +
          dir_.File("missing.log") +
          "\n"
          "# " +
          good +
          "\n# 32-bit events, big-endian\n"
          "00000004  ID 0010 SUB 0000 type 9 len 0  tid 7 ts 9  | 00190000 00000007 00000009\n");
  EXPECT_NE(run.err.find("missing.log: cannot open"), std::string::npos) << run.err;
}

TEST_F(DumpCommandTest, TruncatedLogPrintsEarlierEventsThenFails) {
  auto bytes = testing::Log(Layout::k64, ByteOrder::kBig, kTwoEvents);
  bytes.resize(bytes.size() - 3);
  std::string log = WriteLog("t.log", bytes);
  CommandRun run = Rastrace("dump " + log);
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.out.find("00000004  ID 0010"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("00000024"), std::string::npos) << run.out;
  EXPECT_EQ(run.err,
            "rastrace dump: " + log + ": offset 0x24: truncated event (need 16 bytes, 13 left)\n");
}

TEST_F(DumpCommandTest, NotALogOrMissingFails) {
  std::string log = WriteLog("x.txt", {'h', 'e', 'l', 'l', 'o'});
  CommandRun run = Rastrace("dump " + log);
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find(log + ": not a trace log: first bytes 68 65 6c 6c"), std::string::npos)
      << run.err;
  run = Rastrace("dump " + dir_.File("missing.log"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("cannot open: No such file or directory"), std::string::npos) << run.err;
  run = Rastrace("dump");
  EXPECT_NE(run.status, 0);
}

}  // namespace
}  // namespace rastrace::event
