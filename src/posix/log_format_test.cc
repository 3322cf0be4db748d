// The log encoding of POSIX streams (docs/posix-trace.md), read back with the event reader.
#include "posix/log_format.h"

#include <gtest/gtest.h>

#include <vector>

#include "event/encode.h"
#include "event/reader.h"

namespace rastrace::posix {
namespace {

std::vector<event::Event> ReadAll(const std::vector<uint8_t>& bytes,
                                  std::vector<std::vector<uint8_t>>& buffers) {
  auto reader = event::LogReader::FromBytes(bytes);
  EXPECT_TRUE(reader.ok());
  std::vector<event::Event> events;
  event::Event e;
  while (reader->Next(e) == event::ReadStatus::kEvent) {
    // Spans point into the reader: keep a copy of each buffer.
    buffers.emplace_back(e.buffer.begin(), e.buffer.end());
    events.push_back(e);
    events.back().buffer = buffers.back();
  }
  return events;
}

TEST(LogFormat, EventRoundTripAndLayout) {
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    std::vector<uint8_t> bytes;
    event::EncodeMagic(event::Layout::k64, order, bytes);
    EventRecord e;
    e.event_id = 17;
    e.truncation = POSIX_TRACE_TRUNCATED_RECORD;
    e.pid = 4242;
    e.kernel_tid = 4243;
    e.thread = 0x7F00112233445566ULL;
    e.prog_address = 0x401234;
    e.realtime_ns = 1700000000123456789ULL;
    e.data = {1, 2, 3, 4, 5};
    EncodePosixEvent(e, "my.event", order, bytes);
    std::vector<std::vector<uint8_t>> buffers;
    buffers.reserve(4);
    auto events = ReadAll(bytes, buffers);
    ASSERT_EQ(events.size(), 1u);
    const event::Event& got = events[0];
    EXPECT_EQ(got.hook_id, kHookPosixEvent);
    EXPECT_EQ(got.subhook, 17);
    EXPECT_TRUE(got.generic);
    EXPECT_TRUE(got.timestamped);
    EXPECT_EQ(got.generic_word, 0x401234u);
    EXPECT_EQ(got.thread_id, 4243u);
    EXPECT_EQ(got.timestamp, 1700000000123456789ULL);
    // pid:4 truncation:2 data_len:2 pthread:8 S2 name, data
    ASSERT_EQ(got.buffer.size(), 4u + 2 + 2 + 8 + 2 + 8 + 5);
    EXPECT_EQ(Load32(got.buffer.data(), order), 4242u);
    EXPECT_EQ(Load16(got.buffer.data() + 6, order), 5u);   // data length
    EXPECT_EQ(Load16(got.buffer.data() + 16, order), 8u);  // name length
    auto decoded = DecodePosixEvent(got, order);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->name, "my.event");
    EXPECT_EQ(decoded->record.pid, 4242);
    EXPECT_EQ(decoded->record.thread, e.thread);
    EXPECT_EQ(decoded->record.truncation, POSIX_TRACE_TRUNCATED_RECORD);
    EXPECT_EQ(decoded->record.data, e.data);
  }
}

TEST(LogFormat, AttributesTypesAndStatus) {
  std::vector<uint8_t> bytes;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
  trace_attr_t attr{};
  attr.__stream_policy = POSIX_TRACE_UNTIL_FULL;
  attr.__log_policy = POSIX_TRACE_APPEND;
  attr.__inheritance = POSIX_TRACE_INHERITED;
  attr.__max_data_size = 99;
  attr.__stream_size = 12345;
  attr.__log_size = 67890;
  attr.__create_time = {1700000000, 5};
  attr.__clock_res = {0, 1};
  std::snprintf(attr.__name, sizeof attr.__name, "streamname");
  std::snprintf(attr.__version, sizeof attr.__version, "v1");
  EncodeStreamAttributes(attr, NativeByteOrder(), bytes);
  EncodeEventType(20, "type.twenty", NativeByteOrder(), bytes);
  EncodeStatus(StatusRecord{1, 0, 1, 32, 0}, NativeByteOrder(), bytes);
  std::vector<std::vector<uint8_t>> buffers;
  buffers.reserve(8);
  auto events = ReadAll(bytes, buffers);
  ASSERT_EQ(events.size(), 3u);
  auto a = DecodeStreamAttributes(events[0], NativeByteOrder());
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->__stream_policy, POSIX_TRACE_UNTIL_FULL);
  EXPECT_EQ(a->__log_policy, POSIX_TRACE_APPEND);
  EXPECT_EQ(a->__inheritance, POSIX_TRACE_INHERITED);
  EXPECT_EQ(a->__max_data_size, 99u);
  EXPECT_EQ(a->__stream_size, 12345u);
  EXPECT_EQ(a->__log_size, 67890u);
  EXPECT_EQ(a->__create_time.tv_sec, 1700000000);
  EXPECT_EQ(a->__create_time.tv_nsec, 5);
  EXPECT_STREQ(a->__name, "streamname");
  EXPECT_STREQ(a->__version, "v1");
  auto type = DecodeEventType(events[1]);
  ASSERT_TRUE(type.has_value());
  EXPECT_EQ(type->first, 20u);
  EXPECT_EQ(type->second, "type.twenty");
  auto status = DecodeStatus(events[2]);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->stream_overrun, 1u);
  EXPECT_EQ(status->flush_error, 32u);
  EXPECT_FALSE(DecodePosixEvent(events[1], NativeByteOrder()).has_value());
}

TEST(LogFormat, MalformedEventsAreRejected) {
  std::vector<uint8_t> bytes;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
  const uint8_t short_buffer[3] = {1, 2, 3};
  event::EventFields f;
  f.hook_id = kHookPosixEvent;
  f.subhook = 20;
  f.generic = true;
  f.buffer = short_buffer;
  ASSERT_TRUE(event::Encode(f, event::Layout::k64, NativeByteOrder(), bytes).ok());
  std::vector<std::vector<uint8_t>> buffers;
  buffers.reserve(2);
  auto events = ReadAll(bytes, buffers);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(DecodePosixEvent(events[0], NativeByteOrder()).has_value());
  EXPECT_FALSE(DecodeStreamAttributes(events[0], NativeByteOrder()).has_value());
}

}  // namespace
}  // namespace rastrace::posix
