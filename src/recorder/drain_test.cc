#include "recorder/drain.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <thread>

#include "buffer/recover.h"
#include "event/format.h"
#include "event/temp_dir.h"
#include "recorder/checkpoints.h"
#include "recorder/header_events.h"
#include "recorder/test_log.h"

namespace rastrace::recorder {
namespace {

using event::testing::TempDir;
using testing::LoggedEvent;
using testing::LostIn;
using testing::ReadLog;

// Stores TRCHKL1T(hkwd, value) with an explicit timestamp.
bool Put(ThreadSlot& slot, uint32_t hkwd, uint64_t value, uint64_t timestamp) {
  uint64_t at = 0;
  if (!slot.ring.Reserve(4, &at)) return false;
  slot.ring.Put(at, buffer::MakeHookword(event::kFlagTimestamp, 8, hkwd));
  slot.ring.Put(at + 1, value);
  slot.ring.Put(at + 2, slot.ring.thread_id());
  slot.ring.Put(at + 3, timestamp);
  slot.ring.Publish(at + 4);
  return true;
}

// Stores TRCHKL1(hkwd, value): no timestamp.
void PutUntimed(ThreadSlot& slot, uint32_t hkwd, uint64_t value) {
  uint64_t at = 0;
  ASSERT_TRUE(slot.ring.Reserve(3, &at));
  slot.ring.Put(at, buffer::MakeHookword(0, 8, hkwd));
  slot.ring.Put(at + 1, value);
  slot.ring.Put(at + 2, slot.ring.thread_id());
  slot.ring.Publish(at + 3);
}

// Stores TRCHKL1T(0x0110, value) events, or TRCHKL1(0x0130, value) where the timestamp is 0.
struct Seq {
  uint64_t value;
  uint64_t timestamp;
};
void PutAll(ThreadSlot& slot, std::initializer_list<Seq> events) {
  for (const Seq& e : events) {
    if (e.timestamp == 0) {
      PutUntimed(slot, 0x01300000, e.value);
    } else {
      ASSERT_TRUE(Put(slot, 0x01100000, e.value, e.timestamp));
    }
  }
}

std::unique_ptr<ThreadSlot> MakeSlot(uint64_t tid, const char* name, size_t bytes = 1 << 16) {
  auto slot = std::make_unique<ThreadSlot>(bytes, buffer::Mode::kAlternate, tid);
  std::strncpy(slot->name.data(), name, slot->name.size() - 1);
  return slot;
}

LogSink OpenSink(const std::string& path, RecorderOptions options = {}) {
  auto sink = LogSink::Open(
      path, options, [](std::vector<uint8_t>& out) { AppendTraceOff(7, 1, 1, out); },
      [](uint64_t count, std::vector<uint8_t>& out) { AppendLogWrapped(count, 1, 2, out); });
  EXPECT_TRUE(sink) << sink.error().message;
  return std::move(*sink);
}

std::vector<LoggedEvent> Only(const std::vector<LoggedEvent>& events, uint16_t hook) {
  std::vector<LoggedEvent> out;
  for (const auto& e : events) {
    if (e.hook_id == hook) out.push_back(e);
  }
  return out;
}

// A merged log's 0110/0130 values in log order and its thread names (how many came after an event).
struct Merged {
  std::vector<uint64_t> order;
  std::vector<std::string> names;
  size_t names_after_events = 0;
};
Merged ReadMerged(const std::vector<LoggedEvent>& events) {
  Merged merged;
  for (const auto& e : events) {
    if (e.hook_id == 0x0110 || e.hook_id == 0x0130) merged.order.push_back(e.words[0]);
    if (e.hook_id == event::kHookUtil && e.subhook == event::kUtilThreadName) {
      merged.names.push_back(testing::SplitS2(e.buffer)[0]);
      if (!merged.order.empty()) ++merged.names_after_events;
      EXPECT_EQ(e.generic_word, e.thread_id);
    }
  }
  return merged;
}

TEST(DrainTest, MergesThreadsByTimestampAndNamesEachThreadFirst) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha");
  auto b = MakeSlot(200, "beta");
  // a: 10 20 30 (untimed after 30) 60; b: 15 25 50.
  PutAll(*a, {{1, 10}, {2, 20}, {3, 30}, {4, 0}, {5, 60}});
  PutAll(*b, {{11, 15}, {12, 25}, {13, 50}});
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get(), b.get()};
  const DrainResult result = DrainOnce(slots, sink, 0);
  EXPECT_EQ(result.events, 8u);
  EXPECT_EQ(result.max_timestamp, 60u);
  ASSERT_TRUE(sink.Close());

  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  const Merged merged = ReadMerged(*events);
  EXPECT_EQ(merged.order, (std::vector<uint64_t>{1, 11, 2, 12, 3, 4, 13, 5}));
  EXPECT_EQ(merged.names, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(LostIn(*events), 0u);
  EXPECT_EQ(a->ring.head(), a->ring.tail());
}

// The merge of finely interleaved threads (MergeFinely) and the general loop it hands over to when
// one thread has nothing more give the same order: oldest next event first, ties to the thread
// listed first, a thread's run going on while its events are not newer than the others' next.
TEST(DrainTest, InterleavedThreadsWithTiesAndUntimedEventsMergeInOrder) {
  TempDir dir;
  auto a = MakeSlot(100, "a");
  auto b = MakeSlot(200, "b");
  auto c = MakeSlot(300, "c");
  PutAll(*a, {{1, 10}, {2, 20}, {3, 20}, {4, 40}, {5, 0}, {6, 70}});
  PutAll(*b, {{11, 10}, {12, 20}, {13, 0}, {14, 30}});
  PutAll(*c, {{21, 5}, {22, 20}, {23, 50}, {24, 60}, {25, 80}, {26, 90}});
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get(), b.get(), c.get()};
  const DrainResult result = DrainOnce(slots, sink, 0);
  EXPECT_EQ(result.events, 16u);
  EXPECT_EQ(result.bytes, 14u * 32 + 2u * 24);
  EXPECT_EQ(result.max_timestamp, 90u);
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  const Merged merged = ReadMerged(*events);
  EXPECT_EQ(merged.order,
            (std::vector<uint64_t>{21, 1, 11, 12, 13, 2, 3, 22, 14, 4, 5, 23, 24, 6, 25, 26}));
  EXPECT_EQ(merged.names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(merged.names_after_events, 0u);
  for (ThreadSlot* slot : slots) EXPECT_EQ(slot->ring.head(), slot->ring.tail());
}

// Two threads whose events alternate one by one, over several rounds and across the rings' wrap.
TEST(DrainTest, AlternatingThreadsAcrossTheWrapKeepEveryEventInOrder) {
  TempDir dir;
  auto a = MakeSlot(100, "a", 4096);  // 128 events of 4 words
  auto b = MakeSlot(200, "b", 4096);
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get(), b.get()};
  uint64_t ts = 1;
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(Put(*a, 0x01100000, ts, ts));
      ++ts;
      ASSERT_TRUE(Put(*b, 0x01100000, ts, ts));
      ++ts;
    }
    EXPECT_EQ(DrainOnce(slots, sink, 0).events, 200u);
  }
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  std::vector<LoggedEvent> hooks = Only(*events, 0x0110);
  ASSERT_EQ(hooks.size(), 1000u);
  for (size_t i = 0; i < hooks.size(); ++i) {
    ASSERT_EQ(hooks[i].words[0], i + 1);
    ASSERT_EQ(hooks[i].thread_id, i % 2 ? 200u : 100u);
  }
}

