#include "report/syscall_tracker.h"

#include <gtest/gtest.h>

#include <vector>

#include "event/encode.h"
#include "event/reader.h"
#include "event/s2.h"

namespace rastrace::report {
namespace {

// Encodes `fields` into a one-event log and decodes it back, as trcrpt would see it.
class Decoded {
 public:
  Decoded(const event::EventFields& fields, ByteOrder order) {
    event::EncodeMagic(event::Layout::k64, order, bytes_);
    EXPECT_TRUE(event::Encode(fields, event::Layout::k64, order, bytes_).ok());
    auto reader = event::LogReader::FromBytes(bytes_);
    EXPECT_TRUE(reader.ok());
    reader_.emplace(std::move(reader.value()));
    EXPECT_EQ(reader_->Next(event_), event::ReadStatus::kEvent);
  }
  const event::Event& get() const { return event_; }

 private:
  std::vector<uint8_t> bytes_;
  std::optional<event::LogReader> reader_;
  event::Event event_;
};

event::EventFields Generic(uint16_t hook, std::vector<uint8_t>& buffer, uint64_t tid) {
  event::EventFields f;
  f.hook_id = hook;
  f.generic = true;
  f.timestamped = true;
  f.buffer = buffer;
  f.thread_id = tid;
  return f;
}

event::EventFields Plain(uint16_t hook, uint64_t tid) {
  event::EventFields f;
  f.hook_id = hook;
  f.timestamped = true;
  f.thread_id = tid;
  return f;
}

class SyscallTrackerTest : public ::testing::TestWithParam<ByteOrder> {};

TEST_P(SyscallTrackerTest, NamesTheCallEachThreadIsInUntilItReturns) {
  const ByteOrder order = GetParam();
  SyscallTracker tracker;
  std::vector<uint8_t> entry(48, 0);
  event::AppendS2("openat", order, entry);
  std::vector<uint8_t> ret;
  event::AppendS2("openat", order, ret);

  EXPECT_EQ(tracker.Observe(Decoded(Plain(0x0100, 7), order).get(), 7, order), "");
  EXPECT_EQ(tracker.Observe(Decoded(Generic(0x1010, entry, 7), order).get(), 7, order), "openat");
  EXPECT_EQ(tracker.Observe(Decoded(Plain(0x1060, 7), order).get(), 7, order), "openat");
  EXPECT_EQ(tracker.Observe(Decoded(Plain(0x1060, 8), order).get(), 8, order), "")
      << "another thread is not in the call";
  EXPECT_EQ(tracker.Observe(Decoded(Generic(0x1040, ret, 7), order).get(), 7, order), "openat");
  EXPECT_EQ(tracker.Observe(Decoded(Plain(0x0100, 7), order).get(), 7, order), "")
      << "the call returned";
}

TEST_P(SyscallTrackerTest, ReturnWithoutEntryTakesItsOwnNameAndShortBuffersAreEmpty) {
  const ByteOrder order = GetParam();
  SyscallTracker tracker;
  std::vector<uint8_t> ret;
  event::AppendS2("read", order, ret);
  EXPECT_EQ(tracker.Observe(Decoded(Generic(0x1040, ret, 3), order).get(), 3, order), "read");
  std::vector<uint8_t> short_entry(10, 0xFF);
  EXPECT_EQ(tracker.Observe(Decoded(Generic(0x1010, short_entry, 3), order).get(), 3, order), "");
}

INSTANTIATE_TEST_SUITE_P(BothOrders, SyscallTrackerTest,
                         ::testing::Values(ByteOrder::kLittle, ByteOrder::kBig));

}  // namespace
}  // namespace rastrace::report
