#include "session/process_reaper.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace rastrace::session {
namespace {

pid_t SleepingChild() {
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  return child;
}

// Issue #7: the reaper asked about a process that its parent reaped between the open and the read
// of /proc/<pid>/stat; the read failed with ESRCH, the stream threw, and the daemon died.
TEST(ProcessReaper, StatOfAProcessReapedSinceItWasOpenedSaysEnded) {
  const pid_t child = SleepingChild();
  ASSERT_GT(child, 0);
  const int fd = open(("/proc/" + std::to_string(child) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char byte;
  ASSERT_GT(pread(fd, &byte, 1, 0), 0) << "a live process's stat reads";
  EXPECT_FALSE(StatSaysEnded(fd));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  // What the kernel does, and what broke the stream-based check.
  errno = 0;
  EXPECT_LT(pread(fd, &byte, 1, 0), 0);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_TRUE(StatSaysEnded(fd));
  close(fd);
}

TEST(ProcessReaper, LiveZombieAndReapedProcesses) {
  EXPECT_FALSE(ProcessHasEnded(static_cast<uint64_t>(getpid())));
  EXPECT_FALSE(ProcessHasEnded(0));
  const pid_t child = SleepingChild();
  ASSERT_GT(child, 0);
  EXPECT_FALSE(ProcessHasEnded(static_cast<uint64_t>(child)));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  // A zombie until reaped: ended all the same.
  bool zombie_ended = false;
  for (int i = 0; i < 2000 && !zombie_ended; ++i) {
    zombie_ended = ProcessHasEnded(static_cast<uint64_t>(child));
    if (!zombie_ended) usleep(1000);
  }
  EXPECT_TRUE(zombie_ended);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(ProcessHasEnded(static_cast<uint64_t>(child)));
}

}  // namespace
}  // namespace rastrace::session
