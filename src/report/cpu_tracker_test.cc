#include "report/cpu_tracker.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

TEST(CpuTracker, ThreadsStartOnCpuZeroUntilTheirFirstMove) {
  CpuTracker cpus;
  EXPECT_FALSE(cpus.known());
  EXPECT_EQ(cpus.CpuOf(0, 10), 0u);
  cpus.Move(0, 10, 3);
  EXPECT_TRUE(cpus.known());
  EXPECT_EQ(cpus.CpuOf(0, 10), 3u);
  EXPECT_EQ(cpus.CpuOf(0, 11), 0u);
}

TEST(CpuTracker, FollowsEachThreadAcrossMoves) {
  CpuTracker cpus;
  EXPECT_EQ(cpus.CpuOf(0, 10), 0u);  // cached as unknown, then moved
  cpus.Move(0, 10, 1);
  cpus.Move(0, 11, 2);
  EXPECT_EQ(cpus.CpuOf(0, 10), 1u);
  EXPECT_EQ(cpus.CpuOf(0, 11), 2u);
  cpus.Move(0, 10, 2);
  EXPECT_EQ(cpus.CpuOf(0, 10), 2u);
  cpus.Move(0, 11, 1);
  EXPECT_EQ(cpus.CpuOf(0, 11), 1u);
  EXPECT_EQ(cpus.CpuOf(0, 10), 2u);
}

TEST(CpuTracker, SourcesHaveTheirOwnThreads) {
  CpuTracker cpus;
  cpus.Move(0, 10, 1);
  cpus.Move(uint64_t{1} << 32, 10, 5);
  EXPECT_EQ(cpus.CpuOf(0, 10), 1u);
  EXPECT_EQ(cpus.CpuOf(uint64_t{1} << 32, 10), 5u);
  EXPECT_EQ(cpus.CpuOf(1, 10), 0u);
}

TEST(CpuTracker, ActiveCpusRiseAndFallWithTheThreadsOnThem) {
  CpuTracker cpus;
  EXPECT_EQ(cpus.ActiveCpus(), 0u);
  cpus.Move(0, 10, 0);
  cpus.Move(0, 11, 1);
  cpus.Move(0, 12, 1);
  EXPECT_EQ(cpus.ActiveCpus(), 2u);
  cpus.Move(0, 12, 1);  // no change
  EXPECT_EQ(cpus.ActiveCpus(), 2u);
  cpus.Move(0, 11, 0);
  EXPECT_EQ(cpus.ActiveCpus(), 2u);  // thread 12 is still on CPU 1
  cpus.Move(0, 12, 0);
  EXPECT_EQ(cpus.ActiveCpus(), 1u);  // every thread left CPU 1
  cpus.Move(0, 10, 7);
  EXPECT_EQ(cpus.ActiveCpus(), 2u);
}

}  // namespace
}  // namespace rastrace::report
