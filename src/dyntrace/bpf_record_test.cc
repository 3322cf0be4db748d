#include "dyntrace/bpf_record.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "dyntrace/bpf/hit_abi.h"

namespace rastrace::dyntrace {
namespace {

std::vector<uint8_t> Record(const rt_record& header, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> bytes(sizeof header);
  std::memcpy(bytes.data(), &header, sizeof header);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

TEST(DecodeBpfRecord, ReadsTheHeaderAndPointsAtTheData) {
  rt_record header{};
  header.probe = 3;
  header.pid = 4242;
  header.tid = 4243;
  header.length = 5;
  header.flags = RT_RECORD_INCOMPLETE | RT_RECORD_FAULTED;
  header.time_ns = 123456789;
  std::vector<uint8_t> bytes = Record(header, {1, 2, 3, 4, 5, 0xEE, 0xEE, 0xEE});  // ring padding
  auto hit = DecodeBpfRecord(bytes);
  ASSERT_TRUE(hit) << hit.error().message;
  EXPECT_EQ(hit->probe, 3u);
  EXPECT_EQ(hit->pid, 4242);
  EXPECT_EQ(hit->tid, 4243);
  EXPECT_EQ(hit->monotonic_ns, 123456789u);
  EXPECT_EQ(std::vector<uint8_t>(hit->data.begin(), hit->data.end()),
            (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(hit->built.incomplete);
  EXPECT_TRUE(hit->built.faulted);
  EXPECT_FALSE(hit->unclassified);
}

TEST(DecodeBpfRecord, AnUnclassifiedFaultNamesItsStatusByte) {
  rt_record header{};
  header.length = 11;
  header.flags = RT_RECORD_FAULTED | RT_RECORD_UNCLASSIFIED;
  header.fault_address = 0x7f0000001000;
  header.fault_status_at = 0;
  auto hit = DecodeBpfRecord(Record(header, std::vector<uint8_t>(11)));
  ASSERT_TRUE(hit) << hit.error().message;
  EXPECT_TRUE(hit->unclassified);
  EXPECT_EQ(hit->fault_address, 0x7f0000001000u);
  EXPECT_EQ(hit->fault_status_at, 0u);
  header.fault_status_at = 11;  // outside the data
  auto outside = DecodeBpfRecord(Record(header, std::vector<uint8_t>(11)));
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("outside"), std::string::npos);
}

TEST(DecodeBpfRecord, RefusesLengthsThatDoNotFit) {
  EXPECT_FALSE(DecodeBpfRecord(std::vector<uint8_t>(sizeof(rt_record) - 1)));
  rt_record header{};
  header.length = 20;
  auto short_data = DecodeBpfRecord(Record(header, std::vector<uint8_t>(19)));
  ASSERT_FALSE(short_data);
  EXPECT_NE(short_data.error().message.find("20"), std::string::npos);
  header.length = RT_MAX_RECORD + 1;
  EXPECT_FALSE(DecodeBpfRecord(Record(header, std::vector<uint8_t>(RT_MAX_RECORD + 1))));
}

}  // namespace
}  // namespace rastrace::dyntrace