// Runs of 256 KiB or more go from the ring to the file directly, in two pieces across the wrap.
TEST(DrainTest, LongRunsAcrossTheWrapAreWrittenIntact) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha", 1 << 20);  // 32768 events of 4 words
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get()};
  uint64_t seq = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 20000; ++i, ++seq) ASSERT_TRUE(Put(*a, 0x01100000, seq, seq + 1));
    EXPECT_EQ(DrainOnce(slots, sink, 0).events, 20000u);
  }
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  const auto values = Only(*events, 0x0110);
  ASSERT_EQ(values.size(), 60000u);
  for (uint64_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i].words[0], i);
    ASSERT_EQ(values[i].timestamp, i + 1);
  }
}

// A thread's ring grew twice while another thread recorded: the drain reads the old region up
// to the move, follows into the new one on its next round, and merges both threads as before.
TEST(DrainTest, EventsOnBothSidesOfARingsGrowthAreMergedInOrder) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha", 4096);  // 128 events of 4 words
  auto b = MakeSlot(200, "beta", 4096);
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get(), b.get()};
  uint64_t a_seq = 0;
  uint64_t ts = 1;
  uint64_t a_written = 0;
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(a->ring.OfferGrowth(16384));
    // More than the ring held before the offer, b's events interleaved in time.
    for (int i = 0; i < 200 << round; ++i) {
      ASSERT_TRUE(Put(*a, 0x01100000, a_seq++, ts++));
      ++a_written;
      if (i % 50 == 0) {
        ASSERT_TRUE(Put(*b, 0x01200000, static_cast<uint64_t>(i), ts++));
      }
    }
    while (DrainOnce(slots, sink, 0).events != 0) {
    }
  }
  EXPECT_EQ(a->ring.growths(), 2u);
  EXPECT_EQ(a->ring.read_capacity_bytes(), 16384u);
  EXPECT_EQ(a->ring.lost(), 0u);
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  const auto from_a = Only(*events, 0x0110);
  ASSERT_EQ(from_a.size(), a_written);
  for (uint64_t i = 0; i < from_a.size(); ++i) ASSERT_EQ(from_a[i].words[0], i);
  uint64_t previous = 0;
  for (const auto& e : *events) {
    if (e.hook_id != 0x0110 && e.hook_id != 0x0120) continue;
    EXPECT_GT(e.timestamp, previous);
    previous = e.timestamp;
  }
  EXPECT_EQ(Only(*events, 0x0120).size(), 4u + 8u);
  EXPECT_EQ(LostIn(*events), 0u);
}

