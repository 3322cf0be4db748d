// End-to-end tests of the real trcupdate and trcrpt commands ($RASTRACE_BIN) that do not fit the
// report-comparing golden runner: trcupdate's file changes, and the default template file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/golden_logs.h"

namespace rastrace::report {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteText(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

struct CommandRun {
  int status = -1;
  std::string out, err;
};

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("RASTRACE_BIN");
    if (bin == nullptr) GTEST_SKIP() << "RASTRACE_BIN is not set (run through ctest)";
    bin_ = bin;
    dir_ = fs::temp_directory_path() /
           ("trcupdate_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    WriteText(File("trcfmt"),
              "# test templates\n"
              "010 1.0 \"START\"\n"
              "015 2.1 \"OLD LONG\" \\\n"
              "   W1 XW\n"
              "020 1.0 \"LAST\"\n");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string File(const std::string& name) const { return (dir_ / name).string(); }
  CommandRun Run(const std::string& tool, const std::string& args) const {
    std::string command = bin_ + "/" + tool + " " + args + " >" + File("stdout") + " 2>" +
                          File("stderr") + " </dev/null";
    int raw = std::system(command.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128, ReadText(File("stdout")),
            ReadText(File("stderr"))};
  }
  CommandRun Update(std::string_view update, const std::string& flags = "") {
    WriteText(File("update.trc"), update);
    return Run("trcupdate", flags + " -t " + File("trcfmt") + " " + File("update.trc"));
  }
  std::string bin_;
  fs::path dir_;
};

TEST_F(ToolsTest, TrcupdateAddsAndReplaces) {
  auto run = Update(
      "* /etc/trcfmt\n"
      "# a comment\n"
      "+012 1.0 \"ADDED\" W1 UW\n"
      "+ 015 2.2 \"NEW LONG\" \\\n"
      "   W1 UW\n");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(ReadText(File("trcfmt")),
            "# test templates\n"
            "010 1.0 \"START\"\n"
            "012 1.0 \"ADDED\" W1 UW\n"
            "015 2.2 \"NEW LONG\" \\\n"
            "   W1 UW\n"
            "020 1.0 \"LAST\"\n");
}

TEST_F(ToolsTest, TrcupdateRefusesAnOlderVersionUnlessOverridden) {
  std::string before = ReadText(File("trcfmt"));
  auto run = Update("* /etc/trcfmt\n+015 1.0 \"OLDER\"\n");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("version 2.1"), std::string::npos) << run.err;
  EXPECT_EQ(ReadText(File("trcfmt")), before);
  run = Update("* /etc/trcfmt\n+015 1.0 \"OLDER\"\n", "-o");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(ReadText(File("trcfmt")).find("015 1.0 \"OLDER\"\n020"), std::string::npos);
}

TEST_F(ToolsTest, TrcupdateDeletes) {
  auto run = Update("* /etc/trcfmt\n-015\n", "-v");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(ReadText(File("trcfmt")), "# test templates\n010 1.0 \"START\"\n020 1.0 \"LAST\"\n");
  EXPECT_NE(run.err.find("deleted template 015"), std::string::npos);
}

TEST_F(ToolsTest, TrcupdateNeedsTheTrcfmtFirstLine) {
  std::string before = ReadText(File("trcfmt"));
  auto run = Update("+012 1.0 \"ADDED\"\n");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("update.trc:1:1"), std::string::npos) << run.err;
  EXPECT_EQ(ReadText(File("trcfmt")), before);
}

TEST_F(ToolsTest, TrcupdateLeavesTheFileAloneOnATemplateSyntaxError) {
  std::string before = ReadText(File("trcfmt"));
  auto run = Update("* /etc/trcfmt\n+012 1.0 \"ADDED\"\n+013 1.0 \"BROKEN\" LOOP {\n");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("update.trc:3:"), std::string::npos) << run.err;
  EXPECT_EQ(ReadText(File("trcfmt")), before);
}

TEST_F(ToolsTest, TrcupdateFindsTheTrcExtension) {
  WriteText(File("pkg.trc"), "* /etc/trcfmt\n+012 1.0 \"ADDED\"\n");
  auto run = Run("trcupdate", "-t " + File("trcfmt") + " " + File("pkg"));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(ReadText(File("trcfmt")).find("012 1.0 \"ADDED\""), std::string::npos);
}

TEST_F(ToolsTest, TrcupdateExtractsAnUpdateFileThatAddsBack) {
  auto run = Run("trcupdate", "-t " + File("trcfmt") + " -x 015,020");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "* /etc/trcfmt\n+015 2.1 \"OLD LONG\" \\\n   W1 XW\n+020 1.0 \"LAST\"\n");
  // Feeding it back changes nothing (same versions replace themselves).
  std::string before = ReadText(File("trcfmt"));
  EXPECT_EQ(Update(run.out).status, 0);
  EXPECT_EQ(ReadText(File("trcfmt")), before);
}

TEST_F(ToolsTest, DefaultTemplateFileLoadsWithoutADiagnostic) {
  std::string templates = std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt";
  auto run = Run("trcrpt", "-c -t " + templates);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.err, "");
  // Every reserved template exists.
  run = Run("trcrpt", "-j -t " + templates);
  for (const char* id : {"001 ", "002 ", "003 ", "004 ", "005 ", "006 ", "007 ", "008 ", "00A "}) {
    EXPECT_NE(("\n" + run.out).find(std::string("\n") + id), std::string::npos) << id;
  }
}

TEST_F(ToolsTest, DefaultTemplateFileFormatsEveryRastraceEvent) {
  std::string templates = std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt";
  for (const char* name : {"rastrace_events", "example64le", "example32be"}) {
    ASSERT_TRUE(GoldenLog(name).WriteTo(File("log.trc")).ok());
    auto run = Run("trcrpt", "-t " + templates + " " + File("log.trc"));
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    EXPECT_EQ(run.out.find("***ERROR"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("utility subhook"), std::string::npos) << run.out;
  }
}

TEST_F(ToolsTest, DefaultTemplateSearchHonoursTheEnvironment) {
  auto run = Run("trcrpt", "-j");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("PROGRAM START"), std::string::npos);
  run = Run("trcrpt", "-j");
  std::string command = "RASTRACE_TEMPLATES=" + File("trcfmt") + " " + bin_ + "/trcrpt -j";
  EXPECT_EQ(std::system((command + " >" + File("env.out") + " 2>&1").c_str()), 0);
  EXPECT_EQ(ReadText(File("env.out")), "010 START\n015 OLD LONG\n020 LAST\n");
}

}  // namespace
}  // namespace rastrace::report
