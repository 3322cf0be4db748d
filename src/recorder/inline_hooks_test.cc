// The hooks' inline fast path (<rastrace/trchk_inline.h>): a program writes the ring's producer
// line itself, through its own declaration of that line, so the two must agree at run time too.
#include <gtest/gtest.h>
#include <rastrace/trchk.h>
#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "buffer/ring_buffer.h"
#include "event/temp_dir.h"
#include "recorder/clock.h"
#include "recorder/pinned_cpu.h"
#include "recorder/recorder.h"
#include "recorder/test_log.h"

#ifndef RASTRACE_INLINE_HOOKS
#error "these tests are for the inline fast path, which x86-64 with GCC or Clang has"
#endif

namespace rastrace::recorder {
namespace {

using event::testing::TempDir;
using testing::LoggedEvent;
using testing::PinnedToOneCpu;
using testing::ReadLog;

class InlineHooksTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (Recorder::Get().recording()) (void)Recorder::Get().Stop();
  }

  void Start(const std::string& extra = "") {
    auto options = ParseTraceString("-o " + dir_.File("log") + " " + extra);
    ASSERT_TRUE(options) << options.error().message;
    ASSERT_TRUE(Recorder::Get().Start(*options));
  }

  std::vector<LoggedEvent> StopAndRead() {
    auto totals = Recorder::Get().Stop();
    EXPECT_TRUE(totals) << totals.error().message;
    auto events = ReadLog(dir_.File("log"));
    EXPECT_TRUE(events) << events.error().message;
    return events ? *events : std::vector<LoggedEvent>{};
  }

  TempDir dir_;
};

std::vector<LoggedEvent> UserEvents(const std::vector<LoggedEvent>& events) {
  std::vector<LoggedEvent> out;
  for (const auto& e : events) {
    if (e.hook_id >= 0x0100 && e.hook_id < 0x1000) out.push_back(e);
  }
  return out;
}

TEST_F(InlineHooksTest, AHookOnTheFastPathWritesTheRingThroughTheProducerLine) {
  PinnedToOneCpu pinned;
  Start();
  TRCHKL0(0x07200000);  // registers the thread (the slow path)
  rastrace_producer_v1* const p = rastrace_thread_producer_v1;
  ASSERT_NE(p, nullptr);
  if (!g_clock_is_tsc)
    GTEST_SKIP() << "the clock is not the TSC here: every hook takes the slow path";
  ASSERT_EQ(p->cpu, static_cast<uint32_t>(sched_getcpu())) << "the fast path is open on this CPU";
  const uint64_t head = p->head;
  const uint64_t events = p->events;
  ASSERT_LE(head + 8, p->limit) << "room for the event without a wrap";

  rastrace_inline_hook5t(0x07210001, 11, 12, 13, 14, 15);

  EXPECT_EQ(p->head, head + 8);
  EXPECT_EQ(p->events, events + 1);
  EXPECT_EQ(__atomic_load_n(p->published, __ATOMIC_ACQUIRE), head + 8);
  const uint64_t* e = p->data + (head & p->mask);
  EXPECT_EQ(e[0], 0x8000002807210001u);  // timestamp flag, 40 bytes of data, the hookword
  for (uint64_t w = 1; w <= 5; ++w) EXPECT_EQ(e[w], 10 + w);
  EXPECT_EQ(e[6], static_cast<uint64_t>(gettid()));
  EXPECT_NE(e[7], 0u);

  const auto logged = UserEvents(StopAndRead());
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[1].hook_id, 0x0721);
  EXPECT_EQ(logged[1].subhook, 1);
  EXPECT_TRUE(logged[1].timestamped);
  EXPECT_EQ(logged[1].words, (std::array<uint64_t, 5>{11, 12, 13, 14, 15}));
  EXPECT_EQ(logged[1].timestamp, e[7]);
}

