// Streams without a log: states, policies, overrun rules, filters, names, truncation, reading.
#include <gtest/gtest.h>
#include <trace.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "posix/test_util.h"

namespace rastrace::posix::testing {
namespace {

class Stream : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(posix_trace_attr_init(&attr_), 0); }
  void TearDown() override {
    if (trid_ != 0) posix_trace_shutdown(trid_);
    posix_trace_attr_destroy(&attr_);
  }
  void Create(int policy, size_t slots) {
    ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr_, policy), 0);
    ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr_, 16), 0);
    ASSERT_EQ(posix_trace_attr_setstreamsize(&attr_, StreamSizeForSlots(slots)), 0);
    ASSERT_EQ(posix_trace_create(0, &attr_, &trid_), 0);
  }
  posix_trace_status_info Status() {
    posix_trace_status_info s{};
    EXPECT_EQ(posix_trace_get_status(trid_, &s), 0);
    return s;
  }
  trace_attr_t attr_{};
  trace_id_t trid_ = 0;
};

TEST_F(Stream, NewStreamIsSuspendedNotFullNoOverrunEmptyFilter) {
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid_), 0);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  EXPECT_EQ(s.posix_stream_flush_status, POSIX_TRACE_NOT_FLUSHING);
  EXPECT_EQ(s.posix_stream_flush_error, 0);
  EXPECT_EQ(s.posix_log_overrun_status, POSIX_TRACE_NO_OVERRUN);
  EXPECT_EQ(s.posix_log_full_status, POSIX_TRACE_NOT_FULL);
  trace_event_set_t filter;
  ASSERT_EQ(posix_trace_get_filter(trid_, &filter), 0);
  for (auto bits : filter.__bits) EXPECT_EQ(bits, 0u);
  trace_attr_t got;
  ASSERT_EQ(posix_trace_get_attr(trid_, &got), 0);
  int policy = 0;
  ASSERT_EQ(posix_trace_attr_getstreamfullpolicy(&got, &policy), 0);
  EXPECT_EQ(policy, POSIX_TRACE_LOOP);
  timespec created{};
  ASSERT_EQ(posix_trace_attr_getcreatetime(&got, &created), 0);
  EXPECT_GT(created.tv_sec, 0);
}

TEST_F(Stream, EventsOnlyWhileRunningWithStartAndStopEvents) {
  Create(POSIX_TRACE_LOOP, 64);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.run", &id), 0);
  int v = 1;
  posix_trace_event(id, &v, sizeof v);  // suspended: no effect
  ASSERT_EQ(posix_trace_start(trid_), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);  // already running: no second START
  EXPECT_EQ(Status().posix_stream_status, POSIX_TRACE_RUNNING);
  v = 2;
  posix_trace_event(id, &v, sizeof v);
  ASSERT_EQ(posix_trace_stop(trid_), 0);
  ASSERT_EQ(posix_trace_stop(trid_), 0);  // already stopped: no second STOP
  v = 3;
  posix_trace_event(id, &v, sizeof v);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].info.posix_event_id, POSIX_TRACE_START);
  EXPECT_EQ(events[0].data.size(), sizeof(trace_event_set_t));
  EXPECT_EQ(events[0].info.posix_pid, 0);
  EXPECT_EQ(events[1].info.posix_event_id, id);
  EXPECT_EQ(IntData(events[1]), 2);
  EXPECT_EQ(events[1].info.posix_pid, getpid());
  EXPECT_TRUE(pthread_equal(events[1].info.posix_thread_id, pthread_self()));
  EXPECT_NE(events[1].info.posix_prog_address, nullptr);
  EXPECT_EQ(events[1].info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
  EXPECT_EQ(NameOf(trid_, events[1].info.posix_event_id), "stream.test.run");
  EXPECT_EQ(events[2].info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_EQ(IntData(events[2]), 0);  // explicit stop
  EXPECT_EQ(NameOf(trid_, POSIX_TRACE_STOP), "posix_trace_stop");
}

TEST_F(Stream, TimestampIsRealtimeAndOrdered) {
  Create(POSIX_TRACE_LOOP, 64);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.time", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  timespec before{}, after{};
  clock_gettime(CLOCK_REALTIME, &before);
  posix_trace_event(id, nullptr, 0);
  posix_trace_event(id, nullptr, 0);
  clock_gettime(CLOCK_REALTIME, &after);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 3u);
  auto ns = [](const timespec& t) { return t.tv_sec * 1000000000LL + t.tv_nsec; };
  // The TSC is converted with a rate measured over 10 ms: allow a little slack.
  EXPECT_GE(ns(events[1].info.posix_timestamp), ns(before) - 200000);
  EXPECT_LE(ns(events[2].info.posix_timestamp), ns(after) + 200000);
  EXPECT_LE(ns(events[1].info.posix_timestamp), ns(events[2].info.posix_timestamp));
}

