// End to end: the real `rastrace export` and `rastrace merge` commands.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "event/command_run.h"
#include "event/format.h"
#include "event/log_builder.h"
#include "event/temp_dir.h"
#include "export/test_json.h"

namespace rastrace::exporter {
namespace {

using event::testing::LogBuilder;
using event::testing::TempDir;
using testing::ParseJson;
using testing::ReadFile;

using event::testing::CommandRun;

class ExportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    rastrace_ = event::testing::BuiltCommand("rastrace", why);
    if (rastrace_.empty()) GTEST_SKIP() << why;
  }

  CommandRun Run(const std::string& args, const std::string& input = "/dev/null") {
    return event::testing::RunCommand(fmt::format("'{}' {}", rastrace_, args), dir_, input);
  }

  static size_t CountLines(const std::string& text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  std::string rastrace_;
  TempDir dir_;
};

LogBuilder Log(uint64_t m, uint64_t d, uint16_t hook, std::initializer_list<uint64_t> ticks) {
  LogBuilder log;
  log.TimeConversion(m, d).Process(10, 1, 10, "/bin/prog");
  uint64_t word = 0;
  for (uint64_t t : ticks) log.Hook(hook, 0, {word++}, 10, t);
  return log;
}

TEST_F(ExportCli, ExportsEachFormatQuietlyWhenStderrIsNotATerminal) {
  EXPECT_TRUE(Log(1, 1, 0x1230, {100, 200, 300}).WriteTo(dir_.File("a.trc")).ok());
  for (const char* format : {"jsonl", "csv", "chrome"}) {
    SCOPED_TRACE(format);
    const auto run = Run(fmt::format("export --format {} --no-text '{}' -o '{}'", format,
                                     dir_.File("a.trc"), dir_.File(std::string("out.") + format)));
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
  }
  EXPECT_EQ(CountLines(ReadFile(dir_.File("out.jsonl"))), 5u);  // 25C, process, three hooks
  EXPECT_EQ(CountLines(ReadFile(dir_.File("out.csv"))), 6u);    // with the header
  const auto chrome = ParseJson(ReadFile(dir_.File("out.chrome")));
  EXPECT_EQ(chrome["traceEvents"].array().size(), 5u);  // 2 names, 3 instants
}

TEST_F(ExportCli, ReplacesAnExistingOutputOnlyWithForce) {
  EXPECT_TRUE(Log(1, 1, 0x1230, {100}).WriteTo(dir_.File("a.trc")).ok());
  { std::ofstream(dir_.File("kept.jsonl")) << "precious\n"; }
  const auto refused = Run(fmt::format("export -f jsonl --no-text '{}' -o '{}'", dir_.File("a.trc"),
                                       dir_.File("kept.jsonl")));
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err, "rastrace export: " + dir_.File("kept.jsonl") +
                             ": exists; use --force to replace it\n");
  EXPECT_EQ(ReadFile(dir_.File("kept.jsonl")), "precious\n");
  const auto forced = Run(fmt::format("export -f jsonl --no-text --force '{}' -o '{}'",
                                      dir_.File("a.trc"), dir_.File("kept.jsonl")));
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_EQ(CountLines(ReadFile(dir_.File("kept.jsonl"))), 3u);  // 25C, process, one hook
}

TEST_F(ExportCli, WritesToStandardOutput) {
  EXPECT_TRUE(Log(1, 1, 0x1230, {100}).WriteTo(dir_.File("a.trc")).ok());
  const auto run = Run(fmt::format("export -f csv --no-text '{}' -o -", dir_.File("a.trc")));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out.rfind("seq,source,", 0), 0u);
  EXPECT_EQ(CountLines(run.out), 4u);
}

TEST_F(ExportCli, ReadsALogFromStandardInput) {
  EXPECT_TRUE(Log(1, 1, 0x1230, {100, 200}).WriteTo(dir_.File("a.trc")).ok());
  const auto run = Run("export -f jsonl --no-text - -o -", dir_.File("a.trc"));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(CountLines(run.out), 4u);
}

TEST_F(ExportCli, BadInputGivesAClearErrorAndNonZeroExit) {
  const auto format =
      Run(fmt::format("export -f xml '{}' -o '{}'", dir_.File("a.trc"), dir_.File("x")));
  EXPECT_NE(format.status, 0);
  EXPECT_NE(format.err.find("unknown export format 'xml'"), std::string::npos) << format.err;

  EXPECT_TRUE(LogBuilder().WriteTo(dir_.File("ok.trc")).ok());
  std::ofstream(dir_.File("text.trc")) << "hello, world\n";
  const auto not_log =
      Run(fmt::format("export -f jsonl '{}' -o '{}'", dir_.File("text.trc"), dir_.File("x")));
  EXPECT_EQ(not_log.status, 1);
  EXPECT_NE(not_log.err.find("not a trace log"), std::string::npos) << not_log.err;

  const auto names =
      Run(fmt::format("merge '{}' -n a -n b -o '{}'", dir_.File("ok.trc"), dir_.File("m.trc")));
  EXPECT_EQ(names.status, 2);
  EXPECT_NE(names.err.find("2 names (-n) for 1 logs"), std::string::npos) << names.err;

  const auto missing =
      Run(fmt::format("export -f jsonl '{}' -o '{}'", dir_.File("none.trc"), dir_.File("x")));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("none.trc"), std::string::npos) << missing.err;
}

