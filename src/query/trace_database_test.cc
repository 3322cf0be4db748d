#include "query/trace_database.h"

#include <gtest/gtest.h>

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