TEST_F(Stream, LoopOverwritesOldestAndReportsOverflowThenResume) {
  Create(POSIX_TRACE_LOOP, 10);  // 10 slots
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.loop", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);  // START is event 0
  for (int i = 1; i <= 25; ++i) posix_trace_event(id, &i, sizeof i);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_RUNNING);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_FULL);
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_OVERRUN);
  EXPECT_EQ(Status().posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);  // reset when read
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 12u);  // OVERFLOW, RESUME, the newest 10
  EXPECT_EQ(events[0].info.posix_event_id, POSIX_TRACE_OVERFLOW);
  EXPECT_EQ(events[1].info.posix_event_id, POSIX_TRACE_RESUME);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(events[2 + i].info.posix_event_id, id);
    EXPECT_EQ(IntData(events[2 + i]), 16 + i);
  }
  auto ns = [](const timespec& t) { return t.tv_sec * 1000000000LL + t.tv_nsec; };
  // OVERFLOW has the time of the first lost event (START), RESUME that of the next valid one.
  EXPECT_LE(ns(events[0].info.posix_timestamp), ns(events[2].info.posix_timestamp));
  EXPECT_EQ(ns(events[1].info.posix_timestamp), ns(events[2].info.posix_timestamp));
}

TEST_F(Stream, UntilFullStopsWithAutomaticStopAndCountsOverruns) {
  Create(POSIX_TRACE_UNTIL_FULL, 10);  // 9 events, one slot kept for STOP
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.full", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 1; i <= 8; ++i) posix_trace_event(id, &i, sizeof i);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_FULL);
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  int lost = 99;
  posix_trace_event(id, &lost, sizeof lost);  // generated while full
  s = Status();
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_OVERRUN);
  EXPECT_EQ(Status().posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  auto events = Drain(trid_);
  // START, the 8 events, the automatic STOP; then (drained) the stream restarted with a START.
  ASSERT_EQ(events.size(), 11u);
  EXPECT_EQ(events[0].info.posix_event_id, POSIX_TRACE_START);
  for (int i = 1; i <= 8; ++i) EXPECT_EQ(IntData(events[i]), i);
  EXPECT_EQ(events[9].info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_NE(IntData(events[9]), 0);  // automatic
  EXPECT_EQ(events[10].info.posix_event_id, POSIX_TRACE_START);
}

// POSIX (stream-full-policy UNTIL_FULL): "The trace system shall restart the trace stream when it
// is empty [...]. A POSIX_TRACE_START trace event shall be reported before reporting the next
// recorded trace event." Not before it is empty: a partly read stream stays stopped.
TEST_F(Stream, UntilFullRestartsOnceDrainedWithStartBeforeTheNextEvent) {
  Create(POSIX_TRACE_UNTIL_FULL, 10);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.restart", &id), 0);
  trace_event_set_t filter;
  ASSERT_EQ(posix_trace_eventset_empty(&filter), 0);
  trace_event_id_t other;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.restart.filtered", &other), 0);
  ASSERT_EQ(posix_trace_eventset_add(other, &filter), 0);
  ASSERT_EQ(posix_trace_set_filter(trid_, &filter, POSIX_TRACE_SET_EVENTSET), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 1; i <= 8; ++i) posix_trace_event(id, &i, sizeof i);
  ASSERT_EQ(Status().posix_stream_status, POSIX_TRACE_SUSPENDED);

  // Half read: not empty, so still stopped, and an event now is lost (an overrun).
  posix_trace_event_info info;
  int value = 0;
  size_t len = 0;
  int unavailable = 1;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, &value, sizeof value, &len, &unavailable),
              0);
    ASSERT_EQ(unavailable, 0);
  }
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_FULL);
  int lost = 100;
  posix_trace_event(id, &lost, sizeof lost);
  EXPECT_EQ(Status().posix_stream_overrun_status, POSIX_TRACE_OVERRUN);

  auto rest = Drain(trid_);  // 5..8, the automatic STOP, then the START of the restart
  ASSERT_EQ(rest.size(), 6u);
  EXPECT_EQ(IntData(rest[0]), 5);
  EXPECT_EQ(rest[4].info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_EQ(rest[5].info.posix_event_id, POSIX_TRACE_START);
  trace_event_set_t start_filter;
  ASSERT_EQ(rest[5].data.size(), sizeof start_filter);  // START carries the filter
  std::memcpy(&start_filter, rest[5].data.data(), sizeof start_filter);
  int member = 0;
  ASSERT_EQ(posix_trace_eventset_ismember(other, &start_filter, &member), 0);
  EXPECT_EQ(member, 1);
  s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_RUNNING);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_NOT_FULL);

  // Running again: events are recorded, and it stops itself again when full.
  for (int i = 11; i <= 30; ++i) posix_trace_event(id, &i, sizeof i);
  auto again = Drain(trid_);
  ASSERT_EQ(again.size(), 11u);  // the START was read: 9 user events fit, then STOP, START
  EXPECT_EQ(IntData(again[0]), 11);
  EXPECT_EQ(IntData(again[8]), 19);
  EXPECT_EQ(again[9].info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_NE(IntData(again[9]), 0);
  EXPECT_EQ(again[10].info.posix_event_id, POSIX_TRACE_START);
}

