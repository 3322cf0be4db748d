#include "report/options.h"

#include <gtest/gtest.h>

#include <vector>

namespace rastrace::report {
namespace {

Result<ReportOptions> Parse(std::vector<std::string_view> args) {
  return ParseReportOptions(args);
}

TEST(Options, DefaultsAreAixDefaults) {
  auto r = Parse({"log"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->layout.ids);
  EXPECT_FALSE(r->layout.exec);
  EXPECT_FALSE(r->layout.pid);
  EXPECT_FALSE(r->layout.tid);
  EXPECT_FALSE(r->layout.svc);
  EXPECT_FALSE(r->layout.cpuid);
  EXPECT_EQ(r->layout.timestamp, TimestampStyle::kElapsedAndDeltaMsec);
  EXPECT_EQ(r->layout.pagesize, 0u);
  EXPECT_EQ(r->jobs, 1u);
  EXPECT_EQ(r->logs, std::vector<std::string>{"log"});
}

TEST(Options, DashOListIsCaseInsensitiveAndKnowsFalseWords) {
  auto r = Parse({"-O", "EXEC=on,Pid=YES,tid=1,ids=off,svc=no,cpuid=0,2line=on", "log"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->layout.exec);
  EXPECT_TRUE(r->layout.pid);
  EXPECT_TRUE(r->layout.tid);
  EXPECT_FALSE(r->layout.ids);
  EXPECT_FALSE(r->layout.svc);
  EXPECT_FALSE(r->layout.cpuid);
  EXPECT_TRUE(r->layout.two_line);
}

TEST(Options, TimestampPagesizeAndTimes) {
  auto r = Parse({"-Otimestamp=2,pagesize=20,starttime=1.5,endtime=3", "log"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->layout.timestamp, TimestampStyle::kElapsedAndDeltaUsec);
  EXPECT_EQ(r->layout.pagesize, 20u);
  EXPECT_EQ(*r->start_elapsed_ns, 1'500'000'000);
  EXPECT_EQ(*r->end_elapsed_ns, 3'000'000'000);
}

TEST(Options, BadDashOValuesAreErrors) {
  EXPECT_FALSE(Parse({"-O", "timestamp=4"}).ok());
  EXPECT_FALSE(Parse({"-O", "exec=maybe"}).ok());
  EXPECT_FALSE(Parse({"-O", "colour=on"}).ok());
  EXPECT_FALSE(Parse({"-O", "pagesize=x"}).ok());
  EXPECT_FALSE(Parse({"-O", "starttime=abc"}).ok());
  auto r = Parse({"-O", "exec=maybe"});
  EXPECT_NE(r.error().message.find("maybe"), std::string::npos);
}

TEST(Options, FlagsClusterAndTakeValuesAttachedOrSeparate) {
  auto r = Parse({"-hv", "-d010,011", "-k", "02", "-ofile.txt", "-t", "fmt", "-T", "7,8", "-p",
                  "12,prog", "a.log", "b.log"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->no_header);
  EXPECT_TRUE(r->verbose);
  EXPECT_TRUE(r->include_ids.Contains(0x0100));
  EXPECT_TRUE(r->include_ids.Contains(0x0110));
  EXPECT_TRUE(r->exclude_ids.Contains(0x02F0));
  EXPECT_EQ(r->output_file, "file.txt");
  EXPECT_EQ(r->template_paths, std::vector<std::string>{"fmt"});
  EXPECT_EQ(r->tids, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(r->pids, std::vector<uint64_t>{12});
  EXPECT_EQ(r->process_names, std::vector<std::string>{"prog"});
  EXPECT_EQ(r->logs.size(), 2u);
}

TEST(Options, PlainFlags) {
  auto r = Parse({"-c", "-j", "-r", "-q", "-x", "-n", "unix"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->check_templates);
  EXPECT_TRUE(r->list_ids);
  EXPECT_TRUE(r->raw);
  EXPECT_TRUE(r->quiet);
  EXPECT_TRUE(r->layout.full_exec_path);
  EXPECT_TRUE(r->layout.exec);
  EXPECT_EQ(r->name_list, "unix");
}

TEST(Options, Jobs) {
  auto r = Parse({"--jobs", "4", "log"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs, 4u);
  r = Parse({"--jobs=2"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs, 2u);
  EXPECT_FALSE(Parse({"--jobs", "0"}).ok());
  EXPECT_FALSE(Parse({"--jobs"}).ok());
}

TEST(Options, UnknownAndIncompleteFlagsAreErrors) {
  EXPECT_FALSE(Parse({"-Z"}).ok());
  EXPECT_FALSE(Parse({"--frobnicate"}).ok());
  auto r = Parse({"-d"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("-d"), std::string::npos);
}

TEST(Options, DashAloneIsStandardInput) {
  auto r = Parse({"-"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logs, std::vector<std::string>{"-"});
}

TEST(Options, AixDatesAreGmt) {
  auto r = ParseAixDate("010100000070");  // Jan 1 1970 00:00:00
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 0);
  r = ParseAixDate("112108075026");  // Nov 21 2026 08:07:50
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1795248470);
  EXPECT_FALSE(ParseAixDate("13010000007").ok());
  EXPECT_FALSE(ParseAixDate("130100000070").ok());
}

TEST(Options, SecondsKeepNanoseconds) {
  EXPECT_EQ(*ParseSeconds("0.000000001"), 1);
  EXPECT_EQ(*ParseSeconds(".5"), 500'000'000);
  EXPECT_EQ(*ParseSeconds("2"), 2'000'000'000);
  EXPECT_FALSE(ParseSeconds("").ok());
  EXPECT_FALSE(ParseSeconds("-1").ok());
  EXPECT_FALSE(ParseSeconds("1.x").ok());
}

}  // namespace
}  // namespace rastrace::report
