#include "query/shell.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "query/query_test_util.h"

namespace rastrace::query::testing {
namespace {

struct ShellRun {
  int status = 0;
  std::string out;
  std::string err;
};

ShellRun RunShell(TraceDatabase& db, const std::string& input, bool prompt) {
  char *out_data = nullptr, *err_data = nullptr;
  size_t out_size = 0, err_size = 0;
  std::FILE* out = open_memstream(&out_data, &out_size);
  std::FILE* err = open_memstream(&err_data, &err_size);
  std::FILE* in = fmemopen(const_cast<char*>(input.data()), input.size(), "r");
  ResultPrinter printer(out);
  Shell shell(db, printer, out, err, prompt);
  ShellRun run;
  run.status = shell.Run(in);
  std::fclose(in);
  std::fclose(out);
  std::fclose(err);
  run.out.assign(out_data, out_size);
  run.err.assign(err_data, err_size);
  std::free(out_data);
  std::free(err_data);
  return run;
}

class ShellTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenLogs(WriteLogs(dir_, {"kernel"}));
    ASSERT_TRUE(db_);
  }
  event::testing::TempDir dir_;
  std::unique_ptr<TraceDatabase> db_;
};

TEST_F(ShellTest, TablesListsWhatUsersQuery) {
  const ShellRun run = RunShell(*db_, ".tables\n", false);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out,
            "events  losses  processes  sched  schemas  slices  sources  syscalls  threads\n"
            "tracepoint_hits\n");
}

TEST_F(ShellTest, SchemaShowsTheDefinition) {
  const ShellRun run = RunShell(*db_, ".schema sched\n.schema nothing\n", false);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "CREATE VIRTUAL TABLE sched USING rastrace_sched;\n");
}

TEST_F(ShellTest, StatementsSpanLinesAndModesChangeTheOutput) {
  const ShellRun run = RunShell(*db_,
                                "SELECT name, ret\n  FROM syscalls\n WHERE dur > 50000\n"
                                " ORDER BY dur;\n"
                                ".mode csv\n"
                                "SELECT count(*) AS n FROM sched;\n"
                                ".headers off\n"
                                ".mode json\n"
                                "SELECT 1 AS one; -- a comment\n"
                                ".mode\n",
                                false);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out,
            "name    ret\n"
            "------  ---\n"
            "read     64\n"
            "openat   -2\n"
            "n\n2\n"
            "[\n{\"one\":1}\n]\n"
            "current output mode: json\n");
}

TEST_F(ShellTest, APromptShowsAndAnErrorDoesNotEndIt) {
  const ShellRun run = RunShell(*db_, "SELEC 1;\nSELECT\n2;\n.quit\nSELECT 3;\n", true);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "Error: near \"SELEC\": syntax error\n  SELEC 1\n  ^--- here\n");
  EXPECT_EQ(run.out, "rastrace> rastrace>      ...> 2\n-\n2\nrastrace> \n");
}

TEST_F(ShellTest, AScriptStopsAtItsFirstError) {
  const ShellRun run =
      RunShell(*db_, "SELECT 1 AS a;\nSELECT nosuch FROM syscalls;\nSELECT 2 AS b;\n", false);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out, "a\n-\n1\n");
  EXPECT_EQ(run.err,
            "Error: no such column: nosuch\n  SELECT nosuch FROM syscalls\n         ^--- here\n");
}

TEST_F(ShellTest, ALastStatementWithoutItsSemicolonRuns) {
  const ShellRun run = RunShell(*db_, "SELECT 7 AS x", false);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "x\n-\n7\n");
}

TEST_F(ShellTest, UnknownCommandsAndBadArgumentsSaySo) {
  const ShellRun run = RunShell(*db_, ".frobnicate\n", true);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "Error: unknown command .frobnicate (.help lists the commands)\n");
  EXPECT_EQ(RunShell(*db_, ".mode xml\n", false).err,
            "Error: unknown output format 'xml' (expected text, csv or json)\n");
  EXPECT_EQ(RunShell(*db_, ".headers maybe\n", false).err, "Error: .headers takes on or off\n");
  EXPECT_NE(RunShell(*db_, ".read /nonexistent/file.sql\n", false).err.find("cannot open"),
            std::string::npos);
}

TEST_F(ShellTest, ReadRunsAFileAndSaveWritesADatabase) {
  const std::string script = dir_.File("script.sql");
  { std::ofstream(script) << "SELECT count(*) AS calls FROM syscalls;\n"; }
  const std::string saved = dir_.File("saved.db");
  const ShellRun run = RunShell(*db_, ".read " + script + "\n.save " + saved + "\n", false);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "calls\n-----\n    6\n");
  EXPECT_TRUE(std::filesystem::is_regular_file(saved));
  EXPECT_EQ(std::filesystem::status(saved).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // Not over an existing file.
  EXPECT_NE(RunShell(*db_, ".save " + saved + "\n", false).err.find("exists"), std::string::npos);
}

}  // namespace
}  // namespace rastrace::query::testing