TEST_F(Stream, UntilFullStoppedExplicitlyWhileFullStaysStoppedWhenDrained) {
  Create(POSIX_TRACE_UNTIL_FULL, 10);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.explicit", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 1; i <= 8; ++i) posix_trace_event(id, &i, sizeof i);
  // Full: start records nothing and changes nothing; stop records nothing either.
  ASSERT_EQ(posix_trace_start(trid_), 0);
  ASSERT_EQ(posix_trace_stop(trid_), 0);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_FULL);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 10u);  // START, 1..8, the automatic STOP: no START, no second STOP
  EXPECT_EQ(events.back().info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_NE(IntData(events.back()), 0);
  EXPECT_EQ(Status().posix_stream_status, POSIX_TRACE_SUSPENDED);
  int later = 50;
  posix_trace_event(id, &later, sizeof later);
  EXPECT_TRUE(Drain(trid_).empty());
  // An explicit start works again once there is room.
  ASSERT_EQ(posix_trace_start(trid_), 0);
  posix_trace_event(id, &later, sizeof later);
  events = Drain(trid_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].info.posix_event_id, POSIX_TRACE_START);
  EXPECT_EQ(IntData(events[1]), 50);
}

// XSH posix_trace_clear: "the trace stream status shall remain unchanged (that is, if it was
// running, it remains running and if it was suspended, it remains suspended)"; the full status
// becomes NOT_FULL. Seed 003: SUSPENDED + NOT_FULL is a stream "the posix_trace_clear subroutine
// cleared".
TEST_F(Stream, UntilFullStoppedStreamStaysSuspendedWhenCleared) {
  Create(POSIX_TRACE_UNTIL_FULL, 10);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.clear", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 1; i <= 12; ++i) posix_trace_event(id, &i, sizeof i);
  posix_trace_status_info full = Status();
  ASSERT_EQ(full.posix_stream_status, POSIX_TRACE_SUSPENDED);
  ASSERT_EQ(full.posix_stream_full_status, POSIX_TRACE_FULL);
  ASSERT_EQ(posix_trace_clear(trid_), 0);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  int value = 7;
  posix_trace_event(id, &value, sizeof value);  // suspended: not recorded
  EXPECT_TRUE(Drain(trid_).empty());
  EXPECT_EQ(Status().posix_stream_status, POSIX_TRACE_SUSPENDED);  // reading does not restart it
  EXPECT_EQ(Status().posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  value = 8;
  posix_trace_event(id, &value, sizeof value);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].info.posix_event_id, POSIX_TRACE_START);
  EXPECT_EQ(IntData(events[1]), 8);
}

