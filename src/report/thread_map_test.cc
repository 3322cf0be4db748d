#include "report/thread_map.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

TEST(ThreadMap, GivesTheLastValueOfEachThreadInItsSpace) {
  ThreadMap map;
  uint32_t previous = 99;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Get(0, 5), 0u);
  EXPECT_EQ(map.Set(0, 5, 120, previous), ThreadMap::SetResult::kAdded);
  EXPECT_EQ(previous, 99u);
  EXPECT_EQ(map.Get(0, 5), 120u);  // the cached "unknown" of thread 5 was replaced
  EXPECT_EQ(map.Get(1, 5), 0u);    // another space: another thread
  EXPECT_EQ(map.Set(0, 5, 100, previous), ThreadMap::SetResult::kReplaced);
  EXPECT_EQ(previous, 120u);
  EXPECT_EQ(map.Get(0, 5), 100u);
  EXPECT_EQ(map.Get(0, 6), 0u);
}

TEST(ThreadMap, StopsFollowingNewThreadsWhenFull) {
  ThreadMap map;
  uint32_t previous = 0;
  for (uint64_t tid = 0; tid < ThreadMap::kMaxThreads; ++tid) {
    ASSERT_EQ(map.Set(0, tid, 1, previous), ThreadMap::SetResult::kAdded);
  }
  EXPECT_EQ(map.Set(0, ThreadMap::kMaxThreads, 1, previous), ThreadMap::SetResult::kFull);
  EXPECT_EQ(map.Get(0, ThreadMap::kMaxThreads), 0u);
  EXPECT_EQ(map.Set(0, 7, 2, previous), ThreadMap::SetResult::kReplaced);  // known threads go on
  EXPECT_EQ(map.Get(0, 7), 2u);
}

}  // namespace
}  // namespace rastrace::report
