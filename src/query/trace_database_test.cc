#include "query/trace_database.h"

#include <gtest/gtest.h>

#include <fstream>

#include "query/query_test_util.h"

namespace rastrace::query::testing {
namespace {

// Every row of every table and view, as CSV: what a saved database must hold too.
std::string Everything(Database& db) {
  std::string all;
  for (const TableInfo& table : Tables()) {
    char* data = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    ResultPrinter printer(out, OutputMode::kCsv);
    auto statement = db.Prepare("SELECT * FROM " + std::string(table.name));
    EXPECT_TRUE(statement) << table.name << ": " << (statement ? "" : statement.error().message);
    if (statement) {
      EXPECT_TRUE(printer.Print(*statement)) << table.name;
    }
    std::fclose(out);
    all += std::string(table.name) + ":\n" + std::string(data, size);
    std::free(data);
  }
  return all;
}

TEST(Save, ASavedDatabaseHoldsEveryTableForAnyClient) {
  event::testing::TempDir dir;
  auto trace = OpenLogs(WriteLogs(dir, {"kernel", "dyntrace"}));
  ASSERT_TRUE(trace);
  const std::string path = dir.File("saved.db");
  ASSERT_TRUE(trace->Save(path, false));
  ASSERT_TRUE(trace->Ensure(AllParts()));
  const std::string live = Everything(trace->db());

  // A plain connection: none of rastrace's modules are registered on it.
  auto saved = Database::Open(path);
  ASSERT_TRUE(saved);
  EXPECT_EQ(Everything(*saved), live);
  EXPECT_NE(live.find("FORK child pid= 602"), std::string::npos) << "the text is saved too";
  // The typed tables too, as tables with their typed columns.
  const std::string typed =
      "SELECT * FROM syscall_entry_openat; "
      "SELECT name, type FROM pragma_table_info('syscall_entry_openat')";
  const std::string rows = Query(*trace, typed);
  EXPECT_NE(rows.find("filename,INTEGER"), std::string::npos) << rows;
  std::string saved_rows;
  for (const char* sql : {"SELECT * FROM syscall_entry_openat",
                          "SELECT name, type FROM pragma_table_info('syscall_entry_openat')"}) {
    auto statement = saved->Prepare(sql);
    ASSERT_TRUE(statement) << statement.error().message;
    char* data = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    ResultPrinter printer(out, OutputMode::kCsv);
    EXPECT_TRUE(printer.Print(*statement));
    EXPECT_TRUE(printer.Flush());
    std::fclose(out);
    saved_rows += std::string(data, size);
    std::free(data);
  }
  EXPECT_EQ(saved_rows, rows);
}

TEST(Save, AnExistingFileIsReplacedOnlyWithForce) {
  event::testing::TempDir dir;
  auto trace = OpenLogs(WriteLogs(dir, {"aix64"}));
  ASSERT_TRUE(trace);
  const std::string path = dir.File("saved.db");
  { std::ofstream(path) << "keep me"; }
  auto refused = trace->Save(path, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, path + ": exists; use --force to replace it");
  ASSERT_TRUE(trace->Save(path, true));
  auto saved = Database::Open(path);
  ASSERT_TRUE(saved);
  EXPECT_TRUE(saved->Exec("SELECT count(*) FROM events"));
}

// A schema whose name is one of our tables' gets "_event" after it, or "_event_2"... when that is
// taken too; one starting with sqlite_ gets "event_" before it. The first statement naming a typed
// table loads the events (and so makes the typed tables).
TEST(TypedTables, ANameTakenByOurTablesGetsASuffix) {
  event::testing::TempDir dir;
  const std::string templates = dir.File("names.trcfmt");
  std::ofstream(templates) << "011 1.0 \"sched event\" \"value\" W1 UW\n"
                              "012 1.0 \"SCHED\" \"a\" W1 UW\n"
                              "015 1.0 \"sqlite master\" \"value\" W1 UW\n";
  auto trace = OpenLogs(WriteLogs(dir, {"aix64"}), templates);
  ASSERT_TRUE(trace);
  EXPECT_EQ(Query(*trace, "SELECT count(*) FROM sched_event_2"), "count(*)\n2\n");
  EXPECT_EQ(Query(*trace, "SELECT name, table_name FROM schemas WHERE name LIKE 's%' ORDER BY id"),
            "name,table_name\nsched_event,sched_event\nsched,sched_event_2\n"
            "sqlite_master,event_sqlite_master\n");
  EXPECT_EQ(Query(*trace, "SELECT value FROM sched_event"), "value\n0\n1\n2\n");
}

TEST(TypedTables, EventsLoadedUnnamedAreNamedWhenTheirSchemasAreRead) {
  event::testing::TempDir dir;
  const std::vector<std::string> logs = WriteLogs(dir, {"kernel"});
  const std::string by_schema = "SELECT schema, count(*) FROM events GROUP BY 1 ORDER BY 1";
  auto named_at_once = OpenLogs(logs);
  ASSERT_TRUE(named_at_once);
  const std::string expected = Query(*named_at_once, by_schema);
  EXPECT_NE(expected.find("syscall_entry_"), std::string::npos) << expected;
  auto unnamed = OpenLogs(logs);
  ASSERT_TRUE(unnamed);
  EXPECT_NE(Query(*unnamed, "SELECT count(*) FROM events"), "count(*)\n0\n");
  EXPECT_EQ(unnamed->loader().loaded().test(static_cast<size_t>(Part::kSchemaNames)), false);
  EXPECT_EQ(Query(*unnamed, by_schema), expected);
  EXPECT_EQ(Query(*unnamed, "SELECT count(*) FROM schemas"),
            Query(*named_at_once, "SELECT count(*) FROM schemas"));
}

TEST(Run, BadSqlGivesSqlitesMessageAndWhere) {
  event::testing::TempDir dir;
  auto trace = OpenLogs(WriteLogs(dir, {"aix64"}));
  ASSERT_TRUE(trace);
  EXPECT_EQ(Query(*trace, "SELECT 1; SELECT count(*) FROM nowhere; SELECT 2"),
            "ERROR: no such table: nowhere");
  EXPECT_EQ(Query(*trace, "SELECT * FROM events WHERE"), "ERROR: incomplete input");
  // Statements that write work on the tables' copies the user makes.
  EXPECT_EQ(Query(*trace,
                  "CREATE TEMP TABLE t AS SELECT hook FROM events WHERE hook < 0x20; "
                  "SELECT count(*) FROM t"),
            "count(*)\n1\n");
}

}  // namespace
}  // namespace rastrace::query::testing