TEST_F(Stream, ExplicitlySuspendedStreamStaysSuspendedWhenCleared) {
  Create(POSIX_TRACE_UNTIL_FULL, 10);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.clear", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  int value = 1;
  posix_trace_event(id, &value, sizeof value);
  ASSERT_EQ(posix_trace_stop(trid_), 0);
  ASSERT_EQ(posix_trace_clear(trid_), 0);
  EXPECT_EQ(Status().posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_TRUE(Drain(trid_).empty());
}

TEST_F(Stream, StreamSizeOverEventSizeIsTheNumberOfEventsKept) {
  ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr_, 16), 0);
  size_t event_size = 0;
  ASSERT_EQ(posix_trace_attr_getmaxusereventsize(&attr_, 16, &event_size), 0);
  ASSERT_EQ(posix_trace_attr_setstreamsize(&attr_, 6 * event_size), 0);
  ASSERT_EQ(posix_trace_create(0, &attr_, &trid_), 0);  // LOOP
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.size", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 0; i < 20; ++i) posix_trace_event(id, &i, sizeof i);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 2u + 6u);  // OVERFLOW, RESUME, the newest 6
  EXPECT_EQ(IntData(events[2]), 14);
  EXPECT_EQ(IntData(events.back()), 19);
}

TEST_F(Stream, FlushPolicyWithoutLogIsInvalid) {
  ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr_, POSIX_TRACE_FLUSH), 0);
  EXPECT_EQ(posix_trace_create(0, &attr_, &trid_), EINVAL);
  trid_ = 0;
}

TEST_F(Stream, TruncationOnRecordAndOnRead) {
  Create(POSIX_TRACE_LOOP, 64);  // max data 16
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.trunc", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  char big[40];
  for (int i = 0; i < 40; ++i) big[i] = static_cast<char>('a' + i % 26);
  posix_trace_event(id, big, sizeof big);
  posix_trace_event(id, big, 8);
  posix_trace_event(id, big, 16);
  posix_trace_event_info info{};
  char buf[64];
  size_t len = 0;
  int unavailable = 0;
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, sizeof buf, &len, &unavailable), 0);
  ASSERT_EQ(info.posix_event_id, POSIX_TRACE_START);
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, sizeof buf, &len, &unavailable), 0);
  EXPECT_EQ(len, 16u);
  EXPECT_EQ(std::memcmp(buf, big, 16), 0);
  EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_RECORD);
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, 4, &len, &unavailable), 0);
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_READ);
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, 16, &len, &unavailable), 0);
  EXPECT_EQ(len, 16u);
  EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);  // exactly max data
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, sizeof buf, &len, &unavailable), 0);
  EXPECT_NE(unavailable, 0);
}

TEST_F(Stream, TruncatedReadOverridesTruncatedRecord) {
  Create(POSIX_TRACE_LOOP, 64);  // max data 16
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.trunc2", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  char big[40] = {1, 2, 3, 4, 5};
  posix_trace_event(id, big, sizeof big);  // cut to 16: TRUNCATED_RECORD
  posix_trace_event_info info{};
  char buf[4];
  size_t len = 0;
  int unavailable = 0;
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, sizeof buf, &len, &unavailable), 0);
  ASSERT_EQ(info.posix_event_id, POSIX_TRACE_START);
  ASSERT_EQ(posix_trace_trygetnext_event(trid_, &info, buf, sizeof buf, &len, &unavailable), 0);
  EXPECT_EQ(info.posix_event_id, id);
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(std::memcmp(buf, big, 4), 0);
  EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_READ);
}

