#include "report/process_table.h"

#include <gtest/gtest.h>

#include "event/log_builder.h"
#include "event/reader.h"

namespace rastrace::report {
namespace {

using event::testing::LogBuilder;

// Feeds every event of `log` to `table`.
void Learn(const LogBuilder& log, ProcessTable& table) {
  auto reader = event::LogReader::FromBytes(log.bytes());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  event::Event e;
  uint64_t seq = 0;
  while (reader->Next(e) == event::ReadStatus::kEvent) table.Observe(e, log.order(), ++seq);
}

TEST(ProcessTable, LearnsProcessExecAndThreadNameInBothByteOrders) {
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    LogBuilder log(event::Layout::k64, order);
    log.Process(100, 1, 101, "/usr/bin/prog", 10)
        .Exec(200, "/bin/sh", 200, 20)
        .ThreadName(101, "worker", 30)
        .Exec(100, "/usr/bin/other", 100, 40);
    ProcessTable table;
    Learn(log, table);
    EXPECT_EQ(table.PidOfThread(101), 100u);
    EXPECT_EQ(table.PidOfThread(200), 200u);  // a main thread: tid == pid
    EXPECT_EQ(table.PidOfThread(999), 0u);
    EXPECT_EQ(table.PathOf(100), "/usr/bin/other");
    EXPECT_EQ(table.PathAt(100, 1), "/usr/bin/prog");
    EXPECT_EQ(table.PathAt(100, 4), "/usr/bin/other");
    EXPECT_EQ(table.PathAt(200, 1), "");
    EXPECT_EQ(table.ThreadName(101), "worker");
    EXPECT_EQ(table.ProcessName(200, 200), "sh");
    EXPECT_EQ(table.ProcessName(300, 101), "worker");
  }
}

TEST(ProcessTable, AThreadNameWithAPidPlacesTheThreadInItsProcess) {
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    LogBuilder log(event::Layout::k64, order);
    std::vector<uint8_t> buffer = log.S2("worker");
    buffer.resize(buffer.size() + 8);
    Store<uint64_t>(buffer.data() + buffer.size() - 8, 4242, order);
    log.Generic(event::kHookUtil, event::kUtilThreadName, 4250, buffer, 4250, 10)
        .ThreadName(4251, "no-pid", 20);  // the older form: name only
    ProcessTable table;
    Learn(log, table);
    EXPECT_EQ(table.PidOfThread(4250), 4242u);
    EXPECT_EQ(table.ThreadName(4250), "worker");
    EXPECT_EQ(table.PidOfThread(4251), 0u);
  }
}

TEST(ProcessTable, LearnsFromKernelExecAndFork) {
  LogBuilder log;
  log.Generic(event::kHookExec, 0, 300, log.S2("/usr/sbin/daemon"), 300, 10)
      .Hook(event::kHookFork, 0, {301, 300}, 300, 20)
      .Hook(event::kHookFork, 0, {401, 400}, 400, 30);  // unknown parent: nothing learned
  ProcessTable table;
  Learn(log, table);
  EXPECT_EQ(table.PathOf(300), "/usr/sbin/daemon");
  EXPECT_EQ(table.PathOf(301), "/usr/sbin/daemon");
  EXPECT_EQ(table.PathOf(401), "");
}

TEST(ProcessTable, LateInstallKeepsHistorySorted) {
  ProcessTable table;
  table.SetPath(5, "/a", 10);
  table.SetPath(5, "/c", 30);
  table.SetPath(5, "/b", 20);
  EXPECT_EQ(table.PathAt(5, 25), "/b");
  EXPECT_EQ(table.PathAt(5, 15), "/a");
}

TEST(ProcessTable, TruncatedStringsReadAsEmpty) {
  LogBuilder log;
  const std::vector<uint8_t> truncated = {5, 0, 'a', 'b'};
  const std::vector<uint8_t> whole = {2, 0, 'a', 'b'};
  log.Generic(event::kHookUtil, event::kUtilExec, 7, truncated, 7, 10)
      .Generic(event::kHookUtil, event::kUtilExec, 8, whole, 8, 20);
  ProcessTable table;
  Learn(log, table);
  EXPECT_EQ(table.PathOf(7), "");
  EXPECT_EQ(table.PidOfThread(7), 7u);  // the pid is still learned
  EXPECT_EQ(table.PathOf(8), "ab");
}

}  // namespace
}  // namespace rastrace::report
