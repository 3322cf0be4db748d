// Streams with a log: the log is a rastrace trace log that posix_trace_open reads back.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <trace.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "posix/test_util.h"

namespace rastrace::posix::testing {
namespace {

class TempLog {
 public:
  TempLog() {
    char name[] = "/tmp/posix_log_test.XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
  }
  ~TempLog() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  size_t size() const {
    struct stat st {};
    stat(path_.c_str(), &st);
    return static_cast<size_t>(st.st_size);
  }

 private:
  int fd_ = -1;
  std::string path_;
};

int OpenForRead(const std::string& path) {
  return open(path.c_str(), O_RDONLY);
}

bool IsUser(const ReadEvent& e) {
  return e.info.posix_event_id >= 16;
}

TEST(Log, RoundTripMatchesTheStreamEventByEvent) {
  TempLog log;
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setname(&attr, "roundtrip");
  posix_trace_attr_setmaxdatasize(&attr, 64);
  trace_id_t logged, live;
  ASSERT_EQ(posix_trace_create_withlog(0, &attr, log.fd(), &logged), 0);
  ASSERT_EQ(posix_trace_create(0, &attr, &live), 0);
  trace_event_id_t alpha, beta;
  ASSERT_EQ(posix_trace_eventid_open("log.alpha", &alpha), 0);
  ASSERT_EQ(posix_trace_eventid_open("log.beta", &beta), 0);
  ASSERT_EQ(posix_trace_start(logged), 0);
  ASSERT_EQ(posix_trace_start(live), 0);
  for (int i = 0; i < 50; ++i) {
    char data[80];
    std::memset(data, 'a' + i % 26, sizeof data);
    posix_trace_event(i % 2 ? alpha : beta, data, static_cast<size_t>(i));  // > 64 is cut
  }
  std::thread([alpha] { posix_trace_event(alpha, "thread", 6); }).join();
  auto expected = Drain(live);
  std::vector<std::string> expected_names;
  for (auto& e : expected) {
    if (IsUser(e)) expected_names.push_back(NameOf(live, e.info.posix_event_id));
  }
  ASSERT_EQ(posix_trace_shutdown(logged), 0);
  ASSERT_EQ(posix_trace_shutdown(live), 0);

  int fd = OpenForRead(log.path());
  trace_id_t opened;
  ASSERT_EQ(posix_trace_open(fd, &opened), 0);
  trace_attr_t got;
  ASSERT_EQ(posix_trace_get_attr(opened, &got), 0);
  char name[TRACE_NAME_MAX + 1];
  ASSERT_EQ(posix_trace_attr_getname(&got, name), 0);
  EXPECT_STREQ(name, "roundtrip");
  int policy = 0;
  ASSERT_EQ(posix_trace_attr_getstreamfullpolicy(&got, &policy), 0);
  EXPECT_EQ(policy, POSIX_TRACE_FLUSH);  // the default with a log
  size_t max_data = 0;
  ASSERT_EQ(posix_trace_attr_getmaxdatasize(&got, &max_data), 0);
  EXPECT_EQ(max_data, 64u);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(opened, &status), 0);
  EXPECT_EQ(status.posix_stream_status, POSIX_TRACE_SUSPENDED);
  EXPECT_EQ(status.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  EXPECT_EQ(status.posix_log_overrun_status, POSIX_TRACE_NO_OVERRUN);

  auto all = Drain(opened, /*pre_recorded=*/true);
  std::vector<ReadEvent> user;
  bool flush_start = false, flush_stop = false, start = false, stop = false;
  for (auto& e : all) {
    flush_start |= e.info.posix_event_id == POSIX_TRACE_FLUSH_START;
    flush_stop |= e.info.posix_event_id == POSIX_TRACE_FLUSH_STOP;
    start |= e.info.posix_event_id == POSIX_TRACE_START;
    stop |= e.info.posix_event_id == POSIX_TRACE_STOP;
    if (IsUser(e)) user.push_back(e);
  }
  EXPECT_TRUE(flush_start && flush_stop && start && stop);
  std::vector<ReadEvent> expected_user;
  for (auto& e : expected) {
    if (IsUser(e)) expected_user.push_back(e);
  }
  ASSERT_EQ(user.size(), 51u);
  ASSERT_EQ(user.size(), expected_user.size());
  for (size_t i = 0; i < user.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(NameOf(opened, user[i].info.posix_event_id), expected_names[i]);
    EXPECT_EQ(user[i].data, expected_user[i].data);
    EXPECT_EQ(user[i].info.posix_pid, expected_user[i].info.posix_pid);
    EXPECT_TRUE(pthread_equal(user[i].info.posix_thread_id, expected_user[i].info.posix_thread_id));
    EXPECT_EQ(user[i].info.posix_prog_address, expected_user[i].info.posix_prog_address);
    EXPECT_EQ(user[i].info.posix_truncation_status, expected_user[i].info.posix_truncation_status);
  }
  EXPECT_EQ(NameOf(opened, user[0].info.posix_event_id), "log.beta");
  EXPECT_EQ(NameOf(opened, user[1].info.posix_event_id), "log.alpha");
  EXPECT_EQ(user[49].info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
  EXPECT_EQ(user[49].data.size(), 49u);
  EXPECT_FALSE(pthread_equal(user[50].info.posix_thread_id, pthread_self()));

  // Event types of the log.
  EXPECT_GE(ListedId(opened, "log.alpha"), 0);

  // Rewind reads the same events again; the other readers refuse a log.
  ASSERT_EQ(posix_trace_rewind(opened), 0);
  EXPECT_EQ(Drain(opened, true).size(), all.size());
  posix_trace_event_info info;
  size_t len;
  int unavailable;
  EXPECT_EQ(posix_trace_trygetnext_event(opened, &info, nullptr, 0, &len, &unavailable), EINVAL);
  timespec deadline{time(nullptr) + 1, 0};
  EXPECT_EQ(
      posix_trace_timedgetnext_event(opened, &info, nullptr, 0, &len, &unavailable, &deadline),
      EINVAL);
  EXPECT_EQ(posix_trace_start(opened), EINVAL);
  EXPECT_EQ(posix_trace_shutdown(opened), EINVAL);
  ASSERT_EQ(posix_trace_close(opened), 0);
  EXPECT_EQ(posix_trace_close(opened), EINVAL);
  close(fd);
}

TEST(Log, ActiveStreamWithLogCannotBeReadDirectly) {
  TempLog log;
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create_withlog(0, nullptr, log.fd(), &trid), 0);
  posix_trace_event_info info;
  size_t len;
  int unavailable;
  EXPECT_EQ(posix_trace_getnext_event(trid, &info, nullptr, 0, &len, &unavailable), EINVAL);
  EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

TEST(Log, FlushPolicyDrainsTheStreamWithoutLoss) {
  TempLog log;
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setmaxdatasize(&attr, 16);
  posix_trace_attr_setstreamsize(&attr, StreamSizeForSlots(20));
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create_withlog(0, &attr, log.fd(), &trid), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("log.flush", &id), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  int value = 0;
  for (int round = 0; round < 8; ++round) {
    // 12 events pass the half-full mark (about 10 of 19): the flusher must drain them by itself.
    size_t before = log.size();
    for (int i = 0; i < 12; ++i, ++value) posix_trace_event(id, &value, sizeof value);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (log.size() == before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_GT(log.size(), before) << "round " << round << ": no automatic flush";
    // Let the flush finish before the next round fills the ring again.
    posix_trace_status_info status{};
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
    } while (status.posix_stream_flush_status == POSIX_TRACE_FLUSHING &&
             std::chrono::steady_clock::now() < deadline);
  }
  ASSERT_EQ(posix_trace_flush(trid), 0);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  int fd = OpenForRead(log.path());
  trace_id_t opened;
  ASSERT_EQ(posix_trace_open(fd, &opened), 0);
  int next = 0;
  for (auto& e : Drain(opened, true)) {
    if (e.info.posix_event_id >= 16) {
      EXPECT_EQ(IntData(e), next++);
    }
  }
  EXPECT_EQ(next, 96);
  posix_trace_close(opened);
  close(fd);
}

TEST(Log, FlushReportsFlushingThenTheFirstWriteError) {
  signal(SIGPIPE, SIG_IGN);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create_withlog(0, &attr, pipe_fds[1], &trid), 0);
  close(pipe_fds[0]);  // nobody reads the log any more: writes fail with EPIPE
  ASSERT_EQ(posix_trace_start(trid), 0);
  ASSERT_EQ(posix_trace_flush(trid), 0);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  int error = status.posix_stream_flush_error;
  for (int i = 0; i < 100 && error == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
    error = status.posix_stream_flush_error;
  }
  EXPECT_EQ(error, EPIPE);
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_stream_flush_error, 0);  // reset once read
  EXPECT_EQ(status.posix_stream_flush_status, POSIX_TRACE_NOT_FLUSHING);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  close(pipe_fds[1]);
}

// Records `count` int events (flushing after each batch of 10) into a log of `log_size` bytes.
void RecordIntoLog(int fd, int log_policy, size_t log_size, int count, trace_id_t& trid) {
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setlogfullpolicy(&attr, log_policy);
  posix_trace_attr_setlogsize(&attr, log_size);
  ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("log.policy", &id), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  for (int i = 0; i < count; ++i) {
    posix_trace_event(id, &i, sizeof i);
    if (i % 10 == 9) {
      ASSERT_EQ(posix_trace_flush(trid), 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

std::vector<int> LoggedInts(const std::string& path) {
  int fd = OpenForRead(path);
  trace_id_t opened;
  std::vector<int> values;
  if (posix_trace_open(fd, &opened) != 0) return {-1};
  for (auto& e : Drain(opened, true)) {
    if (e.info.posix_event_id >= 16) values.push_back(IntData(e));
  }
  posix_trace_close(opened);
  close(fd);
  return values;
}

TEST(Log, UntilFullStopsWritingAtTheLogSize) {
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_UNTIL_FULL, 4096, 200, trid);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_log_full_status, POSIX_TRACE_FULL);
  EXPECT_EQ(status.posix_log_overrun_status, POSIX_TRACE_OVERRUN);
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_log_overrun_status, POSIX_TRACE_NO_OVERRUN);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  EXPECT_LE(log.size(), 4096u + 64u);  // the events, then the closing status record
  auto values = LoggedInts(log.path());
  ASSERT_FALSE(values.empty());
  ASSERT_LT(values.size(), 200u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<int>(i));  // oldest
}

// POSIX (log-full-policy UNTIL_FULL): "The last recorded trace event shall be the
// POSIX_TRACE_STOP trace event." The stream stops with it; nothing is recorded after it.
TEST(Log, UntilFullLogEndsWithAnAutomaticStopAndStopsTheStream) {
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_UNTIL_FULL, 4096, 200, trid);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_stream_status, POSIX_TRACE_SUSPENDED);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  int fd = OpenForRead(log.path());
  trace_id_t opened;
  ASSERT_EQ(posix_trace_open(fd, &opened), 0);
  auto events = Drain(opened, true);
  posix_trace_close(opened);
  close(fd);
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.back().info.posix_event_id, POSIX_TRACE_STOP);
  EXPECT_NE(IntData(events.back()), 0);  // automatic
  int stops = 0;
  for (auto& e : events) stops += e.info.posix_event_id == POSIX_TRACE_STOP;
  EXPECT_EQ(stops, 1);
  EXPECT_EQ(events.front().info.posix_event_id, POSIX_TRACE_START);
}