TEST_F(Stream, FilterSetAddSubAndFilterEvent) {
  Create(POSIX_TRACE_LOOP, 64);
  trace_event_id_t a, b;
  ASSERT_EQ(posix_trace_trid_eventid_open(trid_, "stream.filter.a", &a), 0);
  ASSERT_EQ(posix_trace_trid_eventid_open(trid_, "stream.filter.b", &b), 0);
  trace_event_id_t local_a;
  ASSERT_EQ(posix_trace_eventid_open("stream.filter.a", &local_a), 0);
  EXPECT_EQ(local_a, a);  // one process: the traced and the controller ids agree
  trace_event_set_t set;
  ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
  ASSERT_EQ(posix_trace_eventset_add(a, &set), 0);
  ASSERT_EQ(posix_trace_set_filter(trid_, &set, POSIX_TRACE_SET_EVENTSET), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  posix_trace_event(a, nullptr, 0);  // filtered out
  posix_trace_event(b, nullptr, 0);
  ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
  ASSERT_EQ(posix_trace_eventset_add(b, &set), 0);
  ASSERT_EQ(posix_trace_set_filter(trid_, &set, POSIX_TRACE_ADD_EVENTSET), 0);  // a and b
  posix_trace_event(a, nullptr, 0);
  posix_trace_event(b, nullptr, 0);
  ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
  ASSERT_EQ(posix_trace_eventset_add(a, &set), 0);
  ASSERT_EQ(posix_trace_set_filter(trid_, &set, POSIX_TRACE_SUB_EVENTSET), 0);  // b only
  posix_trace_event(a, nullptr, 0);
  posix_trace_event(b, nullptr, 0);
  trace_event_set_t now;
  ASSERT_EQ(posix_trace_get_filter(trid_, &now), 0);
  int member = -1;
  ASSERT_EQ(posix_trace_eventset_ismember(b, &now, &member), 0);
  EXPECT_EQ(member, 1);
  ASSERT_EQ(posix_trace_eventset_ismember(a, &now, &member), 0);
  EXPECT_EQ(member, 0);
  auto events = Drain(trid_);
  std::vector<trace_event_id_t> ids;
  for (auto& e : events) ids.push_back(e.info.posix_event_id);
  // a filtered; then a and b; then only b.
  std::vector<trace_event_id_t> expected = {POSIX_TRACE_START, b, POSIX_TRACE_FILTER,
                                            POSIX_TRACE_FILTER, a};
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(events[2].data.size(), 2 * sizeof(trace_event_set_t));
  EXPECT_EQ(posix_trace_set_filter(trid_, &set, 42), EINVAL);
}

TEST_F(Stream, EventTypeListNamesAndUnnamedUserEvent) {
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid_), 0);
  trace_event_id_t x;
  ASSERT_EQ(posix_trace_trid_eventid_open(trid_, "stream.types.x", &x), 0);
  trace_event_id_t again;
  ASSERT_EQ(posix_trace_trid_eventid_open(trid_, "stream.types.x", &again), 0);
  EXPECT_EQ(x, again);
  EXPECT_NE(posix_trace_eventid_equal(trid_, x, again), 0);
  EXPECT_EQ(posix_trace_eventid_equal(trid_, x, POSIX_TRACE_START), 0);
  bool saw_x = false, saw_start = false;
  int count = 0;
  for (;;) {
    trace_event_id_t id;
    int unavailable = 0;
    ASSERT_EQ(posix_trace_eventtypelist_getnext_id(trid_, &id, &unavailable), 0);
    if (unavailable) break;
    saw_x = saw_x || id == x;
    saw_start = saw_start || id == POSIX_TRACE_START;
    ++count;
  }
  EXPECT_TRUE(saw_x);
  EXPECT_TRUE(saw_start);
  ASSERT_EQ(posix_trace_eventtypelist_rewind(trid_), 0);
  trace_event_id_t first;
  int unavailable = 1;
  ASSERT_EQ(posix_trace_eventtypelist_getnext_id(trid_, &first, &unavailable), 0);
  EXPECT_EQ(unavailable, 0);
  EXPECT_EQ(NameOf(trid_, POSIX_TRACE_UNNAMED_USER_EVENT), "posix_trace_unnamed_userevent");
  std::string long_name(TRACE_EVENT_NAME_MAX + 1, 'n');
  EXPECT_EQ(posix_trace_trid_eventid_open(trid_, long_name.c_str(), &x), ENAMETOOLONG);
  EXPECT_EQ(posix_trace_eventid_get_name(trid_, 400, nullptr), EINVAL);
  char name[TRACE_EVENT_NAME_MAX + 1];
  EXPECT_EQ(posix_trace_eventid_get_name(trid_, 300, name), EINVAL);
}

// The names of the predefined event types, as XSH 2.11.3 spells them.
TEST_F(Stream, SystemEventTypesHaveTheStandardsNames) {
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid_), 0);
  const std::pair<trace_event_id_t, const char*> expected[] = {
      {POSIX_TRACE_ERROR, "posix_trace_error"},
      {POSIX_TRACE_START, "posix_trace_start"},
      {POSIX_TRACE_STOP, "posix_trace_stop"},
      {POSIX_TRACE_OVERFLOW, "posix_trace_overflow"},
      {POSIX_TRACE_RESUME, "posix_trace_resume"},
      {POSIX_TRACE_FILTER, "posix_trace_filter"},
      {POSIX_TRACE_FLUSH_START, "posix_trace_flush_start"},
      {POSIX_TRACE_FLUSH_STOP, "posix_trace_flush_stop"},
      {POSIX_TRACE_UNNAMED_USEREVENT, "posix_trace_unnamed_userevent"},
  };
  for (const auto& [id, name] : expected) EXPECT_EQ(NameOf(trid_, id), name) << id;
}

