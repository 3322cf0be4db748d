#include "schema/declarations.h"

#include <gtest/gtest.h>

#include <fstream>

#include "event/temp_dir.h"

namespace rastrace::schema {
namespace {

TEST(Declarations, EventNamesASchemaAndItsFields) {
  Declarations d;
  ASSERT_TRUE(ParseDeclaration("event 00A/0101 cpus total - ", "t", d));
  ASSERT_TRUE(ParseDeclaration("event 1234 request", "t", d));
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_EQ(d.events[0].hook_id, 0x00A0);
  EXPECT_EQ(d.events[0].subhook, 0x0101);
  EXPECT_EQ(d.events[0].name, "cpus");
  EXPECT_EQ(d.events[0].fields, (std::vector<std::string>{"total", "-"}));
  EXPECT_EQ(d.events[1].hook_id, 0x1234);
  EXPECT_FALSE(d.events[1].subhook);
  EXPECT_EQ(d.FindEvent(0x00A0, 0x0101), &d.events[0]);
  EXPECT_EQ(d.FindEvent(0x00A0, 0x0102), nullptr);
  EXPECT_EQ(d.FindEvent(0x1234, 7), &d.events[1]);
}

TEST(Declarations, SliceTakesIdsOrSchemaNames) {
  Declarations d;
  ASSERT_TRUE(ParseDeclaration(
      "slice request begin=request_start end=name:request_end scope=global key=id title=url",
      "t", d));
  ASSERT_TRUE(ParseDeclaration("slice svc begin=101 end=104/0002", "t", d));
  ASSERT_EQ(d.slices.size(), 2u);
  EXPECT_EQ(d.slices[0].begin.schema, "request_start");
  EXPECT_EQ(d.slices[0].end.schema, "request_end");
  EXPECT_TRUE(d.slices[0].global);
  EXPECT_EQ(d.slices[0].key, "id");
  EXPECT_EQ(d.slices[0].title, "url");
  EXPECT_EQ(d.slices[1].begin.hook_id, 0x1010);
  EXPECT_FALSE(d.slices[1].begin.subhook);
  EXPECT_EQ(d.slices[1].end.hook_id, 0x1040);
  EXPECT_EQ(d.slices[1].end.subhook, 2);
  EXPECT_FALSE(d.slices[1].global);
}

TEST(Declarations, CounterNeedsOnAndValue) {
  Declarations d;
  ASSERT_TRUE(ParseDeclaration("counter queue_depth on=0FF1/0003 value=depth", "t", d));
  EXPECT_EQ(d.counters.at(0).on.hook_id, 0x0FF1);
  EXPECT_EQ(d.counters.at(0).value, "depth");
  const auto missing = ParseDeclaration("counter q on=123", "file:7", d);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "file:7:17: a counter needs value=");
}

TEST(Declarations, ErrorsNameTheColumnAndWhatWasExpected) {
  Declarations d;
  auto bad = ParseDeclaration("slice x begin=101 end=10G4", "f:3", d);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "f:3:23: expected a hook id (3 or 4 hex digits, optionally /SUBHOOK) or a schema name, "
            "found '10G4'");
  bad = ParseDeclaration("slice x begin=101 end=104 scope=cpu", "f:3", d);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "f:3:33: scope is thread or global, not 'cpu'");
  bad = ParseDeclaration("slice x begin=101 end=104 colour=red", "f:3", d);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "f:3:27: unknown key 'colour' (expected one of begin, end, scope, key, title)");
  bad = ParseDeclaration("pair x", "f:3", d);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "f:3:1: unknown declaration 'pair' (expected event, slice or counter)");
  bad = ParseDeclaration("event 0A/1 Bad-Name", "f:3", d);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "f:3:7: expected a hook id (3 or 4 hex digits) with an optional /SUBHOOK, found '0A/1'");
  EXPECT_TRUE(d.slices.empty());
  EXPECT_TRUE(d.events.empty());
}

TEST(LoadDeclarations, ReadsCommentLinesOfATemplateFileWithFileLineAndColumn) {
  event::testing::TempDir dir;
  const std::string path = dir.File("trcfmt");
  {
    std::ofstream out(path);
    out << "# a comment\n"
           "#@event 123 my_event a b\n"
           "123 1.0 \"MINE\" W1 \\\n"
           "#@event 456 not_a_declaration\n"  // continues the template above
           "#@slice s begin=123\n"
           "#@counter c on=123 value=a\r\n";
  }
  Declarations d;
  std::vector<std::string> errors;
  ASSERT_TRUE(LoadDeclarations(path, d, errors));
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].name, "my_event");
  EXPECT_EQ(d.events[0].where, path + ":2");
  EXPECT_EQ(d.counters.size(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], path + ":5:20: a slice needs end=");
}

TEST(LoadDeclarations, ADirectoryOrAMissingFileIsAnError) {
  event::testing::TempDir dir;
  Declarations d;
  std::vector<std::string> errors;
  EXPECT_FALSE(LoadDeclarations(dir.path(), d, errors));
  EXPECT_FALSE(LoadDeclarations(dir.File("none"), d, errors));
}

}  // namespace
}  // namespace rastrace::schema
