#include "report/columns.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

TEST(Columns, DefaultHeaderIsIdAndTimestampZero) {
  LayoutOptions layout;
  EXPECT_EQ(ColumnHeader(layout),
            "ID     ELAPSED_SEC     DELTA_MSEC   APPL    SYSCALL KERNEL  INTERRUPT");
  EXPECT_EQ(PrefixWidth(layout), 4u + 32u);
}

TEST(Columns, EveryPieceInOrder) {
  LayoutOptions layout;
  layout.exec = layout.cpuid = layout.pid = layout.tid = layout.svc = true;
  layout.timestamp = TimestampStyle::kElapsedUsec;
  EXPECT_EQ(ColumnHeader(layout),
            "ID  PROCESS NAME   CPU PID      TID      I SYSTEM CALL     ELAPSED   "
            "APPL    SYSCALL KERNEL  INTERRUPT");
}

TEST(Columns, TimestampStylesTwoAndThree) {
  LayoutOptions layout;
  layout.ids = false;
  layout.timestamp = TimestampStyle::kElapsedAndDeltaUsec;
  EXPECT_EQ(ColumnHeader(layout),
            "   ELAPSED_SEC     DELTA_USEC   APPL    SYSCALL KERNEL  INTERRUPT");
  layout.timestamp = TimestampStyle::kNone;
  EXPECT_EQ(ColumnHeader(layout), "APPL    SYSCALL KERNEL  INTERRUPT");
  EXPECT_EQ(PrefixWidth(layout), 0u);
}

TEST(Columns, HookIdsPrintThreeDigitsForTwelveBitIds) {
  std::string out;
  AppendHookId(0x0100, out);
  AppendHookId(0x1234, out);
  AppendHookId(0x00A0, out);
  EXPECT_EQ(out, "010 1234 00A ");
}

TEST(Columns, TimeStyleZeroIsSecondsNanosAndMillisNanos) {
  std::string out;
  AppendTimeField(TimestampStyle::kElapsedAndDeltaMsec, 1'234'567'891, 2'500'001, true, out);
  EXPECT_EQ(out, "   1.234567891       2.500001   ");
  out.clear();
  AppendTimeField(TimestampStyle::kElapsedAndDeltaMsec, 0, 0, true, out);
  EXPECT_EQ(out, "   0.000000000       0.000000   ");
}

TEST(Columns, UntimestampedEventsGetAStar) {
  std::string out;
  AppendTimeField(TimestampStyle::kElapsedAndDeltaMsec, 5'000, 0, false, out);
  EXPECT_EQ(out, "   0.000005000*      0.000000   ");
  out.clear();
  AppendTimeField(TimestampStyle::kElapsedUsec, 5'000, 0, false, out);
  EXPECT_EQ(out, "   0.000005*  ");
  out.clear();
  AppendTimeField(TimestampStyle::kNone, 5'000, 0, false, out);
  EXPECT_EQ(out, "");
}

TEST(Columns, TimeStylesOneAndTwo) {
  std::string out;
  AppendTimeField(TimestampStyle::kElapsedUsec, 12'345'678'999, 0, true, out);
  EXPECT_EQ(out, "  12.345678   ");
  out.clear();
  AppendTimeField(TimestampStyle::kElapsedAndDeltaUsec, 1'000'000'000, 1'234'567, true, out);
  EXPECT_EQ(out, "   1.000000000           1234   ");
}

TEST(Columns, NegativeTimesKeepTheirSign) {
  std::string out;
  AppendTimeField(TimestampStyle::kElapsedAndDeltaMsec, 0, -1'500'000, true, out);
  EXPECT_EQ(out, "   0.000000000      -1.500000   ");
}

TEST(Columns, PrefixWidthsMatchTheHeader) {
  LayoutOptions layout;
  layout.exec = layout.cpuid = layout.pid = layout.tid = layout.svc = true;
  PrefixFields fields;
  fields.hook_id = 0x0100;
  fields.process_name = "a_very_long_process_name";
  fields.cpu = 1;
  fields.pid = 1234;
  fields.tid = 5678;
  std::string out;
  AppendPrefix(layout, fields, out);
  EXPECT_EQ(out.size(), PrefixWidth(layout));
  EXPECT_EQ(out.substr(0, 4 + 15 + 4 + 9 + 9 + 2 + 12),
            "010 a_very_long_pr 1   1234     5678                   ");
}

}  // namespace
}  // namespace rastrace::report
