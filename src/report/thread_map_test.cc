#include "report/thread_map.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

TEST(ThreadMap, GivesTheLastValueOfEachThreadInItsSpace) {
  ThreadMap map;
  uint32_t previous = 99;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Get(0, 5), 0u);
  EXPECT_FALSE(map.Set(0, 5, 120, previous));
  EXPECT_EQ(previous, 99u);
  EXPECT_EQ(map.Get(0, 5), 120u);  // the cached "unknown" of thread 5 was replaced
  EXPECT_EQ(map.Get(1, 5), 0u);    // another space: another thread
  EXPECT_TRUE(map.Set(0, 5, 100, previous));
  EXPECT_EQ(previous, 120u);
  EXPECT_EQ(map.Get(0, 5), 100u);
  EXPECT_EQ(map.Get(0, 6), 0u);
}

}  // namespace
}  // namespace rastrace::report
