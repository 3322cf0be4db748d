// Where a user's sessions live when nothing says: a large tmpfs (the rings are memory there),
// else the disk directory.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/small_tmpfs.h"
#include "recorder/session_page.h"

namespace rastrace::recorder {
namespace {

std::string Leaf() {
  return "/rastrace-" + std::to_string(geteuid());
}

TEST(SessionDirTest, ALargeTmpfsHoldsTheSessionsWhenNothingElseIsSet) {
  struct statfs fs;
  if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC ||
      static_cast<unsigned long long>(fs.f_blocks) * fs.f_bsize < (1ULL << 30)) {
    GTEST_SKIP() << "/dev/shm is not a tmpfs of at least 1 GiB here";
  }
  EXPECT_EQ(SessionFallbackDir("/dev/shm", "/tmp"), "/dev/shm" + Leaf());
}

TEST(SessionDirTest, ADiskOrAMissingDirectoryFallsBackToTheDiskDirectory) {
  EXPECT_EQ(SessionFallbackDir("/proc", "/tmp"), "/tmp" + Leaf());  // procfs, not a tmpfs
  EXPECT_EQ(SessionFallbackDir("/nonexistent-rastrace-dir", "/var/tmp"), "/var/tmp" + Leaf());
}

TEST(SessionDirTest, ASmallTmpfsIsNotTakenForRingsThatNeedRoom) {
  const auto result = testing::RunWithSmallTmpfs(64 << 20, [](const std::string& dir) {
    return SessionFallbackDir(dir, "/tmp") == "/tmp" + Leaf() ? 0 : 1;
  });
  if (result.unavailable) GTEST_SKIP() << *result.unavailable;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0) << result.status;
}

TEST(SessionDirTest, TheEnvironmentChoosesFirst) {
  const char* saved_session = std::getenv("RASTRACE_SESSION_DIR");
  const char* saved_run = std::getenv("XDG_RUNTIME_DIR");
  const std::string session = saved_session ? saved_session : "";
  const std::string run = saved_run ? saved_run : "";
  setenv("RASTRACE_SESSION_DIR", "/somewhere/sessions", 1);
  setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
  EXPECT_EQ(SessionBaseDir(), "/somewhere/sessions");
  unsetenv("RASTRACE_SESSION_DIR");
  EXPECT_EQ(SessionBaseDir(), "/run/user/4242/rastrace");
  unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(SessionBaseDir(), SessionFallbackDir("/dev/shm", "/tmp"));
  if (saved_session) setenv("RASTRACE_SESSION_DIR", session.c_str(), 1);
  if (saved_run) setenv("XDG_RUNTIME_DIR", run.c_str(), 1);
}

}  // namespace
}  // namespace rastrace::recorder
