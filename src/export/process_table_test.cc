#include "export/process_table.h"

#include <gtest/gtest.h>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"

namespace rastrace::exporter {
namespace {

ProcessTable TableOf(const event::testing::LogBuilder& log, int* changes = nullptr) {
  auto reader = event::LogReader::FromBytes(log.bytes(), "t", {.reformat = false});
  EXPECT_TRUE(reader.ok());
  ProcessTable table;
  event::Event e;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    if (table.Observe(e, reader->byte_order()) && changes != nullptr) ++*changes;
  }
  return table;
}

TEST(ExportProcessTable, ProcessExecAndThreadNameEventsFillTheTable) {
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    event::testing::LogBuilder log(event::Layout::k64, order);
    log.Process(100, 1, 100, "/usr/bin/app")
        .Process(100, 1, 101, "/usr/bin/app")
        .ThreadName(101, "worker")
        .Exec(100, "/usr/bin/app2")
        .Hook(0x1230, 0, {1}, 100, 5);
    int changes = 0;
    const ProcessTable table = TableOf(log, &changes);
    EXPECT_EQ(changes, 4);
    EXPECT_EQ(table.PidOf(101), 100u);
    EXPECT_EQ(table.PidOf(100), 100u);
    EXPECT_FALSE(table.PidOf(102).has_value());
    EXPECT_EQ(table.ExecPath(100), "/usr/bin/app2");
    EXPECT_EQ(table.ThreadName(101), "worker");
    EXPECT_EQ(table.ThreadName(100), "");
  }
}

TEST(ExportProcessTable, KernelForkAndExecEventsNameProcesses) {
  event::testing::LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  log.Process(10, 1, 10, "/bin/sh")
      .Hook(0x1390, 0, {11, 10}, 10, 5)                                   // FORK child 11 of 10
      .Generic(0x1340, 0, 11, std::string("\x07\x00/bin/ls", 9), 11, 6);  // EXEC
  int changes = 0;
  event::testing::LogBuilder forked(event::Layout::k64, ByteOrder::kLittle);
  forked.Process(10, 1, 10, "/bin/sh").Hook(0x1390, 0, {11, 10}, 10, 5);
  const ProcessTable before_exec = TableOf(forked);
  EXPECT_EQ(before_exec.ExecPath(11), "/bin/sh");
  EXPECT_EQ(before_exec.PidOf(11), 11u);
  const ProcessTable table = TableOf(log, &changes);
  EXPECT_EQ(changes, 3);
  EXPECT_EQ(table.ExecPath(11), "/bin/ls");
  EXPECT_EQ(table.ExecPath(10), "/bin/sh");
}

TEST(ExportProcessTable, DynamicTracepointHitsTellTheirThreadsPid) {
  event::testing::LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  log.Generic(0x00C0, 3, uint64_t{777} << 32 | 0x0012, "regs", 4242, 5);
  const ProcessTable table = TableOf(log);
  EXPECT_EQ(table.PidOf(4242), 777u);
}

TEST(ExportProcessTable, AThreadNameWithAPidPlacesTheThread) {
  event::testing::LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  // S2 "w" (little-endian length 1), then pid 4242 as 8 little-endian bytes.
  log.Generic(event::kHookUtil, event::kUtilThreadName, 4250,
              std::string("\x01\x00w\x92\x10\x00\x00\x00\x00\x00\x00", 11), 4250, -1);
  const ProcessTable table = TableOf(log);
  EXPECT_EQ(table.ThreadName(4250), "w");
  EXPECT_EQ(table.PidOf(4250), 4242u);
}

TEST(ExportProcessTable, MalformedEventsAreIgnored) {
  event::testing::LogBuilder log(event::Layout::k64, ByteOrder::kLittle);
  // A process event whose buffer is too short for ppid and tid, and a name whose length runs past
  // its buffer.
  log.Generic(event::kHookUtil, event::kUtilProcess, 100, "short", 0, -1)
      .Generic(event::kHookUtil, event::kUtilThreadName, 5, std::string("\x50\x00xy", 4), 0, -1);
  int changes = 0;
  const ProcessTable table = TableOf(log, &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_EQ(table.ThreadName(5), "");
  EXPECT_EQ(table.generation(), 0u);
}

}  // namespace
}  // namespace rastrace::exporter