// XSH posix_trace_eventtypelist_getnext_id: the list holds "the trace event type identifiers of
// all the trace event types defined ... for the traced process", so a type the process opens
// after the stream was created is listed at once, before any event of it is recorded.
TEST_F(Stream, TypeOpenedAfterTheStreamWasCreatedIsListed) {
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid_), 0);
  trace_event_id_t late = 0;
  ASSERT_EQ(posix_trace_eventid_open("stream.types.late", &late), 0);
  // Listed, with the id the process uses (a stream of this process).
  EXPECT_EQ(ListedId(trid_, "stream.types.late"), static_cast<long>(late));
}

TEST(EventIdOpen, SameNameSameIdAndUnnamedPastTheLimit) {
  trace_event_id_t a, b;
  ASSERT_EQ(posix_trace_eventid_open("idopen.same", &a), 0);
  ASSERT_EQ(posix_trace_eventid_open("idopen.same", &b), 0);
  EXPECT_EQ(a, b);
  std::string name(TRACE_EVENT_NAME_MAX, 'x');
  EXPECT_EQ(posix_trace_eventid_open(name.c_str(), &a), 0);
  name.push_back('x');
  EXPECT_EQ(posix_trace_eventid_open(name.c_str(), &a), ENAMETOOLONG);
  EXPECT_EQ(posix_trace_eventid_open(nullptr, &a), EINVAL);
  trace_event_id_t last = 0;
  for (int i = 0; i < TRACE_USER_EVENT_MAX + 2; ++i) {
    std::string n = "idopen.many." + std::to_string(i);
    ASSERT_EQ(posix_trace_eventid_open(n.c_str(), &last), 0);
  }
  EXPECT_EQ(last, POSIX_TRACE_UNNAMED_USER_EVENT);
  EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_UNNAMED_USER_EVENT);
}

TEST_F(Stream, BlockedReaderIsWokenByAnotherThread) {
  Create(POSIX_TRACE_LOOP, 64);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.block", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  auto start = Drain(trid_);
  ASSERT_EQ(start.size(), 1u);
  std::thread writer([id] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int v = 7;
    posix_trace_event(id, &v, sizeof v);
  });
  posix_trace_event_info info{};
  int v = 0;
  size_t len = 0;
  int unavailable = 1;
  ASSERT_EQ(posix_trace_getnext_event(trid_, &info, &v, sizeof v, &len, &unavailable), 0);
  writer.join();
  EXPECT_EQ(unavailable, 0);
  EXPECT_EQ(v, 7);
  EXPECT_EQ(info.posix_event_id, id);
}

TEST_F(Stream, TimedReadTimesOutAtAnAbsoluteDeadline) {
  Create(POSIX_TRACE_LOOP, 64);
  posix_trace_event_info info{};
  size_t len = 0;
  int unavailable = 0;
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  auto begin = std::chrono::steady_clock::now();
  deadline.tv_nsec += 150 * 1000 * 1000;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_nsec -= 1000000000L;
    ++deadline.tv_sec;
  }
  EXPECT_EQ(posix_trace_timedgetnext_event(trid_, &info, nullptr, 0, &len, &unavailable, &deadline),
            ETIMEDOUT);
  EXPECT_NE(unavailable, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(140));
  timespec bad{0, 2000000000L};
  EXPECT_EQ(posix_trace_timedgetnext_event(trid_, &info, nullptr, 0, &len, &unavailable, &bad),
            EINVAL);
}

