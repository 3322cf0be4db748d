#include "common/byte_order.h"

#include <gtest/gtest.h>

namespace rastrace {
namespace {

TEST(ByteOrderTest, LoadsBothOrders) {
  const uint8_t bytes[] = {0xEF, 0xDF, 0x11, 0x14, 0x01, 0x02, 0x03, 0x04};
  EXPECT_EQ(Load32(bytes, ByteOrder::kBig), 0xEFDF1114u);
  EXPECT_EQ(Load32(bytes, ByteOrder::kLittle), 0x1411DFEFu);
  EXPECT_EQ(Load16(bytes, ByteOrder::kBig), 0xEFDFu);
  EXPECT_EQ(Load64(bytes, ByteOrder::kBig), 0xEFDF111401020304ull);
  EXPECT_EQ(LoadUnsigned(bytes, 3, ByteOrder::kBig), 0xEFDF11u);
  EXPECT_EQ(LoadUnsigned(bytes, 3, ByteOrder::kLittle), 0x11DFEFu);
}

TEST(ByteOrderTest, StoreRoundTrips) {
  uint8_t buf[8];
  Store<uint64_t>(buf, 0x0102030405060708ull, ByteOrder::kBig);
  EXPECT_EQ(buf[0], 0x01);
  EXPECT_EQ(Load64(buf, ByteOrder::kBig), 0x0102030405060708ull);
  Store<uint16_t>(buf, 0xABCD, ByteOrder::kLittle);
  EXPECT_EQ(buf[0], 0xCD);
}

}  // namespace
}  // namespace rastrace
