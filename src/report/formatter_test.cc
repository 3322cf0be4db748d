#include "report/formatter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "event/log_builder.h"
#include "event/reader.h"
#include "report/host_address.h"

namespace rastrace::report {
namespace {

using event::testing::LogBuilder;

// Formats the first event of `log` with `templates` the way a report does.
std::string FormatFirst(const LogBuilder& log, std::string_view templates,
                        const PreparedEvent& facts) {
  tmpl::TemplateSet set;
  std::vector<tmpl::Diagnostic> diagnostics;
  set.AddText(templates, "t.fmt", diagnostics);
  EXPECT_TRUE(diagnostics.empty());
  auto reader = event::LogReader::FromBytes(log.bytes());
  EXPECT_TRUE(reader.ok());
  event::Event e;
  EXPECT_EQ(reader->Next(e), event::ReadStatus::kEvent);
  TemplateIndex index(set);
  ProcessTable processes;
  WarningOnce warnings;
  Formatter formatter(set, index, processes, warnings, false);
  PreparedEvent prepared = facts;
  prepared.event = &e;
  prepared.byte_order = log.order();
  tmpl::EvalOutput out;
  formatter.Format(prepared, out);
  return out.text;
}

TEST(Formatter, GivesTheTemplateTheThreadAndReportFacts) {
  LogBuilder log;
  log.Hook(0x0100, 0, {}, 7, 10);
  PreparedEvent facts;
  facts.pid = 6;
  facts.tid = 7;
  facts.cpu = 3;
  facts.priority = 120;
  facts.total_cpus = 8;
  facts.traced_cpus = 4;
  facts.reported_cpus = 2;
  facts.line_no = 5;
  EXPECT_EQ(FormatFirst(log,
                        "010 1.0 $PID $TID $CPUID $PRI $TOTALCPUS $TRACEDCPUS $REPORTEDCPUS "
                        "$RELLINENO",
                        facts),
            "0006 0007 0003 0078 0008 0004 0002 0005");  // macros print as %04X (seed 002)
}

TEST(Formatter, IpAddressIsThisMachines) {
  LogBuilder log;
  log.Hook(0x0100, 0, {}, 7, 10);
  uint32_t a = LocalIpv4Address();
  // A 4-byte number, most significant byte first (192.168.0.1 is C0A80001), printed as every
  // macro is: %04X.
  EXPECT_EQ(FormatFirst(log, "010 1.0 $IPADDR", PreparedEvent{}), fmt::format("{:04X}", a));
}

}  // namespace
}  // namespace rastrace::report