// Each TRCHKLn(T) form, inline and through the library, in turn: the log holds the same events.
TEST_F(InlineHooksTest, EveryFormWritesWhatTheLibraryWrites) {
  Start();
  for (int round = 0; round < 2; ++round) {  // the first round registers the thread
    rastrace_inline_hook0(0x07300000);
    rastrace_hook0(0x07300000);
    rastrace_inline_hook1(0x07310000, 1);
    rastrace_hook1(0x07310000, 1);
    rastrace_inline_hook2(0x07320000, 1, 2);
    rastrace_hook2(0x07320000, 1, 2);
    rastrace_inline_hook3(0x07330000, 1, 2, 3);
    rastrace_hook3(0x07330000, 1, 2, 3);
    rastrace_inline_hook4(0x07340000, 1, 2, 3, 4);
    rastrace_hook4(0x07340000, 1, 2, 3, 4);
    rastrace_inline_hook5(0x07350000, 1, 2, 3, 4, 5);
    rastrace_hook5(0x07350000, 1, 2, 3, 4, 5);
    rastrace_inline_hook0t(0x07400000);
    rastrace_hook0t(0x07400000);
    rastrace_inline_hook1t(0x07410000, 1);
    rastrace_hook1t(0x07410000, 1);
    rastrace_inline_hook2t(0x07420000, 1, 2);
    rastrace_hook2t(0x07420000, 1, 2);
    rastrace_inline_hook3t(0x07430000, 1, 2, 3);
    rastrace_hook3t(0x07430000, 1, 2, 3);
    rastrace_inline_hook4t(0x07440000, 1, 2, 3, 4);
    rastrace_hook4t(0x07440000, 1, 2, 3, 4);
    rastrace_inline_hook5t(0x07450000, 1, 2, 3, 4, 5);
    rastrace_hook5t(0x07450000, 1, 2, 3, 4, 5);
  }
  const auto logged = UserEvents(StopAndRead());
  ASSERT_EQ(logged.size(), 48u);
  for (size_t i = 0; i < logged.size(); i += 2) {
    const LoggedEvent& in = logged[i];
    const LoggedEvent& out = logged[i + 1];
    const int n = (i / 2) % 6;
    const bool timestamped = (i / 2) % 12 >= 6;
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(in.hook_id, (timestamped ? 0x0740 : 0x0730) + n);
    EXPECT_EQ(in.hook_id, out.hook_id);
    EXPECT_EQ(in.subhook, out.subhook);
    EXPECT_EQ(in.timestamped, timestamped);
    EXPECT_EQ(out.timestamped, timestamped);
    EXPECT_EQ(in.word_count, n);
    EXPECT_EQ(out.word_count, n);
    EXPECT_EQ(in.words, out.words);
    EXPECT_EQ(in.thread_id, out.thread_id);
    if (timestamped) {
      EXPECT_LE(in.timestamp, out.timestamp);
    }
  }
}

// Hooks the fast path must not take go to the library: a filtered hook records nothing, and
// every hook is counted once whichever path took it.
TEST_F(InlineHooksTest, FilteredHooksLeaveTheFastPathClosed) {
  Start("-j 0750");
  TRCHKL1T(0x07500000, 1);
  rastrace_producer_v1* const p = rastrace_thread_producer_v1;
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->cpu, buffer::RingBuffer::kSlowOnly);
  const uint64_t events = p->events;
  for (int i = 0; i < 10; ++i) {
    TRCHKL1T(0x07500000, i);
    TRCHKL1T(0x07600000, i);  // not in the -j list
  }
  EXPECT_EQ(p->events, events + 10);
  const auto logged = UserEvents(StopAndRead());
  ASSERT_EQ(logged.size(), 11u);
  for (const auto& e : logged) EXPECT_EQ(e.hook_id, 0x0750);
}

// A thread outrunning a small ring drops most hooks at once (DropOrRecordSlow); hooks a filter
// leaves out are not events, and are not counted lost even then.
TEST_F(InlineHooksTest, WhileDroppingFilteredHooksAreNotCountedLost) {
  Start("-T 4K -j 0780");
  constexpr uint64_t kEach = 200000;
  for (uint64_t i = 0; i < kEach; ++i) {
    TRCHKL2T(0x07800000, i, i);
    TRCHKL2T(0x07900000, i, i);  // filtered out
  }
  const auto events = StopAndRead();
  uint64_t written = 0;
  int64_t previous = -1;
  for (const auto& e : events) {
    if (e.hook_id == 0x0790) ADD_FAILURE() << "a filtered hook was written";
    if (e.hook_id != 0x0780) continue;
    ++written;
    EXPECT_GT(static_cast<int64_t>(e.words[0]), previous);
    previous = static_cast<int64_t>(e.words[0]);
  }
  const uint64_t lost = testing::LostIn(events);
  EXPECT_GT(lost, 0u) << "the ring was not outrun";
  EXPECT_EQ(written + lost, kEach);
}

TEST_F(InlineHooksTest, EachThreadHasItsOwnProducerLineFromItsFirstHook) {
  Start();
  TRCHKL0(0x07700000);
  rastrace_producer_v1* const mine = rastrace_thread_producer_v1;
  ASSERT_NE(mine, nullptr);
  rastrace_producer_v1* before = mine;
  rastrace_producer_v1* after = nullptr;
  uint64_t thread_id = 0;
  std::thread([&] {
    before = rastrace_thread_producer_v1;
    TRCHKL0(0x07710000);
    after = rastrace_thread_producer_v1;
    thread_id = after != nullptr ? after->thread_id : 0;
  }).join();
  // Before its first hook a thread has the closed line: no room, a CPU no CPU has.
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->cpu, buffer::RingBuffer::kSlowOnly);
  EXPECT_EQ(before->limit, 0u);
  ASSERT_NE(after, nullptr);
  EXPECT_NE(after, before);
  EXPECT_NE(after, mine);
  const auto logged = UserEvents(StopAndRead());
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[1].hook_id, 0x0771);
  EXPECT_EQ(logged[1].thread_id, thread_id);
  EXPECT_NE(logged[0].thread_id, thread_id);
}

}  // namespace
}  // namespace rastrace::recorder
