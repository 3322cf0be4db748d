// End to end: the real `rastrace sql` command (and Debian's sqlite3 reading what it saves).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "event/command_run.h"
#include "event/temp_dir.h"
#include "query/test_logs.h"

namespace rastrace::query::testing {
namespace {

using event::testing::CommandRun;
using event::testing::ReadTextFile;

class SqlCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    rastrace_ = event::testing::BuiltCommand("rastrace", why);
    if (rastrace_.empty()) GTEST_SKIP() << why;
    for (const char* name : {"kernel", "damaged", "aix64", "posix"}) {
      ASSERT_TRUE(TestLog(name).WriteTo(Log(name)));
    }
  }

  std::string Log(const std::string& name) const { return dir_.File(name + ".trc"); }

  // Runs `rastrace ARGS` with `input` on its standard input.
  CommandRun Run(const std::string& args, const std::string& input = "") {
    const std::string in = dir_.File("cmd.in");
    { std::ofstream(in) << input; }
    return event::testing::RunCommand(fmt::format("'{}' {}", rastrace_, args), dir_, in);
  }

  std::string rastrace_;
  event::testing::TempDir dir_;
};

TEST_F(SqlCli, AnswersAQuestionInEachFormat) {
  const std::string sql =
      "SELECT name, dur, tid FROM syscalls WHERE dur IS NOT NULL ORDER BY dur DESC LIMIT 2";
  auto run = Run(fmt::format("sql '{}' -q \"{}\"", Log("kernel"), sql));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out,
            "name       dur  tid\n"
            "------  ------  ---\n"
            "openat  200000  601\n"
            "read    100000  500\n");
  run = Run(fmt::format("sql '{}' --format csv -q \"{}\"", Log("kernel"), sql));
  EXPECT_EQ(run.out, "name,dur,tid\nopenat,200000,601\nread,100000,500\n");
  run = Run(fmt::format("sql '{}' --format json -q \"{}\"", Log("kernel"), sql));
  EXPECT_EQ(run.out,
            "[\n{\"name\":\"openat\",\"dur\":200000,\"tid\":601},\n"
            "{\"name\":\"read\",\"dur\":100000,\"tid\":500}\n]\n");
}

TEST_F(SqlCli, RunsAFileOfStatementsAndSqlFromAPipe) {
  {
    std::ofstream(dir_.File("q.sql")) << "-- how many\nSELECT count(*) AS n FROM sched;\n"
                                         "SELECT count(*) AS lost FROM losses;\n";
  }
  auto run = Run(fmt::format("sql '{}' --format csv -f '{}'", Log("kernel"), dir_.File("q.sql")));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "n\n2\nlost\n1\n");
  run =
      Run(fmt::format("sql '{}' --format csv", Log("kernel")), "SELECT count(*) AS n FROM sched;");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "n\n2\n");
}

TEST_F(SqlCli, BadSqlGivesSqlitesMessageAndExitsNonZero) {
  auto run = Run(fmt::format("sql '{}' -q 'SELEC * FROM events'", Log("kernel")));
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "rastrace sql: near \"SELEC\": syntax error\n  SELEC * FROM events\n  ^--- here\n");
  run = Run(fmt::format("sql '{}' -q 'SELECT nosuch FROM syscalls'", Log("kernel")));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("no such column: nosuch"), std::string::npos) << run.err;
}

TEST_F(SqlCli, ADamagedLogReportsTheOffsetAndAnswersWithWhatCameBefore) {
  const auto run =
      Run(fmt::format("sql '{}' --format csv -q 'SELECT count(*) FROM events'", Log("damaged")));
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out, "count(*)\n19\n");
  EXPECT_EQ(run.err, fmt::format("rastrace sql: warning: {}: offset 0x37c: truncated event (need "
                                 "32 bytes, 10 left)\n",
                                 Log("damaged")));
}

TEST_F(SqlCli, ReadsTheLogFromStandardInput) {
  auto run = Run("sql - --format csv -q 'SELECT name, count(*) FROM sources, events'",
                 ReadTextFile(Log("aix64")));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "name,count(*)\n-,19\n");
  run = Run("sql -", ReadTextFile(Log("aix64")));
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err,
            "rastrace sql: the log is read from standard input: give the SQL with -q or -f\n");
}

TEST_F(SqlCli, SavesADatabaseThatSqlite3Reads) {
  const std::string db = dir_.File("trace.db");
  auto run = Run(fmt::format("sql '{}' --save '{}'", Log("kernel"), db));
  EXPECT_EQ(run.status, 0) << run.err;
  struct stat st {};
  ASSERT_EQ(stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  run = Run(fmt::format("sql '{}' --save '{}'", Log("kernel"), db));
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, fmt::format("rastrace sql: {}: exists; use --force to replace it\n", db));
  run = Run(fmt::format("sql '{}' --save '{}' --force -q 'SELECT count(*) AS n FROM slices'",
                        Log("kernel"), db));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "n\n-\n7\n");
  if (std::system("command -v sqlite3 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "sqlite3 (Debian's CLI) is not installed";
  }
  const std::string out = dir_.File("sqlite3.out");
  ASSERT_EQ(std::system(fmt::format("sqlite3 -csv '{}' \"SELECT name, dur FROM syscalls ORDER BY "
                                    "dur DESC LIMIT 1; SELECT text FROM events WHERE id = 21\" "
                                    ">'{}' 2>&1",
                                    db, out)
                            .c_str()),
            0)
      << ReadTextFile(out);
  EXPECT_EQ(ReadTextFile(out), "openat,200000\n\"FORK child pid= 602 parent pid= 600\"\n");
}

TEST_F(SqlCli, RefusesBadCommandLines) {
  auto run = Run(fmt::format("sql '{}' --format xml -q 'SELECT 1'", Log("kernel")));
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "rastrace sql: unknown output format 'xml' (expected text, csv or json)\n");
  run = Run(fmt::format("sql '{}' -q 'SELECT 1' -f x.sql", Log("kernel")));
  EXPECT_EQ(run.status, 2);
  run = Run(fmt::format("sql '{}' -q 'SELECT 1'", dir_.File("q.sql")));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("q.sql"), std::string::npos) << run.err;
  run = Run(fmt::format("sql '{}' -q 'SELECT 1'", dir_.path()));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find(dir_.path()), std::string::npos) << run.err;
}

