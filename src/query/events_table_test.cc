// The events virtual table's lookups (id and ts constraints, order) give what a plain scan gives.
#include <gtest/gtest.h>

#include "query/query_test_util.h"

namespace rastrace::query::testing {
namespace {

class EventsTable : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenLogs(WriteLogs(dir_, {"kernel"}), "");
    ASSERT_TRUE(db_);
  }
  // The same question answered through the virtual table's constraints and by a scan that
  // cannot use them (`+id` is an expression, not the column).
  void ExpectSameAsScan(const std::string& where) {
    const std::string fast = Query(*db_, "SELECT id, ts, hook FROM events WHERE " + where);
    std::string slow_where = where;
    for (const char* column : {"id", "ts"}) {
      for (size_t at = 0; (at = slow_where.find(column, at)) != std::string::npos; at += 3) {
        slow_where.insert(at, "+");
      }
    }
    const std::string slow = Query(*db_, "SELECT id, ts, hook FROM events WHERE " + slow_where);
    EXPECT_EQ(fast, slow) << where;
    EXPECT_EQ(fast.find("ERROR"), std::string::npos) << fast;
  }
  event::testing::TempDir dir_;
  std::unique_ptr<TraceDatabase> db_;
};

TEST_F(EventsTable, IdAndTimeConstraintsMatchAScan) {
  for (const char* where : {"id = 5",
                            "id = 0",
                            "id = 999",
                            "id > 10",
                            "id >= 10 AND id < 14",
                            "id <= 3",
                            "id < -5",
                            "id > 2.5",
                            "id = 3.0",
                            "id = 3.5",
                            "id = NULL",
                            "id > 'x'",
                            "id BETWEEN 4 AND 6",
                            "ts >= 100000",
                            "ts > 100000 AND ts <= 600000",
                            "ts = 700000",
                            "ts < 0",
                            "ts > 1e30",
                            "ts >= 1.5e5 AND id < 20",
                            "id IN (1, 3, 31, 32)"}) {
    ExpectSameAsScan(where);
  }
}

TEST_F(EventsTable, RowsComeInIdOrderAndJoinsLookUpById) {
  EXPECT_EQ(Query(*db_, "SELECT count(*) FROM events e1 JOIN events e2 ON e2.id = e1.id + 1"),
            "count(*)\n30\n");
  EXPECT_EQ(Query(*db_,
                  "SELECT group_concat(id) FROM (SELECT id FROM events WHERE id < 6 "
                  "ORDER BY id)"),
            "group_concat(id)\n\"1,2,3,4,5\"\n");
  EXPECT_EQ(Query(*db_, "SELECT max(id) FROM events"), "max(id)\n31\n");
}

TEST_F(EventsTable, ColumnsDecodeEachLayout) {
  event::testing::TempDir dir;
  auto db = OpenLogs(WriteLogs(dir, {"aix32be"}), "");
  ASSERT_TRUE(db);
  // 32-bit big-endian: hook ids are 12-bit ids shifted, the hook data is the subhook (a generic
  // event has none: its hook data is the buffer's length), a generic event's buffer is its bytes.
  EXPECT_EQ(Query(*db,
                  "SELECT template, subhook, tid, w1, w5, data_word, hex(buffer) FROM events "
                  "WHERE hook IN (0x110, 0x120, 0x140)"),
            "template,subhook,tid,w1,w5,data_word,hex(buffer)\n"
            "011,5,77,9,,,\n"
            "012,0,77,1,5,,\n"
            "014,0,78,,,7,6162\n");
}

}  // namespace
}  // namespace rastrace::query::testing
