// Tracing across processes: INHERITED streams across fork, another process traced by pid, and
// the owner-only shared memory behind them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "common/wait_or_kill.h"
#include "posix/test_util.h"

namespace rastrace::posix::testing {
namespace {

// The child's exit code (128 + signal when killed); a child still running after a minute is
// killed and reported (-2).
int WaitChild(pid_t child) {
  const std::optional<int> status = WaitOrKill(child, std::chrono::minutes(1));
  if (!status) {
    ADD_FAILURE() << "child " << child << " still running after 60 s (or lost): killed";
    return -2;
  }
  return WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
}

trace_id_t CreateStarted(int inheritance) {
  trace_attr_t attr;
  posix_trace_attr_init(&attr);
  posix_trace_attr_setinherited(&attr, inheritance);
  trace_id_t trid = 0;
  EXPECT_EQ(posix_trace_create(0, &attr, &trid), 0);
  EXPECT_EQ(posix_trace_start(trid), 0);
  return trid;
}

TEST(Fork, InheritedStreamRecordsTheChildsEvents) {
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("fork.inherited", &id), 0);
  trace_id_t trid = CreateStarted(POSIX_TRACE_INHERITED);
  int parent_value = 1;
  posix_trace_event(id, &parent_value, sizeof parent_value);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int v = 2;
    posix_trace_event(id, &v, sizeof v);
    trace_event_id_t late;  // a name first opened in the child still gets its own type
    posix_trace_eventid_open("fork.child.only", &late);
    v = 3;
    posix_trace_event(late, &v, sizeof v);
    // The parent's handle is not valid in the child.
    _exit(posix_trace_start(trid) == EINVAL ? 0 : 1);
  }
  ASSERT_EQ(WaitChild(child), 0);
  auto events = Drain(trid);
  std::vector<std::pair<int, pid_t>> seen;
  for (auto& e : events) {
    if (e.info.posix_event_id >= 16) seen.emplace_back(IntData(e), e.info.posix_pid);
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(1, getpid()));
  EXPECT_EQ(seen[1], std::make_pair(2, child));
  EXPECT_EQ(seen[2], std::make_pair(3, child));
  EXPECT_EQ(NameOf(trid, events.back().info.posix_event_id), "fork.child.only");
  posix_trace_shutdown(trid);
}

TEST(Fork, ChildExitDoesNotTouchTheParentsLog) {
  char name[] = "/tmp/posix_fork_log.XXXXXX";
  int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create_withlog(0, nullptr, fd, &trid), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  off_t before = lseek(fd, 0, SEEK_CUR);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) exit(0);  // runs the static destructors of the child
  ASSERT_EQ(WaitChild(child), 0);
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), before);  // the child wrote nothing to the shared offset
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  close(fd);
  unlink(name);
}

TEST(Fork, CloseForChildStopsAtTheFork) {
  trace_event_id_t id;
  ASSERT_EQ(posix_trace_eventid_open("fork.closed", &id), 0);
  trace_id_t trid = CreateStarted(POSIX_TRACE_CLOSE_FOR_CHILD);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int v = 2;
    posix_trace_event(id, &v, sizeof v);
    _exit(0);
  }
  ASSERT_EQ(WaitChild(child), 0);
  int v = 1;
  posix_trace_event(id, &v, sizeof v);
  auto events = Drain(trid);
  size_t user = 0;
  for (auto& e : events) {
    if (e.info.posix_event_id >= 16) {
      ++user;
      EXPECT_EQ(e.info.posix_pid, getpid());
    }
  }
  EXPECT_EQ(user, 1u);
  posix_trace_shutdown(trid);
}

// A child that uses the library waits for the go byte, records `count` events, and exits.
pid_t SpawnTracedChild(int count, int (&go)[2], int (&done)[2]) {
  EXPECT_EQ(pipe(go), 0);
  EXPECT_EQ(pipe(done), 0);
  pid_t child = fork();
  if (child == 0) {
    alarm(20);  // never outlive a broken test
    close(go[1]);
    close(done[0]);
    trace_event_id_t id;
    posix_trace_eventid_open("remote.event", &id);
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(2);
    for (int i = 0; i < count; ++i) posix_trace_event(id, &i, sizeof i);
    if (write(done[1], "x", 1) != 1) _exit(3);
    if (read(go[0], &byte, 1) < 0) _exit(4);  // stay alive until told
    _exit(0);
  }
  return child;
}