// Stream-full policy UNTIL_FULL with a log: flushing reuses the room like reading does, so the
// stream that stopped itself runs again after a flush, and START precedes the next events.
TEST(Log, UntilFullStreamRestartsAfterAFlush) {
  TempLog log;
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL), 0);
  ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 16), 0);
  ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, StreamSizeForSlots(10)), 0);
  ASSERT_EQ(posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND), 0);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create_withlog(0, &attr, log.fd(), &trid), 0);
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("log.restart", &id), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  for (int i = 0; i < 20; ++i) posix_trace_event(id, &i, sizeof i);  // START and 0..7 fit
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_stream_status, POSIX_TRACE_SUSPENDED);
  ASSERT_EQ(posix_trace_flush(trid), 0);
  for (int tries = 0; tries < 200; ++tries) {
    ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
    if (status.posix_stream_status == POSIX_TRACE_RUNNING) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(status.posix_stream_status, POSIX_TRACE_RUNNING);
  for (int i = 100; i < 103; ++i) posix_trace_event(id, &i, sizeof i);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  int fd = OpenForRead(log.path());
  trace_id_t opened;
  ASSERT_EQ(posix_trace_open(fd, &opened), 0);
  std::vector<int> order;  // user values, with -1 for START and -2 for STOP
  for (auto& e : Drain(opened, true)) {
    if (e.info.posix_event_id == POSIX_TRACE_START) order.push_back(-1);
    if (e.info.posix_event_id == POSIX_TRACE_STOP) order.push_back(-2);
    if (e.info.posix_event_id >= 16) order.push_back(IntData(e));
  }
  posix_trace_close(opened);
  close(fd);
  std::vector<int> expected = {-1, 0, 1, 2, 3, 4, 5, 6, 7, -2, -1, 100, 101, 102, -2};
  EXPECT_EQ(order, expected);
}

