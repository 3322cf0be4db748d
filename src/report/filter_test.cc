#include "report/filter.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

ReportOptions Options(std::vector<std::string_view> args) {
  auto r = ParseReportOptions(args);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : ReportOptions{};
}

FilterFacts Facts(uint16_t id, uint64_t pid, uint64_t tid, int64_t elapsed_ns) {
  FilterFacts f;
  f.hook_id = id;
  f.pid = pid;
  f.tid = tid;
  f.elapsed_ns = elapsed_ns;
  return f;
}

TEST(Filter, IncludeAndExcludeIds) {
  EventFilter filter(Options({"-d", "01", "-k", "012"}));
  EXPECT_TRUE(filter.Accepts(Facts(0x0100, 0, 0, 0)));
  EXPECT_FALSE(filter.Accepts(Facts(0x0120, 0, 0, 0)));
  EXPECT_FALSE(filter.Accepts(Facts(0x0200, 0, 0, 0)));
}

TEST(Filter, ProcessesByPidOrName) {
  EventFilter filter(Options({"-p", "7,prog"}));
  EXPECT_TRUE(filter.Accepts(Facts(0x0100, 7, 9, 0)));
  FilterFacts named = Facts(0x0100, 8, 9, 0);
  named.exec_path = "/usr/bin/prog";
  EXPECT_TRUE(filter.Accepts(named));
  named.exec_path = "/usr/bin/other";
  EXPECT_FALSE(filter.Accepts(named));
}

TEST(Filter, ThreadsAndElapsedWindow) {
  EventFilter filter(Options({"-T", "9", "-O", "starttime=1,endtime=2"}));
  EXPECT_FALSE(filter.Accepts(Facts(0x0100, 0, 9, 999'999'999)));
  EXPECT_TRUE(filter.Accepts(Facts(0x0100, 0, 9, 1'000'000'000)));
  EXPECT_TRUE(filter.Accepts(Facts(0x0100, 0, 9, 2'000'000'000)));
  EXPECT_FALSE(filter.Accepts(Facts(0x0100, 0, 9, 2'000'000'001)));
  EXPECT_FALSE(filter.Accepts(Facts(0x0100, 0, 8, 1'500'000'000)));
}

TEST(Filter, DatesNeedAHeaderStartTime) {
  EventFilter filter(Options({"-s", "010100010070"}));  // 60 s after the epoch
  FilterFacts f = Facts(0x0100, 0, 0, 0);
  EXPECT_FALSE(filter.Accepts(f));
  f.wall_seconds = 59;
  EXPECT_FALSE(filter.Accepts(f));
  f.wall_seconds = 60;
  EXPECT_TRUE(filter.Accepts(f));
}

}  // namespace
}  // namespace rastrace::report
