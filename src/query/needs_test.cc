#include "query/needs.h"

#include <gtest/gtest.h>

#include "query/trace_database.h"

namespace rastrace::query {
namespace {

class Needs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> diagnostics;
    auto db = TraceDatabase::Open({}, diagnostics);
    ASSERT_TRUE(db) << db.error().message;
    db_ = std::move(db).value();
  }
  Parts Of(const std::string& sql) {
    Parts parts;
    auto statement = PrepareRecordingParts(db_->db(), sql, parts);
    EXPECT_TRUE(statement) << sql << ": " << (statement ? "" : statement.error().message);
    return parts;
  }
  std::unique_ptr<TraceDatabase> db_;
};

TEST_F(Needs, EachTableNeedsItsPart) {
  using enum Part;
  EXPECT_EQ(Of("SELECT count(*) FROM events"), PartSet({kEvents}));
  EXPECT_EQ(Of("SELECT ts, hook, wall FROM events"), PartSet({kEvents}));
  EXPECT_EQ(Of("SELECT ts, schema FROM events"), PartSet({kEvents, kSchemaNames}));
  EXPECT_EQ(Of("SELECT count(*) FROM schemas"), PartSet({kEvents, kSchemaNames}));
  EXPECT_EQ(Of("SELECT text FROM events"), PartSet({kEvents, kEventText}));
  EXPECT_EQ(Of("SELECT * FROM events"), PartSet({kEvents, kEventText, kSchemaNames}));
  EXPECT_EQ(Of("SELECT e.* FROM events e"), PartSet({kEvents, kEventText, kSchemaNames}));
  EXPECT_EQ(Of("SELECT name FROM threads"), PartSet({kProcesses}));
  EXPECT_EQ(Of("SELECT * FROM processes"), PartSet({kProcesses}));
  EXPECT_EQ(Of("SELECT max(dur) FROM syscalls"), PartSet({kSyscalls}));
  EXPECT_EQ(Of("SELECT * FROM sched"), PartSet({kSched}));
  EXPECT_EQ(Of("SELECT name FROM slices"), PartSet({kSlices}));
  EXPECT_EQ(Of("SELECT data FROM tracepoint_hits"), PartSet({kTracepointHits}));
  EXPECT_EQ(Of("SELECT sum(count) FROM losses"), PartSet({kLosses}));
  EXPECT_EQ(Of("SELECT * FROM sources"), Parts());
  EXPECT_EQ(Of("SELECT 1"), Parts());
}

TEST_F(Needs, JoinsSubqueriesAndCtesNeedEveryTableTheyRead) {
  using enum Part;
  EXPECT_EQ(Of("SELECT s.name, e.text FROM syscalls s JOIN events e ON e.id = s.entry_event"),
            PartSet({kSyscalls, kEvents, kEventText}));
  EXPECT_EQ(Of("WITH x AS (SELECT prev_tid FROM sched) SELECT count(*) FROM x, losses"),
            PartSet({kSched, kLosses}));
  EXPECT_EQ(Of("SELECT (SELECT count(*) FROM slices) + 1"), PartSet({kSlices}));
}

TEST_F(Needs, AUserViewNeedsWhatItReads) {
  ASSERT_TRUE(db_->db().Exec("CREATE TEMP VIEW v AS SELECT text FROM events"));
  EXPECT_EQ(Of("SELECT count(*) FROM v"), PartSet({Part::kEvents, Part::kEventText}));
}

}  // namespace
}  // namespace rastrace::query