TEST_F(ExportCli, TruncatedLogIsExportedUpToTheLastWholeEventThenWarns) {
  auto bytes = Log(1, 1, 0x1230, {100, 200, 300}).bytes();
  bytes.resize(bytes.size() - 3);
  std::ofstream(dir_.File("cut.trc"), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const auto run = Run(fmt::format("export -f jsonl --no-text '{}' -o '{}'", dir_.File("cut.trc"),
                                   dir_.File("cut.jsonl")));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("warning"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("offset"), std::string::npos) << run.err;
  EXPECT_EQ(CountLines(ReadFile(dir_.File("cut.jsonl"))), 4u);
}

TEST_F(ExportCli, MergeInterleavesLogsWithDifferentClocksAndKeepsTheirNames) {
  // A: 1 tick = 1 us; B: 1 tick = 1/4 ns... so B's ticks are much larger for the same instants.
  EXPECT_TRUE(Log(1000, 1, 0x1230, {1, 3, 5}).WriteTo(dir_.File("a.trc")).ok());
  EXPECT_TRUE(Log(1, 4, 0x4560, {8000, 16000, 24000}).WriteTo(dir_.File("b.trc")).ok());
  const auto merge = Run(fmt::format("merge '{}' '{}' -n hostA -n hostB -o '{}'",
                                     dir_.File("a.trc"), dir_.File("b.trc"), dir_.File("m.trc")));
  ASSERT_EQ(merge.status, 0) << merge.err;
  EXPECT_EQ(merge.err, "");

  const auto again = Run(fmt::format("merge '{}' -o '{}'", dir_.File("a.trc"), dir_.File("m.trc")));
  EXPECT_NE(again.status, 0) << "replaced an existing log without --force";

  const auto run = Run(fmt::format("export -f jsonl --no-text '{}' -o '{}'", dir_.File("m.trc"),
                                   dir_.File("m.jsonl")));
  ASSERT_EQ(run.status, 0) << run.err;
  std::istringstream lines(ReadFile(dir_.File("m.jsonl")));
  std::vector<std::string> order;
  std::vector<uint64_t> times;
  for (std::string line; std::getline(lines, line);) {
    const auto row = ParseJson(line);
    if (row["hook"].str() == "00A0") continue;
    order.push_back(fmt::format("{}:{}", row["source"].str(), row["hook"].str()));
    times.push_back(row["time_ns"].u64());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"hostA:1230", "hostB:4560", "hostA:1230", "hostB:4560",
                                             "hostA:1230", "hostB:4560"}));
  EXPECT_EQ(times, (std::vector<uint64_t>{1000, 2000, 3000, 4000, 5000, 6000}));
}

// Two machines' pid 10: the merged log renumbers the second one's, so even a report that ignores
// the 00A/105 source events (trcrpt's one process table) shows two processes.
TEST_F(ExportCli, MergedLogKeepsEqualPidsOfTwoMachinesApartForTrcrpt) {
  const std::string trcrpt = std::filesystem::path(rastrace_).parent_path() / "trcrpt";
  if (!std::filesystem::exists(trcrpt)) GTEST_SKIP() << trcrpt << " was not built";
  LogBuilder a;
  a.TimeConversion(1, 1).Process(10, 1, 10, "/bin/alpha").Hook(0x1230, 0, {1}, 10, 100);
  LogBuilder b;
  b.TimeConversion(1, 1).Process(10, 1, 10, "/bin/beta").Hook(0x1230, 0, {2}, 10, 200);
  EXPECT_TRUE(a.WriteTo(dir_.File("a.trc")).ok());
  EXPECT_TRUE(b.WriteTo(dir_.File("b.trc")).ok());
  const auto merge = Run(fmt::format("merge '{}' '{}' -n hostA -n hostB -o '{}'",
                                     dir_.File("a.trc"), dir_.File("b.trc"), dir_.File("m.trc")));
  ASSERT_EQ(merge.status, 0) << merge.err;
  const std::string report = dir_.File("report.txt");
  const int raw = std::system(fmt::format("'{}' -m -h -O pid=on,exec=on -d 123 '{}' >'{}' 2>&1",
                                          trcrpt, dir_.File("m.trc"), report)
                                  .c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << ReadFile(report);
  std::istringstream lines(ReadFile(report));
  std::vector<std::string> processes;  // "name pid" of each hook 123 line
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string id, name, pid;
    fields >> id >> name >> pid;
    if (id == "123") processes.push_back(name + " " + pid);
  }
  EXPECT_EQ(processes, (std::vector<std::string>{"alpha 10", "beta 4194304"})) << ReadFile(report);
}

TEST_F(ExportCli, CtfExportReadsBackInBabeltrace2) {
  if (std::system("command -v babeltrace2 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "babeltrace2 is not installed (scripts/deps.sh installs it)";
  }
  EXPECT_TRUE(Log(1, 1, 0x1230, {100, 200, 300}).WriteTo(dir_.File("a.trc")).ok());
  const auto run =
      Run(fmt::format("export -f ctf '{}' -o '{}'", dir_.File("a.trc"), dir_.File("ctf")));
  ASSERT_EQ(run.status, 0) << run.err;
  const auto bt = std::system(fmt::format("babeltrace2 '{}' >'{}' 2>'{}'", dir_.File("ctf"),
                                          dir_.File("bt.out"), dir_.File("bt.err"))
                                  .c_str());
  EXPECT_EQ(bt, 0);
  EXPECT_EQ(ReadFile(dir_.File("bt.err")), "");
  EXPECT_EQ(CountLines(ReadFile(dir_.File("bt.out"))), 5u);
}

}  // namespace
}  // namespace rastrace::exporter