TEST(Log, LoopKeepsTheNewestEvents) {
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_LOOP, 4096, 200, trid);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_log_full_status, POSIX_TRACE_FULL);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  EXPECT_LE(log.size(), 4096u + 64u);
  auto values = LoggedInts(log.path());
  ASSERT_FALSE(values.empty());
  ASSERT_LT(values.size(), 200u);
  EXPECT_EQ(values.back(), 199);
  for (size_t i = 1; i < values.size(); ++i) EXPECT_EQ(values[i], values[i - 1] + 1);
}

TEST(Log, AppendIgnoresTheLogSize) {
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_APPEND, 4096, 200, trid);
  posix_trace_status_info status{};
  ASSERT_EQ(posix_trace_get_status(trid, &status), 0);
  EXPECT_EQ(status.posix_log_full_status, POSIX_TRACE_NOT_FULL);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  EXPECT_GT(log.size(), 4096u);
  EXPECT_EQ(LoggedInts(log.path()).size(), 200u);
}

TEST(Log, OpenRejectsWhatIsNotAPosixTraceLog) {
  trace_id_t trid;
  EXPECT_EQ(posix_trace_open(-1, &trid), EBADF);
  EXPECT_EQ(posix_trace_open(0, nullptr), EINVAL);
  TempLog junk;
  ASSERT_EQ(write(junk.fd(), "hello world, no trace log", 25), 25);
  int fd = OpenForRead(junk.path());
  EXPECT_EQ(posix_trace_open(fd, &trid), EINVAL);
  close(fd);
  TempLog bare;  // a trace log with no POSIX stream in it
  const unsigned char magic[4] = {0x14, 0x11, 0xDF, 0xEF};
  ASSERT_EQ(write(bare.fd(), magic, 4), 4);
  fd = OpenForRead(bare.path());
  EXPECT_EQ(posix_trace_open(fd, &trid), EINVAL);
  close(fd);
  int write_only = open(bare.path().c_str(), O_WRONLY);
  EXPECT_EQ(posix_trace_open(write_only, &trid), EBADF);
  close(write_only);
}