TEST_F(Stream, ShutdownWakesBlockedReaderWithEinval) {
  Create(POSIX_TRACE_LOOP, 64);
  int rc = -1;
  std::thread reader([&] {
    posix_trace_event_info info{};
    size_t len = 0;
    int unavailable = 0;
    rc = posix_trace_getnext_event(trid_, &info, nullptr, 0, &len, &unavailable);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(posix_trace_shutdown(trid_), 0);
  reader.join();
  EXPECT_EQ(rc, EINVAL);
  EXPECT_EQ(posix_trace_start(trid_), EINVAL);  // the handle is gone
  trid_ = 0;
}

TEST_F(Stream, ClearDropsEventsAndResetsFullAndOverrun) {
  Create(POSIX_TRACE_LOOP, 10);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.test.clear", &id), 0);
  ASSERT_EQ(posix_trace_start(trid_), 0);
  for (int i = 0; i < 30; ++i) posix_trace_event(id, &i, sizeof i);
  ASSERT_EQ(posix_trace_clear(trid_), 0);
  posix_trace_status_info s = Status();
  EXPECT_EQ(s.posix_stream_status, POSIX_TRACE_RUNNING);  // state unchanged
  EXPECT_EQ(s.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
  EXPECT_EQ(s.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  EXPECT_TRUE(Drain(trid_).empty());
  int v = 5;
  posix_trace_event(id, &v, sizeof v);
  auto events = Drain(trid_);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(IntData(events[0]), 5);
}

TEST(Controller, InvalidHandlesAndArguments) {
  const trace_id_t bogus = 987654;
  posix_trace_status_info s;
  trace_attr_t attr;
  trace_event_set_t set{};
  EXPECT_EQ(posix_trace_start(bogus), EINVAL);
  EXPECT_EQ(posix_trace_stop(bogus), EINVAL);
  EXPECT_EQ(posix_trace_shutdown(bogus), EINVAL);
  EXPECT_EQ(posix_trace_clear(bogus), EINVAL);
  EXPECT_EQ(posix_trace_flush(bogus), EINVAL);
  EXPECT_EQ(posix_trace_get_attr(bogus, &attr), EINVAL);
  EXPECT_EQ(posix_trace_get_status(bogus, &s), EINVAL);
  EXPECT_EQ(posix_trace_get_filter(bogus, &set), EINVAL);
  EXPECT_EQ(posix_trace_set_filter(bogus, &set, POSIX_TRACE_SET_EVENTSET), EINVAL);
  trace_event_id_t id;
  EXPECT_EQ(posix_trace_trid_eventid_open(bogus, "x", &id), EINVAL);
  EXPECT_EQ(posix_trace_eventtypelist_rewind(bogus), EINVAL);
  int unavailable;
  EXPECT_EQ(posix_trace_eventtypelist_getnext_id(bogus, &id, &unavailable), EINVAL);
  posix_trace_event_info info;
  size_t len;
  EXPECT_EQ(posix_trace_getnext_event(bogus, &info, nullptr, 0, &len, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_trygetnext_event(bogus, &info, nullptr, 0, &len, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_rewind(bogus), EINVAL);
  EXPECT_EQ(posix_trace_close(bogus), EINVAL);
  trace_id_t trid;
  EXPECT_EQ(posix_trace_create(0, nullptr, nullptr), EINVAL);
  trace_attr_t uninitialized{};
  EXPECT_EQ(posix_trace_create(0, &uninitialized, &trid), EINVAL);
  EXPECT_EQ(posix_trace_create_withlog(0, nullptr, -1, &trid), EBADF);
  EXPECT_EQ(posix_trace_create_withlog(0, nullptr, 12345, &trid), EBADF);
}

TEST(Controller, FlushWithoutLogAndCloseOfActiveStreamAreInvalid) {
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid), 0);
  EXPECT_EQ(posix_trace_flush(trid), EINVAL);
  EXPECT_EQ(posix_trace_close(trid), EINVAL);
  EXPECT_EQ(posix_trace_rewind(trid), EINVAL);
  EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

TEST(Controller, AtMostTraceSysMaxStreamsTraceOneProcess) {
  std::vector<trace_id_t> trids(TRACE_SYS_MAX);
  for (auto& trid : trids) ASSERT_EQ(posix_trace_create(0, nullptr, &trid), 0);
  trace_id_t one_more;
  EXPECT_EQ(posix_trace_create(0, nullptr, &one_more), EAGAIN);
  for (auto trid : trids) EXPECT_EQ(posix_trace_shutdown(trid), 0);
  ASSERT_EQ(posix_trace_create(0, nullptr, &one_more), 0);  // the slots are free again
  EXPECT_EQ(posix_trace_shutdown(one_more), 0);
}

TEST(Controller, EveryStreamOfAProcessGetsItsEvents) {
  trace_id_t first, second;
  ASSERT_EQ(posix_trace_create(0, nullptr, &first), 0);
  ASSERT_EQ(posix_trace_create(0, nullptr, &second), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.two", &id), 0);
  ASSERT_EQ(posix_trace_start(first), 0);
  ASSERT_EQ(posix_trace_start(second), 0);
  int v = 42;
  posix_trace_event(id, &v, sizeof v);
  for (trace_id_t trid : {first, second}) {
    auto events = Drain(trid);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(IntData(events[1]), 42);
    EXPECT_EQ(posix_trace_shutdown(trid), 0);
  }
}

TEST(Controller, ReadArgumentsAreChecked) {
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(0, nullptr, &trid), 0);
  posix_trace_event_info info;
  size_t len;
  int unavailable;
  EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, nullptr, 8, &len, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_trygetnext_event(trid, nullptr, nullptr, 0, &len, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, nullptr, 0, nullptr, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_timedgetnext_event(trid, &info, nullptr, 0, &len, &unavailable, nullptr),
            EINVAL);
  EXPECT_EQ(posix_trace_get_status(trid, nullptr), EINVAL);
  EXPECT_EQ(posix_trace_get_filter(trid, nullptr), EINVAL);
  EXPECT_EQ(posix_trace_set_filter(trid, nullptr, POSIX_TRACE_SET_EVENTSET), EINVAL);
  EXPECT_EQ(posix_trace_get_attr(trid, nullptr), EINVAL);
  EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

// Writers lap a small LOOP ring while a reader drains it: what is read is never torn, each
// thread's events come in order, and every loss is reported as OVERFLOW then RESUME.
TEST(Controller, ConcurrentReaderOfAWrappingLoopStream) {
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setmaxdatasize(&attr, 16);
  posix_trace_attr_setstreamsize(&attr, StreamSizeForSlots(32));
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.concurrent", &id), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  constexpr int kThreads = 3;
  constexpr int kPerThread = 20000;
  std::atomic<int> running{kThreads};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        int64_t v[2] = {t, i};  // both halves must agree with each other when read
        v[1] = static_cast<int64_t>(t) * 1000000 + i;
        posix_trace_event(id, v, sizeof v);
      }
      running.fetch_sub(1);
    });
  }
  std::vector<int64_t> last(kThreads, -1);
  int overflows = 0;
  bool expect_resume = false;
  size_t user = 0;
  auto check = [&](const ReadEvent& e) {
    if (expect_resume) {
      EXPECT_EQ(e.info.posix_event_id, POSIX_TRACE_RESUME);
      expect_resume = false;
      return;
    }
    if (e.info.posix_event_id == POSIX_TRACE_OVERFLOW) {
      ++overflows;
      expect_resume = true;
      return;
    }
    if (e.info.posix_event_id != id) return;
    ASSERT_EQ(e.data.size(), 16u);
    int64_t v[2];
    std::memcpy(v, e.data.data(), sizeof v);
    ASSERT_GE(v[0], 0);
    ASSERT_LT(v[0], kThreads);
    int64_t i = v[1] - v[0] * 1000000;
    ASSERT_GE(i, 0);
    ASSERT_LT(i, kPerThread);
    EXPECT_GT(i, last[v[0]]);
    last[v[0]] = i;
    ++user;
  };
  while (running.load() > 0) {
    for (auto& e : Drain(trid)) check(e);
  }
  for (auto& writer : writers) writer.join();
  for (auto& e : Drain(trid)) check(e);
  EXPECT_GT(user, 0u);
  if (user < static_cast<size_t>(kThreads) * kPerThread) {
    EXPECT_GT(overflows, 0);
  }
  posix_trace_shutdown(trid);
}

TEST(Controller, TracingAProcessThatDoesNotExist) {
  trace_id_t trid;
  EXPECT_EQ(posix_trace_create(999999999, nullptr, &trid), ESRCH);
  // "[ESRCH] The pid argument does not refer to an existing process": no negative pid does.
  EXPECT_EQ(posix_trace_create(-5, nullptr, &trid), ESRCH);
  EXPECT_EQ(posix_trace_create(0, nullptr, nullptr), EINVAL);
}

TEST(Controller, ManyThreadsRecordEveryEventOnce) {
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setstreamsize(&attr, 4 << 20);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("stream.threads", &id), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([id, t] {
      for (int i = 0; i < 2000; ++i) {
        int v = t * 10000 + i;
        posix_trace_event(id, &v, sizeof v);
      }
    });
  }
  for (auto& t : threads) t.join();
  auto events = Drain(trid);
  std::vector<int> next(4, 0);
  size_t user = 0;
  for (auto& e : events) {
    if (e.info.posix_event_id != id) continue;
    int v = IntData(e);
    EXPECT_EQ(v % 10000, next[v / 10000]++);  // per thread, in order, none missing
    ++user;
  }
  EXPECT_EQ(user, 8000u);
  posix_trace_shutdown(trid);
}

}  // namespace
}  // namespace rastrace::posix::testing