// A thread that moved twice before the writer's round: one round reads the three regions in
// turn, merged in time with another thread.
TEST(DrainTest, OneRoundFollowsTwoMovesOfARing) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha", 4096);
  auto b = MakeSlot(200, "beta", 4096);
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get(), b.get()};
  uint64_t ts = 1;
  ASSERT_TRUE(a->ring.OfferGrowth(16384));
  for (uint64_t i = 0; i < 500; ++i) {
    if (i == 200) {
      ASSERT_TRUE(a->ring.OfferGrowth(16384));  // after the first move
    }
    ASSERT_TRUE(Put(*a, 0x01100000, i, ts++));
    if (i % 100 == 0) {
      ASSERT_TRUE(Put(*b, 0x01200000, i, ts++));
    }
  }
  EXPECT_EQ(DrainOnce(slots, sink, 0).events, 505u);
  EXPECT_EQ(a->ring.growths(), 2u);
  EXPECT_EQ(a->ring.head(), a->ring.tail());
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  std::vector<uint64_t> order;
  uint64_t previous = 0;
  for (const auto& e : *events) {
    if (e.hook_id != 0x0110 && e.hook_id != 0x0120) continue;
    EXPECT_GT(e.timestamp, previous);
    previous = e.timestamp;
    if (e.hook_id == 0x0110) order.push_back(e.words[0]);
  }
  ASSERT_EQ(order.size(), 500u);
  for (uint64_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
}

