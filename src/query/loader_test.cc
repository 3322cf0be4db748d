#include "query/loader.h"

#include <gtest/gtest.h>

#include "query/query_test_util.h"

namespace rastrace::query::testing {
namespace {

Parts Loaded(TraceDatabase& db) {
  return db.loader().loaded();
}

bool Has(Parts parts, Part part) {
  return parts.test(static_cast<size_t>(part));
}

TEST(Loader, AStatementLoadsOnlyWhatItReads) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"kernel"}));
  ASSERT_TRUE(db);
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM syscalls"), "count(*)\n6\n");
  EXPECT_TRUE(Has(Loaded(*db), Part::kSyscalls));
  EXPECT_FALSE(Has(Loaded(*db), Part::kEvents));
  EXPECT_FALSE(Has(Loaded(*db), Part::kSched));

  EXPECT_EQ(Query(*db, "SELECT count(*) FROM events WHERE pid = 600"), "count(*)\n11\n");
  EXPECT_TRUE(Has(Loaded(*db), Part::kEvents));
  EXPECT_FALSE(Has(Loaded(*db), Part::kEventText)) << "no statement read the text";

  // Text loaded by a later pass lines up with the events of the first.
  EXPECT_EQ(Query(*db, "SELECT id, text FROM events WHERE hook = 0x1390"),
            "id,text\n21,FORK child pid= 602 parent pid= 600\n");
  EXPECT_TRUE(Has(Loaded(*db), Part::kEventText));
}

TEST(Loader, SelectStarReadsTheTextAndEveryColumnOfAView) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"aix64"}));
  ASSERT_TRUE(db);
  EXPECT_NE(Query(*db, "SELECT * FROM events LIMIT 1").find("TRACE ON channel 0"),
            std::string::npos);
  EXPECT_TRUE(Has(Loaded(*db), Part::kEventText));
}

TEST(Loader, ReadsThroughUserViewsCtesAndSubqueriesLoadTheirParts) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"kernel"}));
  ASSERT_TRUE(db);
  EXPECT_EQ(Query(*db,
                  "CREATE TEMP VIEW long AS SELECT name FROM syscalls WHERE dur > 50000; "
                  "WITH s AS (SELECT count(*) AS n FROM sched) "
                  "SELECT (SELECT n FROM s), (SELECT group_concat(name) FROM long)"),
            "(SELECT n FROM s),(SELECT group_concat(name) FROM long)\n2,\"read,openat\"\n");
  EXPECT_TRUE(Has(Loaded(*db), Part::kSyscalls));
  EXPECT_TRUE(Has(Loaded(*db), Part::kSched));
  EXPECT_FALSE(Has(Loaded(*db), Part::kSlices));
}

TEST(Loader, ADamagedLogLoadsWhatCameBeforeTheDamageAndSaysWhere) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"damaged"}));
  ASSERT_TRUE(db);
  EXPECT_EQ(Query(*db, "SELECT count(*), max(offset) FROM events"),
            "count(*),max(offset)\n19,860\n");
  EXPECT_EQ(Query(*db, "SELECT events, damaged_offset, error LIKE '%offset 0x37c%' FROM sources"),
            "events,damaged_offset,error LIKE '%offset 0x37c%'\n19,892,1\n");
  ASSERT_EQ(db->warnings().size(), 1u);
  EXPECT_NE(db->warnings()[0].message.find("offset 0x37c: truncated event"), std::string::npos)
      << db->warnings()[0].message;
}

TEST(Loader, SourcesOfAMergedLogKeepTheirOwnProcessesAndClocks) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"merged"}));
  ASSERT_TRUE(db);
  // Source 0 is the log itself (its events before the first 00A/105), then one per 00A/105.
  std::string sources = Query(*db, "SELECT id, name, node, machine, wall_offset FROM sources");
  sources.replace(sources.find(dir.File("merged.trc")), dir.File("merged.trc").size(), "{log}");
  EXPECT_EQ(sources,
            "id,name,node,machine,wall_offset\n"
            "0,{log},,,\n"
            "1,hostA,hostA,x86_64,1795248469999999900\n"
            "2,hostB,hostB,aarch64,1795252069999999750\n");
  EXPECT_EQ(Query(*db,
                  "SELECT e.source, e.w1, e.wall, p.exec FROM events e JOIN processes p "
                  "ON p.source = e.source AND p.pid = e.pid WHERE e.hook = 0x110 "
                  "ORDER BY e.id"),
            "source,w1,wall,exec\n"
            "1,1,1795248470000000100,/usr/bin/alpha\n"
            "2,2,1795252070000000050,/usr/bin/beta\n"
            "1,3,1795248470000000300,/usr/bin/alpha\n");
}

TEST(Loader, SeveralLogsOfEveryFamilyMergeInTimeOrder) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"aix64", "aix32be", "kernel"}));
  ASSERT_TRUE(db);
  EXPECT_EQ(Query(*db, "SELECT source, count(*) FROM events GROUP BY source"),
            "source,count(*)\n0,19\n1,7\n2,31\n");
  // ts counts from the first timestamp of all three: it never goes backwards here.
  EXPECT_EQ(Query(*db,
                  "SELECT count(*) FROM events a JOIN events b ON b.id = a.id + 1 "
                  "WHERE b.ts < a.ts"),
            "count(*)\n0\n");
}

TEST(Loader, AMissingLogFailsTheFirstStatement) {
  event::testing::TempDir dir;
  auto db = OpenLogs({dir.File("nothing.trc")});
  ASSERT_TRUE(db);
  const std::string result = Query(*db, "SELECT 1");
  EXPECT_NE(result.find("ERROR: "), std::string::npos) << result;
  EXPECT_NE(result.find("nothing.trc"), std::string::npos) << result;
}

}  // namespace
}  // namespace rastrace::query::testing
