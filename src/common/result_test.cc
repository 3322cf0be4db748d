#include "common/result.h"

#include <gtest/gtest.h>

namespace rastrace {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0) return MakeError("{} is odd", v);
  return v / 2;
}

TEST(ResultTest, CarriesValueOrError) {
  auto good = Half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  auto bad = Half(7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "7 is odd");
}

TEST(ResultTest, VoidResult) {
  Result<void> ok = Ok();
  EXPECT_TRUE(ok.ok());
  Result<void> bad = MakeError("no");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "no");
}

}  // namespace
}  // namespace rastrace