// A lone thread's walk guesses the positions of several events at once; events of other sizes
// (an untimestamped hook, a five-word one) in between must still be found where they are, and an
// untimestamped event merges at the timestamp of the event before it.
TEST(DrainTest, ALoneThreadOfMixedEventSizesIsWrittenInOrder) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha", 1 << 16);
  auto b = MakeSlot(200, "beta");
  LogSink sink = OpenSink(dir.File("log"));
  std::vector<uint64_t> expected;
  uint64_t seq = 0;
  for (int group = 0; group < 40; ++group) {
    for (int i = 0; i < group % 11; ++i, ++seq) {
      ASSERT_TRUE(Put(*a, 0x01100000, seq, 10 * seq + 10));
      expected.push_back(seq);
    }
    PutUntimed(*a, 0x01100000, seq);  // 3 words
    expected.push_back(seq++);
    uint64_t at = 0;
    ASSERT_TRUE(a->ring.Reserve(5, &at));  // TRCHKL2T: 5 words
    a->ring.Put(at, buffer::MakeHookword(event::kFlagTimestamp, 16, 0x01100000));
    a->ring.Put(at + 1, seq);
    a->ring.Put(at + 2, 0);
    a->ring.Put(at + 3, a->ring.thread_id());
    a->ring.Put(at + 4, 10 * seq + 10);
    a->ring.Publish(at + 5);
    expected.push_back(seq++);
  }
  ThreadSlot* alone[] = {a.get()};
  const DrainResult result = DrainOnce(alone, sink, 0);
  EXPECT_EQ(result.events, expected.size());
  EXPECT_EQ(result.max_timestamp, 10 * (seq - 1) + 10);
  EXPECT_EQ(a->last_timestamp, 10 * (seq - 1) + 10);
  // Then one more untimestamped event of `a`, due before `b`'s event of a later time.
  PutUntimed(*a, 0x01100000, seq);
  ASSERT_TRUE(Put(*b, 0x01100000, seq + 1, 10 * seq + 5));
  ThreadSlot* both[] = {a.get(), b.get()};
  DrainOnce(both, sink, 0);
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  std::vector<uint64_t> values;
  for (const LoggedEvent& e : Only(*events, 0x0110)) values.push_back(e.words[0]);
  expected.push_back(seq);
  expected.push_back(seq + 1);
  EXPECT_EQ(values, expected);
}

TEST(DrainTest, LostEventsBecomeOne006PerThreadWithTheThreadId) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha", 4096);  // 128 events of 4 words
  uint64_t written = 0;
  for (uint64_t i = 0; i < 200; ++i) written += Put(*a, 0x01100000, i, i + 1) ? 1 : 0;
  ASSERT_EQ(written, 128u);
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get()};
  DrainOnce(slots, sink, 0);
  DrainOnce(slots, sink, 0);  // nothing new: no second 006
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  auto lost = Only(*events, event::kHookLost);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].words[0], 72u);
  EXPECT_EQ(lost[0].words[1], 100u);
  EXPECT_EQ(lost[0].word_count, 2);
  EXPECT_EQ(lost[0].timestamp, 128u);  // the newest event drained before it
  EXPECT_EQ(Only(*events, 0x0110).size(), 128u);
}