TEST(OtherProcess, ControllerTracesAProcessByPid) {
  int go[2], done[2];
  pid_t child = SpawnTracedChild(5, go, done);
  ASSERT_GT(child, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the child's registry exists
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(child, nullptr, &trid), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  ASSERT_EQ(write(go[1], "g", 1), 1);
  char byte;
  ASSERT_EQ(read(done[0], &byte, 1), 1);
  auto events = Drain(trid);
  int next = 0;
  for (auto& e : events) {
    if (e.info.posix_event_id < 16) continue;
    EXPECT_EQ(e.info.posix_pid, child);
    EXPECT_EQ(NameOf(trid, e.info.posix_event_id), "remote.event");
    EXPECT_EQ(IntData(e), next++);
  }
  EXPECT_EQ(next, 5);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  close(go[1]);
  EXPECT_EQ(WaitChild(child), 0);
  close(go[0]);
  close(done[0]);
  close(done[1]);
}

// The type list of a stream tracing another process holds the types that process opened before
// the stream was created and those it opens later, before it records any event of them.
TEST(OtherProcess, TypeListHoldsTheTypesTheProcessOpened) {
  int go[2], done[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);
    close(go[1]);
    close(done[0]);
    trace_event_id_t id;
    if (posix_trace_eventid_open("remote.before", &id) != 0) _exit(2);
    if (write(done[1], "r", 1) != 1) _exit(3);
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(4);
    if (posix_trace_eventid_open("remote.after", &id) != 0) _exit(5);
    if (write(done[1], "o", 1) != 1) _exit(6);
    if (read(go[0], &byte, 1) < 0) _exit(7);  // stay alive until told
    _exit(0);
  }
  close(go[0]);
  close(done[1]);
  char byte;
  ASSERT_EQ(read(done[0], &byte, 1), 1);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(child, nullptr, &trid), 0);
  EXPECT_GE(ListedId(trid, "remote.before"), 0);
  EXPECT_EQ(ListedId(trid, "remote.after"), -1);
  ASSERT_EQ(write(go[1], "g", 1), 1);
  ASSERT_EQ(read(done[0], &byte, 1), 1);
  EXPECT_GE(ListedId(trid, "remote.after"), 0);
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  close(go[1]);
  EXPECT_EQ(WaitChild(child), 0);
  close(done[0]);
}

TEST(OtherProcess, TracingByPidContinuesAcrossExec) {
  const char* bin = std::getenv("RASTRACE_BIN");
  std::string example = bin ? std::string(bin) + "/posix-trace-example" : "";
  if (example.empty() || access(example.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "posix-trace-example not built (RASTRACE_BIN): no program to exec";
  }
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);
    close(go[1]);
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(2);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    execl(example.c_str(), example.c_str(), static_cast<char*>(nullptr));
    _exit(3);
  }
  close(go[0]);
  trace_id_t trid;
  ASSERT_EQ(posix_trace_create(child, nullptr, &trid), 0);
  ASSERT_EQ(posix_trace_start(trid), 0);
  ASSERT_EQ(write(go[1], "g", 1), 1);
  EXPECT_EQ(WaitChild(child), 0);
  int begins = 0;
  for (auto& e : Drain(trid)) {
    if (NameOf(trid, e.info.posix_event_id) == "work.begin") {
      EXPECT_EQ(e.info.posix_pid, child);
      ++begins;
    }
  }
  EXPECT_EQ(begins, 3);  // recorded by the program the child became
  ASSERT_EQ(posix_trace_shutdown(trid), 0);
  close(go[1]);
}

TEST(OtherProcess, RegistryIsReadableOnlyByItsOwner) {
  std::string path = "/dev/shm/rastrace-posix." + std::to_string(getpid());
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) GTEST_SKIP() << "no /dev/shm: streams stay in-process";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, geteuid());
}

TEST(OtherProcess, AnotherUsersProcessCannotBeTraced) {
  if (geteuid() == 0) {
    // pid 1 belongs to root here; as root every process is ours, so the check cannot be shown.
    GTEST_SKIP() << "running as root: every process belongs to this user";
  }
  trace_id_t trid;
  int rc = posix_trace_create(1, nullptr, &trid);
  EXPECT_TRUE(rc == EPERM || rc == ESRCH) << rc;
}

}  // namespace
}  // namespace rastrace::posix::testing
