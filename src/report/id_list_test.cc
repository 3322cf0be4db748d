#include "report/id_list.h"

#include <gtest/gtest.h>

namespace rastrace::report {
namespace {

TEST(IdList, ThreeDigitItemIsOneTwelveBitId) {
  IdSet ids;
  ASSERT_TRUE(ParseIdList("010", ids).ok());
  EXPECT_TRUE(ids.Contains(0x0100));
  EXPECT_FALSE(ids.Contains(0x0101));
  EXPECT_FALSE(ids.Contains(0x0110));
  EXPECT_EQ(ids.size(), 1u);
}

TEST(IdList, TwoDigitItemIsSixteenIds) {
  IdSet ids;
  ASSERT_TRUE(ParseIdList("01", ids).ok());
  EXPECT_EQ(ids.size(), 16u);
  EXPECT_TRUE(ids.Contains(0x0100));
  EXPECT_TRUE(ids.Contains(0x01F0));
  EXPECT_FALSE(ids.Contains(0x0200));
}

TEST(IdList, FourDigitItemIsSixteenBitId) {
  IdSet ids;
  ASSERT_TRUE(ParseIdList("1234", ids).ok());
  EXPECT_TRUE(ids.Contains(0x1234));
  EXPECT_EQ(ids.size(), 1u);
}

TEST(IdList, CommasAndBlanksSeparate) {
  IdSet ids;
  ASSERT_TRUE(ParseIdList("010,011 01a", ids).ok());
  EXPECT_TRUE(ids.Contains(0x0100));
  EXPECT_TRUE(ids.Contains(0x0110));
  EXPECT_TRUE(ids.Contains(0x01A0));
  EXPECT_EQ(ids.size(), 3u);
}

TEST(IdList, BadItemsAreErrorsNamingTheItem) {
  IdSet ids;
  auto r = ParseIdList("010,xyz", ids);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("xyz"), std::string::npos);
  EXPECT_FALSE(ParseIdList("1", ids).ok());
  EXPECT_FALSE(ParseIdList("12345", ids).ok());
  EXPECT_FALSE(ParseIdList("", ids).ok());
}

TEST(NumberList, ParsesDecimals) {
  auto r = ParseNumberList("12, 34 56", "thread id");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<uint64_t>{12, 34, 56}));
  EXPECT_FALSE(ParseNumberList("12,x", "thread id").ok());
}

}  // namespace
}  // namespace rastrace::report