// A hookword whose event would run past what the producer published (a circular-mode read
// racing a producer): the events before it are written, the rest of that ring is dropped and
// counted once, and the next round starts clean.
TEST(DrainTest, AnEventRunningPastThePublishedEndDropsTheRestOfItsRing) {
  TempDir dir;
  auto a = MakeSlot(100, "alpha");
  for (uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(Put(*a, 0x01100000, i, i + 1));
  uint64_t at = 0;
  ASSERT_TRUE(a->ring.Reserve(3, &at));
  // Claims 40 bytes of data (8 words in all) but only 3 words are published.
  a->ring.Put(at, buffer::MakeHookword(event::kFlagTimestamp, 40, 0x01200000));
  a->ring.Put(at + 1, 7);
  a->ring.Put(at + 2, 100);
  a->ring.Publish(at + 3);
  LogSink sink = OpenSink(dir.File("log"));
  ThreadSlot* slots[] = {a.get()};
  const DrainResult first = DrainOnce(slots, sink, 0);
  EXPECT_EQ(first.events, 3u);
  EXPECT_EQ(a->lost_by_writer, 1u);
  EXPECT_EQ(a->ring.tail(), a->ring.head());
  ASSERT_TRUE(Put(*a, 0x01100000, 9, 10));
  EXPECT_EQ(DrainOnce(slots, sink, 0).events, 1u);
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(Only(*events, 0x0110).size(), 4u);
  EXPECT_TRUE(Only(*events, 0x0120).empty());
  EXPECT_EQ(LostIn(*events), 1u);
}

TEST(DrainTest, FullLogWithStopDiscardsAndCountsTheRest) {
  TempDir dir;
  RecorderOptions options;
  options.log_bytes = 4 + 32 /*header stand-in*/ + 48 /*thread name*/ + 10 * 32;
  options.log_full = LogFull::kStop;
  auto a = MakeSlot(100, "alpha");
  for (uint64_t i = 0; i < 25; ++i) Put(*a, 0x01100000, i, i + 1);
  LogSink sink = OpenSink(dir.File("log"), options);
  ThreadSlot* slots[] = {a.get()};
  const DrainResult result = DrainOnce(slots, sink, 0);
  EXPECT_TRUE(sink.stopped());
  EXPECT_EQ(result.events, 10u);
  EXPECT_EQ(result.discarded, 15u);
  ASSERT_TRUE(sink.Close());
  auto events = ReadLog(dir.File("log"));
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(Only(*events, 0x0110).size(), 10u);
  EXPECT_EQ(LostIn(*events), 15u);
}

TEST(DrainTest, FullLogRotatesToOldWithA005) {
  TempDir dir;
  RecorderOptions options;
  options.log_bytes = 4 + 32 + 48 + 10 * 32;
  auto a = MakeSlot(100, "alpha");
  for (uint64_t i = 0; i < 25; ++i) Put(*a, 0x01100000, i, i + 1);
  LogSink sink = OpenSink(dir.File("log"), options);
  ThreadSlot* slots[] = {a.get()};
  const DrainResult result = DrainOnce(slots, sink, 0);
  EXPECT_EQ(result.events, 25u);
  EXPECT_EQ(result.discarded, 0u);
  EXPECT_GE(sink.rotations(), 2u);
  ASSERT_TRUE(sink.Close());
  auto current = ReadLog(dir.File("log"));
  auto old = ReadLog(dir.File("log.old"));
  ASSERT_TRUE(current) << current.error().message;
  ASSERT_TRUE(old) << old.error().message;
  // The new file starts with the header, then 005 counting the rotations.
  ASSERT_GE(current->size(), 2u);
  EXPECT_EQ((*current)[0].hook_id, event::kHookTraceOff);  // the stand-in header
  EXPECT_EQ((*current)[1].hook_id, event::kHookLogWrapped);
  EXPECT_EQ((*current)[1].words[0], sink.rotations());
  // Each file names the thread before its events, and the last values are in the newest file.
  EXPECT_EQ(Only(*current, event::kHookUtil).size(), 1u);
  auto newest = Only(*current, 0x0110);
  ASSERT_FALSE(newest.empty());
  EXPECT_EQ(newest.back().words[0], 24u);
  for (const auto* file : {&*current, &*old}) {
    EXPECT_LE(std::filesystem::file_size(file == &*current ? dir.File("log") : dir.File("log.old")),
              options.log_bytes);
  }
}

// ---- The flight recorder's checkpoints (recorder/checkpoints.h): published once the file holds
// the round, without waiting for the log's writes.

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shm_ = dir_.File("shm");
    ASSERT_EQ(mkdir(shm_.c_str(), 0700), 0);
    std::vector<uint8_t> header;
    AppendTraceOff(7, 1, 1, header);  // the sink's stand-in header (OpenSink)
    auto process = buffer::ShmProcess::Create(shm_, buffer::Mode::kAlternate, header, log_);
    ASSERT_TRUE(process) << process.error().message;
    process_ = *process;
    auto file = process_->CreateRing(4 << 20, buffer::Mode::kAlternate, 77, "worker");
    ASSERT_TRUE(file) << file.error().message;
    slot_ = std::make_unique<ThreadSlot>(std::move(*file), buffer::Mode::kAlternate, 77);
    checkpoints_.emplace(*process_);
  }

  // Events value first..last-1 (32 bytes each), drained into the sink as a writer round does.
  void Round(LogSink& sink, uint64_t first, uint64_t last, bool idle = false,
             std::chrono::milliseconds at = std::chrono::milliseconds(0)) {
    for (uint64_t i = first; i < last; ++i) ASSERT_TRUE(Put(*slot_, 0x01100000, i, i + 1));
    ThreadSlot* slots[] = {slot_.get()};
    DrainOnce(slots, sink, 0);
    ASSERT_TRUE(sink.Flush());
    checkpoints_->AfterRound(slots, sink, idle, start_ + at);
  }

  // What a recovery finds if the process died now: the log's bytes it takes, and the values of
  // the events, each of which must appear once.
  std::vector<uint64_t> Recovered(uint64_t* log_bytes) {
    buffer::RecoverOptions options;
    options.dir = shm_;
    options.output = dir_.File("recovered");
    options.force = true;
    auto summary = buffer::Recover(options);
    EXPECT_TRUE(summary) << summary.error().message;
    if (!summary) return {};
    *log_bytes = summary->log_prefix_bytes;
    auto events = ReadLog(options.output);
    EXPECT_TRUE(events) << events.error().message;
    std::vector<uint64_t> values;
    for (const auto& e : Only(*events, 0x0110)) values.push_back(e.words[0]);
    return values;
  }
  static std::vector<uint64_t> Iota(uint64_t n) {
    std::vector<uint64_t> values(n);
    for (uint64_t i = 0; i < n; ++i) values[i] = i;
    return values;
  }

  TempDir dir_;
  std::string shm_;
  std::string log_ = dir_.File("log");
  std::shared_ptr<buffer::ShmProcess> process_;
  std::unique_ptr<ThreadSlot> slot_;
  std::optional<Checkpoints> checkpoints_;
  Checkpoints::Clock::time_point start_ = Checkpoints::Clock::now();
};