TEST(Log, TruncatedLogIsReadUpToItsLastWholeEvent) {
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_APPEND, 1 << 20, 30, trid);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  ASSERT_EQ(truncate(log.path().c_str(), static_cast<off_t>(log.size() - 100)), 0);
  auto values = LoggedInts(log.path());
  ASSERT_GT(values.size(), 20u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<int>(i));
}

// Logs written before the system types had the standard's names (they stored
// "POSIX_TRACE_START", ...) read back with the standard's names.
TEST(Log, OlderLogNamesTheSystemTypesAsTheStandardDoes) {
  std::string path =
      std::string(RASTRACE_SOURCE_DIR) + "/fuzz/corpus/posix_open_fuzzer/example.log";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  trace_id_t trid;
  ASSERT_EQ(posix_trace_open(fd, &trid), 0);
  EXPECT_EQ(NameOf(trid, POSIX_TRACE_START), "posix_trace_start");
  EXPECT_EQ(NameOf(trid, POSIX_TRACE_FILTER), "posix_trace_filter");
  EXPECT_EQ(posix_trace_close(trid), 0);
  close(fd);
}

TEST(Log, TrcrptFormatsAPosixLog) {
  const char* bin = std::getenv("RASTRACE_BIN");
  std::string trcrpt = bin ? std::string(bin) + "/trcrpt" : "";
  if (trcrpt.empty() || access(trcrpt.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "trcrpt not built (RASTRACE_BIN/trcrpt missing): nothing to format with";
  }
  TempLog log;
  trace_id_t trid;
  RecordIntoLog(log.fd(), POSIX_TRACE_APPEND, 1 << 20, 3, trid);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  // The default templates with the POSIX ones appended (until they are merged into trcfmt).
  std::string source = RASTRACE_SOURCE_DIR;
  std::string templates = log.path() + ".trcfmt";
  std::string out = log.path() + ".txt";
  std::string command = "cat " + source + "/templates/trcfmt " + source +
                        "/templates/posix.trcfmt > " + templates + " && " + trcrpt +
                        " -O pid=on,tid=on -t " + templates + " " + log.path() + " > " + out +
                        " 2>&1";
  int rc = std::system(command.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(out.c_str());
  unlink(templates.c_str());
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("posix_trace_start"), std::string::npos) << text;
  EXPECT_NE(text.find("log.policy"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(getpid())), std::string::npos) << text;
}

}  // namespace
}  // namespace rastrace::posix::testing
