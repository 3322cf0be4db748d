#include "session/trace_line.h"

#include <gtest/gtest.h>

namespace rastrace::session {
namespace {

TEST(TraceLine, ParsesALineWithTgid) {
  auto line = ParseTraceLine(
      "            bash-27796   (  27796) [003] .....  1986.794937: sys_enter: NR 33 (b, 1, 0)\n");
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->comm, "bash");
  EXPECT_EQ(line->tid, 27796u);
  EXPECT_EQ(line->tgid, 27796u);
  EXPECT_EQ(line->cpu, 3u);
  EXPECT_EQ(line->timestamp_ns, 1986794937000ull);
  EXPECT_EQ(line->event, "sys_enter");
  EXPECT_EQ(line->body, "NR 33 (b, 1, 0)");
}

TEST(TraceLine, TaskNamesMayHoldDashesAndBlanksAndTgidMayBeUnknown) {
  auto line = ParseTraceLine(
      " kworker/u8:1-my task-42 (-------) [000] d..2. 12.000000001: sched_switch: prev_comm=a");
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->comm, "kworker/u8:1-my task");
  EXPECT_EQ(line->tid, 42u);
  EXPECT_EQ(line->tgid, 0u);
  EXPECT_EQ(line->timestamp_ns, 12000000001ull);
}

TEST(TraceLine, WithoutTgidColumn) {
  auto line = ParseTraceLine("  ls-7 [001] ..... 5.5: sched_process_exit: comm=ls pid=7 prio=120");
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->tid, 7u);
  EXPECT_EQ(line->cpu, 1u);
  EXPECT_EQ(line->timestamp_ns, 5500000000ull);
  EXPECT_EQ(FieldValue(line->body, "pid"), "7");
  EXPECT_EQ(FieldValue(line->body, "prio"), "120");
  EXPECT_FALSE(FieldValue(line->body, "next_pid"));
}

TEST(TraceLine, RefusesWhatIsNotATraceLine) {
  for (const char* text :
       {"", "CPU:1 [LOST 12 EVENTS]", "# tracer: nop", "a-1 [0] x 1:", "a-b [000] ..... 1.0: e: x",
        "a-1 [000] ..... 1.0000000000: e: x", "a-1 [000] ..... x.1: e: x"}) {
    EXPECT_FALSE(ParseTraceLine(text)) << text;
  }
}

TEST(TraceLine, FieldValueMatchesWholeKeysOnly) {
  const std::string_view body = "prev_pid=5 next_pid=6 pid=7";
  EXPECT_EQ(FieldValue(body, "pid"), "7");
  EXPECT_EQ(FieldValue(body, "next_pid"), "6");
  EXPECT_EQ(ParseNumber("0x1f"), 31u);
  EXPECT_EQ(ParseNumber("1f", 16), 31u);
  EXPECT_FALSE(ParseNumber("12a"));
  EXPECT_FALSE(ParseNumber(""));
}

}  // namespace
}  // namespace rastrace::session