// A round's events still in the chunk being filled are not checkpointed: the ring keeps them
// (the round does not wait for the disk); a recovery then takes them from the ring. Once the log's
// later writes have them in the file, the round is published without writing the log out.
TEST_F(CheckpointTest, ARoundIsPublishedOnceTheFileHoldsItWithoutWaitingForTheDisk) {
  LogSink sink = OpenSink(log_);
  Round(sink, 0, 1000);  // 32,000 bytes: far from a full chunk
  const uint64_t first_round = sink.bytes();
  EXPECT_LT(sink.bytes_in_file(), first_round);
  EXPECT_EQ(process_->published_checkpoint(), 0u);
  EXPECT_EQ(slot_->checkpointed_read, 0u) << "handed back before the file had the events";
  uint64_t taken = 0;
  EXPECT_EQ(Recovered(&taken), Iota(1000));
  EXPECT_EQ(taken, 0u);

  // Three more chunks' worth: the first round's bytes go to the file with the full chunks.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  Round(sink, 1000, 100000);
  while (sink.bytes_in_file() < first_round && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(sink.bytes_in_file(), first_round);
  ThreadSlot* slots[] = {slot_.get()};
  checkpoints_->AfterRound(slots, sink, /*idle=*/false, start_);
  EXPECT_EQ(process_->published_checkpoint(), 1u);
  EXPECT_GE(slot_->checkpointed_read, 4000u);  // at least the first round's words
  EXPECT_LT(sink.bytes_in_file(), sink.bytes()) << "the log was written out";
  EXPECT_EQ(Recovered(&taken), Iota(100000));
  EXPECT_GE(taken, first_round);
  ASSERT_TRUE(sink.Close());
}

// When nothing more comes to fill the chunk (an idle round), or the round has waited
// Checkpoints::kMaxWait, the log is written out and the round published.
TEST_F(CheckpointTest, AnIdleOrLongWaitingRoundIsWrittenOutAndPublished) {
  LogSink sink = OpenSink(log_);
  Round(sink, 0, 100);
  EXPECT_EQ(process_->published_checkpoint(), 0u);
  Round(sink, 100, 100, /*idle=*/true);
  EXPECT_EQ(process_->published_checkpoint(), 1u);
  EXPECT_EQ(slot_->checkpointed_read, 400u);
  EXPECT_TRUE(slot_->Checkpointed());
  uint64_t taken = 0;
  EXPECT_EQ(Recovered(&taken), Iota(100));
  EXPECT_EQ(taken, sink.bytes());

  Round(sink, 100, 200, false, std::chrono::milliseconds(1));
  EXPECT_EQ(process_->published_checkpoint(), 1u);
  EXPECT_FALSE(slot_->Checkpointed());
  Round(sink, 200, 300, false, std::chrono::milliseconds(1) + Checkpoints::kMaxWait);
  EXPECT_EQ(process_->published_checkpoint(), 2u);
  EXPECT_EQ(slot_->checkpointed_read, 1200u);
  EXPECT_EQ(Recovered(&taken), Iota(300));
  EXPECT_EQ(taken, sink.bytes());
  ASSERT_TRUE(sink.Close());
}

}  // namespace
}  // namespace rastrace::recorder
