#include "event/process_events.h"

#include <gtest/gtest.h>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/test_util.h"

namespace rastrace::event {
namespace {

using testing::LogBuilder;

// The decoded process-table content of every event of `log`, nullopt for the others.
std::vector<std::optional<ProcessEvent>> DecodeAll(const LogBuilder& log,
                                                   testing::ReadAll& storage) {
  storage = testing::ReadLog(log.bytes());
  EXPECT_EQ(storage.status, ReadStatus::kEnd) << storage.error;
  std::vector<std::optional<ProcessEvent>> out;
  for (const auto& read : storage.events)
    out.push_back(DecodeProcessEvent(read.event, log.order()));
  return out;
}

TEST(ProcessEvents, DecodesEachKindInBothByteOrders) {
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    LogBuilder log(Layout::k64, order);
    std::vector<uint8_t> named = log.S2("worker");
    const auto pid = log.Word64(4242);
    named.insert(named.end(), pid.begin(), pid.end());
    log.Process(100, 1, 101, "/usr/bin/prog", 10)
        .Exec(200, "/bin/sh", 200, 20)
        .Generic(kHookUtil, kUtilThreadName, 4250, named, 4250, 30)
        .ThreadName(4251, "no-pid")
        .Generic(kHookExec, 0, 300, log.S2("/usr/sbin/daemon"), 300, 40)
        .Hook(kHookFork, 0, {301, 300}, 300, 50)
        .Hook(0x1230, 0, {1}, 7, 60);
    testing::ReadAll storage;
    const auto decoded = DecodeAll(log, storage);
    ASSERT_EQ(decoded.size(), 7u);

    ASSERT_TRUE(decoded[0]);
    EXPECT_EQ(decoded[0]->kind, ProcessEvent::Kind::kProcess);
    EXPECT_EQ(decoded[0]->pid, 100u);
    EXPECT_EQ(decoded[0]->parent, 1u);
    EXPECT_EQ(decoded[0]->tid, 101u);
    EXPECT_EQ(decoded[0]->text, "/usr/bin/prog");

    ASSERT_TRUE(decoded[1]);
    EXPECT_EQ(decoded[1]->kind, ProcessEvent::Kind::kExec);
    EXPECT_EQ(decoded[1]->pid, 200u);
    EXPECT_EQ(decoded[1]->text, "/bin/sh");

    ASSERT_TRUE(decoded[2]);
    EXPECT_EQ(decoded[2]->kind, ProcessEvent::Kind::kThreadName);
    EXPECT_EQ(decoded[2]->tid, 4250u);
    EXPECT_EQ(decoded[2]->text, "worker");
    EXPECT_EQ(decoded[2]->thread_pid, 4242u);

    ASSERT_TRUE(decoded[3]);
    EXPECT_EQ(decoded[3]->text, "no-pid");
    EXPECT_EQ(decoded[3]->thread_pid, 0u);  // the older form: name only

    ASSERT_TRUE(decoded[4]);
    EXPECT_EQ(decoded[4]->kind, ProcessEvent::Kind::kExec);
    EXPECT_EQ(decoded[4]->pid, 300u);
    EXPECT_EQ(decoded[4]->text, "/usr/sbin/daemon");

    ASSERT_TRUE(decoded[5]);
    EXPECT_EQ(decoded[5]->kind, ProcessEvent::Kind::kFork);
    EXPECT_EQ(decoded[5]->pid, 301u);
    EXPECT_EQ(decoded[5]->parent, 300u);

    EXPECT_FALSE(decoded[6]);
  }
}

TEST(ProcessEvents, MalformedBuffersAreNeverReadPast) {
  LogBuilder log;
  const std::vector<uint8_t> truncated = {5, 0, 'a', 'b'};
  const std::vector<uint8_t> short_ids(15, 0);
  // A name whose pid would run past the buffer: padded NULs count for where the pid starts.
  const std::vector<uint8_t> padded = {4, 0, 'w', 0, 0, 0, 1, 2, 3};
  log.Generic(kHookUtil, kUtilExec, 7, truncated, 7, 10)
      .Generic(kHookUtil, kUtilProcess, 8, short_ids, 8, 20)
      .Generic(kHookUtil, kUtilThreadName, 9, truncated, 9, 30)
      .Generic(kHookUtil, kUtilThreadName, 10, padded, 10, 40)
      .Hook(kHookFork, 0, {11}, 11, 50);
  testing::ReadAll storage;
  const auto decoded = DecodeAll(log, storage);
  ASSERT_EQ(decoded.size(), 5u);
  ASSERT_TRUE(decoded[0]);
  EXPECT_EQ(decoded[0]->pid, 7u);
  EXPECT_FALSE(decoded[0]->text);
  EXPECT_FALSE(decoded[1]);  // too short for ppid and tid
  ASSERT_TRUE(decoded[2]);
  EXPECT_FALSE(decoded[2]->text);
  EXPECT_EQ(decoded[2]->thread_pid, 0u);
  ASSERT_TRUE(decoded[3]);
  EXPECT_EQ(decoded[3]->text, "w");
  EXPECT_EQ(decoded[3]->thread_pid, 0u);
  EXPECT_FALSE(decoded[4]);  // a fork without its parent
}

}  // namespace
}  // namespace rastrace::event
