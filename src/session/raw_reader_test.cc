#include "session/raw_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>

#include "event/temp_dir.h"
#include "session/raw_events.h"
#include "session/raw_test_pages.h"
#include "session/tracefs_golden.h"

namespace rastrace::session {
namespace {

using testing::GoldenFormat;
using testing::Record;
using testing::TracefsGolden;

// A page of the kernel's layout holding one record at `timestamp`.
std::vector<uint8_t> Page(uint64_t timestamp, const std::vector<uint8_t>& payload) {
  testing::PageBuilder builder(timestamp);
  builder.Data(0, payload);
  return builder.Finish();
}

// A tracefs of two cpus whose trace_pipe_raw files are FIFOs the test writes pages to.
class RawReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    const std::string events = dir_.File("events");
    for (const char* event : {"sched_process_fork", "sched_process_exec"}) {
      fs::create_directories(events + "/sched/" + event);
      std::ofstream(events + "/sched/" + event + "/format")
          << TracefsGolden(std::string(event) + ".format");
    }
    std::ofstream(events + "/header_page") << TracefsGolden("header_page");
    for (int cpu = 0; cpu < 2; ++cpu) {
      const std::string cpu_dir = dir_.File("instance/per_cpu/cpu" + std::to_string(cpu));
      fs::create_directories(cpu_dir);
      ASSERT_EQ(mkfifo((cpu_dir + "/trace_pipe_raw").c_str(), 0600), 0) << std::strerror(errno);
    }
    const std::vector<std::string> tracepoints = {"sched/sched_process_fork",
                                                  "sched/sched_process_exec"};
    auto reader = RawPipeReader::Open(dir_.path(), dir_.File("instance"), tracepoints, syscalls_);
    ASSERT_TRUE(reader) << reader.error().message;
    reader_ = std::move(*reader);
    for (int cpu = 0; cpu < 2; ++cpu) {
      const std::string pipe =
          dir_.File("instance/per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw");
      writers_[cpu] = open(pipe.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      ASSERT_GE(writers_[cpu], 0) << std::strerror(errno);
    }
    fork_ = GoldenFormat("sched_process_fork");
    exec_ = GoldenFormat("sched_process_exec");
    // The trace clock as the reader sees it before each cpu's read.
    reader_->SetClock(
        [this] {
          EXPECT_FALSE(clock_.empty());
          if (clock_.empty()) return uint64_t{0};
          const uint64_t now = clock_.front();
          clock_.pop_front();
          return now;
        },
        0);
  }
  void TearDown() override {
    for (int fd : writers_) {
      if (fd >= 0) close(fd);
    }
  }
  void Put(int cpu, uint64_t timestamp, const std::vector<uint8_t>& record) {
    const std::vector<uint8_t> page = Page(timestamp, record);
    ASSERT_EQ(write(writers_[cpu], page.data(), page.size()), static_cast<ssize_t>(page.size()));
  }
  std::function<void(const KernelEvent&)> Collect() {
    return [this](const KernelEvent& event) {
      const char* name = event.kind == KernelEventKind::kFork   ? "sched_process_fork"
                         : event.kind == KernelEventKind::kExec ? "sched_process_exec"
                                                                : "other";
      seen_.push_back(std::string(name) + "@" + std::to_string(event.timestamp));
    };
  }

  event::testing::TempDir dir_;
  SyscallTable syscalls_;
  std::unique_ptr<RawPipeReader> reader_;
  int writers_[2] = {-1, -1};
  RawFormat fork_, exec_;
  std::deque<uint64_t> clock_;
  std::vector<std::string> seen_;
};

// The flake of SessionE2E.TwoProcessesAndACommandInOneReport: cpu 0 was read before the parent's
// FORK was committed there, cpu 1 after the child's EXEC. Passed on as read, the FORK came after
// the EXEC in the kernel log, and the report named the child after its parent from then on.
TEST_F(RawReaderTest, AForkCommittedAfterItsCpuWasReadStillComesBeforeTheExec) {
  Put(1, 170, Record(exec_, 6, {{"pid", 6}, {"old_pid", 6}}, "/bin/session_hooker", "filename"));
  clock_ = {100, 200};  // cpu 0 read at 100, cpu 1 at 200
  EXPECT_TRUE(reader_->ReadAvailable(Collect()));
  EXPECT_TRUE(seen_.empty()) << seen_[0];
  Put(0, 150, Record(fork_, 5, {{"parent_pid", 5}, {"child_pid", 6}}));
  clock_ = {300, 310};
  EXPECT_TRUE(reader_->ReadAvailable(Collect()));
  EXPECT_EQ(seen_, (std::vector<std::string>{"sched_process_fork@150", "sched_process_exec@170"}));
}

TEST_F(RawReaderTest, WhatIsHeldBackAtTheEndIsFlushed) {
  Put(0, 50, Record(fork_, 5, {{"parent_pid", 5}, {"child_pid", 6}}));
  Put(1, 170, Record(exec_, 6, {{"pid", 6}, {"old_pid", 6}}, "/bin/true", "filename"));
  clock_ = {100, 200};
  EXPECT_TRUE(reader_->ReadAvailable(Collect()));
  EXPECT_EQ(seen_, (std::vector<std::string>{"sched_process_fork@50"}));
  reader_->Flush(Collect());
  EXPECT_EQ(seen_, (std::vector<std::string>{"sched_process_fork@50", "sched_process_exec@170"}));
}

// Pages are read in bulk: a round that finds many full pages on a cpu moves them with a few
// system calls (splice into a pipe, one read of it), not one read per page as before.
TEST_F(RawReaderTest, ManyPagesTakeAFewSystemCalls) {
  constexpr int kPages = 64;
  ASSERT_GE(fcntl(writers_[0], F_SETPIPE_SZ, kPages * 4096), kPages * 4096);
  for (int i = 0; i < kPages; ++i) {
    Put(0, 100 + i, Record(fork_, 5, {{"parent_pid", 5}, {"child_pid", 6 + i}}));
  }
  clock_ = {1000, 1000};
  const uint64_t before = reader_->read_calls();
  EXPECT_TRUE(reader_->ReadAvailable(Collect()));
  // cpu 0: splice, read of the pipe, splice (nothing more), read (nothing); cpu 1: splice, read.
  EXPECT_LE(reader_->read_calls() - before, 8u);
  reader_->Flush(Collect());
  ASSERT_EQ(seen_.size(), static_cast<size_t>(kPages));
  EXPECT_EQ(seen_.front(), "sched_process_fork@100");
  EXPECT_EQ(seen_.back(), "sched_process_fork@" + std::to_string(100 + kPages - 1));
}

}  // namespace
}  // namespace rastrace::session