// Every file under `dir`, relative to it, in order.
std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.push_back(std::filesystem::relative(entry.path(), dir).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every -t counts, as in the other exports (it took only the first).
TEST_F(SqlCli, PartitionExportUsesEveryTemplateFile) {
  { std::ofstream(dir_.File("first.fmt")) << "010 1.0 \"FIRSTFILE\"\n"; }
  { std::ofstream(dir_.File("second.fmt")) << "011 1.0 \"SECONDFILE\"\n"; }
  const std::string fleet = dir_.File("fleet");
  auto run = Run(fmt::format("export --partition '{}' -f csv -t '{}' -t '{}' '{}'", fleet,
                             dir_.File("first.fmt"), dir_.File("second.fmt"), Log("aix64")));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string events =
      ReadTextFile(fleet + "/events/machine=node1/hour=2026-11-21T08/aix64.csv");
  EXPECT_NE(events.find(",FIRSTFILE"), std::string::npos) << events;
  EXPECT_NE(events.find(",SECONDFILE"), std::string::npos) << events;
}

// -t repeats, as in trcrpt and `rastrace export` (it took one value, a ':'-separated list).
TEST_F(SqlCli, EveryTemplateOptionCounts) {
  { std::ofstream(dir_.File("first.fmt")) << "010 1.0 \"FIRSTFILE\"\n"; }
  { std::ofstream(dir_.File("second.fmt")) << "011 1.0 \"SECONDFILE\"\n"; }
  auto run = Run(fmt::format(
      "sql -t '{}' -t '{}' '{}' --format csv -q \"SELECT DISTINCT text FROM events WHERE text "
      "LIKE '%FILE%' ORDER BY text\"",
      dir_.File("first.fmt"), dir_.File("second.fmt"), Log("aix64")));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "text\nFIRSTFILE\nSECONDFILE\n");
}

TEST_F(SqlCli, ExportsHivePartitionsThatSqlite3ImportsWithTheDocumentedTypes) {
  const std::string fleet = dir_.File("fleet");
  auto run = Run(fmt::format("export --partition '{}' -f csv '{}'", fleet, Log("kernel")));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string part = "machine=kernelbox/hour=2026-11-21T08/kernel.csv";
  std::vector<std::string> expected = {"schema.sql"};
  for (const char* table :
       {"events", "losses", "processes", "sched", "slices", "sources", "syscalls", "threads"}) {
    expected.push_back(fmt::format("{}/{}", table, part));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FilesUnder(fleet), expected);  // no tracepoint_hits in a kernel session
  // A second export of the same log does not mix its rows into the first's.
  run = Run(fmt::format("export --partition '{}' -f csv '{}'", fleet, Log("kernel")));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("exists; use --force"), std::string::npos) << run.err;
  // A log without a trace header: the machine given, the hour Hive's NULL partition; JSON Lines.
  run = Run(
      fmt::format("export --partition '{}' -f jsonl --machine 'db/1' '{}'", fleet, Log("posix")));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string jsonl =
      ReadTextFile(fleet + "/events/machine=db_1/hour=__HIVE_DEFAULT_PARTITION__/posix.jsonl");
  EXPECT_TRUE(jsonl.starts_with("{\"id\":1,\"ts\":0,\"wall\":null,")) << jsonl;

  if (std::system("command -v sqlite3 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "sqlite3 (Debian's CLI) is not installed";
  }
  const std::string script = dir_.File("import.sql");
  {
    std::ofstream(script) << fmt::format(
        ".read '{0}/schema.sql'\n"
        ".import --csv --skip 1 '{0}/syscalls/{1}' syscalls\n"
        ".import --csv --skip 1 '{0}/events/{1}' events\n"
        ".mode csv\n"
        "SELECT count(*), typeof(ts), typeof(dur), typeof(name), typeof(arg1), sum(dur) FROM "
        "syscalls WHERE dur != '';\n"
        "SELECT typeof(id), typeof(wall), typeof(template), typeof(hook), hook, typeof(buffer) "
        "FROM events WHERE id = 10;\n",
        fleet, part);
  }
  const std::string out = dir_.File("sqlite3.out");
  ASSERT_EQ(std::system(fmt::format("sqlite3 :memory: <'{}' >'{}' 2>&1", script, out).c_str()), 0)
      << ReadTextFile(out);
  const auto answer = Run(fmt::format(
      "sql '{}' --format csv -q \"SELECT count(*), sum(dur) FROM syscalls WHERE dur IS NOT NULL\"",
      Log("kernel")));
  const std::string counted = answer.out.substr(answer.out.find('\n') + 1);
  const std::string count = counted.substr(0, counted.find(','));
  const std::string sum = counted.substr(counted.find(',') + 1, counted.size() - count.size() - 2);
  EXPECT_EQ(ReadTextFile(out),
            fmt::format(
                "{},integer,integer,text,integer,{}\r\ninteger,integer,text,integer,4112,text\r\n",
                count, sum));
}

}  // namespace
}  // namespace rastrace::query::testing
