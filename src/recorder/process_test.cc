// The recorder across process boundaries: fork, exit, fatal signals, the environment, and
// `rastrace record` running the example program.
#include <gtest/gtest.h>
#include <rastrace/trchk.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/sanitizers.h"
#include "common/wait_or_kill.h"
#include "event/format.h"
#include "event/temp_dir.h"
#include "recorder/recorder.h"
#include "recorder/test_log.h"

namespace rastrace::recorder {
namespace {

using event::testing::TempDir;
using testing::LoggedEvent;
using testing::ReadLog;

std::string BinDir() {
  const char* bin = std::getenv("RASTRACE_BIN");
  return bin ? bin : RASTRACE_BINARY_DIR "/bin";
}

// The child's wait status; a child still running after a minute is killed and reported (-2).
[[maybe_unused]] int WaitFor(pid_t child) {  // unused under TSan, whose fork tests skip
  const std::optional<int> status = WaitOrKill(child, std::chrono::minutes(1));
  if (!status) ADD_FAILURE() << "child " << child << " still running after 60 s (or lost): killed";
  return status.value_or(-2);
}

// Runs a shell command line; returns its exit status (128 + signal when killed).
int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<uint64_t> ValuesOf(const std::vector<LoggedEvent>& events, uint16_t hook) {
  std::vector<uint64_t> values;
  for (const auto& e : events) {
    if (e.hook_id == hook) values.push_back(e.words[0]);
  }
  return values;
}

std::vector<uint16_t> UserHooks(const std::vector<LoggedEvent>& events) {
  std::vector<uint16_t> hooks;
  for (const auto& e : events) {
    if (e.hook_id >= 0x0100 && e.hook_id < 0x1000) hooks.push_back(e.hook_id);
  }
  return hooks;
}

// What rastrace-example records, in order (the second thread's 015 before 016).
const std::vector<uint16_t> kExampleHooks = {0x0100, 0x0110, 0x0110, 0x0110, 0x0110, 0x0110,
                                             0x0120, 0x0130, 0x0140, 0x0150, 0x0160};

void ExpectExampleLog(const std::vector<LoggedEvent>& events) {
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().hook_id, event::kHookTraceOn);
  EXPECT_EQ(events.back().hook_id, event::kHookTraceOff);
  EXPECT_EQ(UserHooks(events), kExampleHooks);
  uint64_t main_tid = 0, second_tid = 0;
  for (const auto& e : events) {
    if (e.hook_id == 0x0100) main_tid = e.thread_id;
    if (e.hook_id == 0x0150) {
      second_tid = e.thread_id;
      EXPECT_EQ(e.words[0], 1u);
      EXPECT_EQ(e.words[1], 7u);
      EXPECT_EQ(e.words[2], 8u);
    }
    if (e.hook_id == 0x0140) {
      EXPECT_EQ(e.generic_word, 42u);
      EXPECT_EQ(std::string(e.buffer.begin(), e.buffer.end()),
                std::string("hello from rastrace\0", 20));
    }
    if (e.hook_id == 0x0130) {
      EXPECT_FALSE(e.timestamped);
      EXPECT_EQ(e.words[0], 0xdeadu);
      EXPECT_EQ(e.words[1], 0xbeefu);
    }
  }
  EXPECT_NE(main_tid, 0u);
  EXPECT_NE(second_tid, main_tid);
}

TEST(ProcessTest, ForkedChildGetsFreshBuffersAndItsOwnLog) {
#ifdef RASTRACE_TSAN
  GTEST_SKIP() << "TSan does not support a multi-threaded fork (the writer thread is running)";
#else
  TempDir dir;
  RecorderOptions options;
  options.log_path = dir.File("log");
  // Forks at once: Start returns only when the session's threads run (a thread allocates as it
  // starts, and a fork then would leave gcc 12's ASan allocator locked in the child), and the
  // writer's rounds do not allocate (writer_alloc_test.cc).
  ASSERT_TRUE(Recorder::Get().Start(options));
  TRCHKL1T(0x0C000000, 1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TRCHKL1T(0x0C000000, 2);
    std::exit(0);  // no trcstop: the log is completed at exit
  }
  ASSERT_EQ(WaitFor(child), 0);
  TRCHKL1T(0x0C000000, 3);
  auto stopped = Recorder::Get().Stop();
  ASSERT_TRUE(stopped) << stopped.error().message;

  auto parent = ReadLog(dir.File("log"));
  ASSERT_TRUE(parent) << parent.error().message;
  EXPECT_EQ(ValuesOf(*parent, 0x0C00), (std::vector<uint64_t>{1, 3}));
  auto forked = ReadLog(dir.File("log." + std::to_string(child)));
  ASSERT_TRUE(forked) << forked.error().message;
  // Only the child's own event: the parent's unwritten event 1 was not copied into its rings.
  EXPECT_EQ(ValuesOf(*forked, 0x0C00), (std::vector<uint64_t>{2}));
  EXPECT_EQ(forked->front().hook_id, event::kHookTraceOn);
  EXPECT_EQ(forked->back().hook_id, event::kHookTraceOff);
  for (const auto& e : *forked) {
    if (e.hook_id == event::kHookUtil && e.subhook == event::kUtilProcess) {
      EXPECT_EQ(e.generic_word, static_cast<uint64_t>(child));
    }
  }
#endif
}

TEST(ProcessTest, FatalSignalFlushesTheLogAndStillKills) {
#ifdef RASTRACE_TSAN
  GTEST_SKIP() << "TSan does not support starting threads after a multi-threaded fork (this "
                  "process already runs the session-attach thread)";
#else
  TempDir dir;
  const std::string log = dir.File("log");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string args = "-o " + log;
    unsetenv(kEnvLogOwner);  // this child owns LOG
    if (trcstart(args.c_str()) != 0) _exit(3);
    for (int i = 0; i < 100; ++i) TRCHKL1T(0x0D000000, i);
    std::abort();
  }
  const int status = WaitFor(child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  auto events = ReadLog(log);
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(ValuesOf(*events, 0x0D00).size(), 100u);
  EXPECT_EQ(events->back().hook_id, event::kHookTraceOff);
#endif
}

void ExitFortyTwo(int) {
  _exit(42);
}

std::string ThisProgram() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// The child is this test binary run again (so no handler installed by an earlier test in this
// process is inherited): it installs its own SIGABRT handler, starts tracing, hooks and aborts.
TEST(ProcessTest, FatalSignalChainsToThePreviousHandler) {
  if (const char* child_log = std::getenv("RASTRACE_TEST_CHAIN_LOG")) {
    signal(SIGABRT, ExitFortyTwo);  // installed before tracing starts
    unsetenv(kEnvLogOwner);
    const std::string args = std::string("-o ") + child_log;
    if (trcstart(args.c_str()) != 0) _exit(3);
    TRCHKL1T(0x0D000000, 1);
    std::abort();
  }
  TempDir dir;
  const std::string log = dir.File("log");
  // The child ends in _exit from its signal handler with the writer thread still attached, which
  // TSan would report as a leaked thread (exit 66) instead of the handler's status.
  const int status = Shell(
      "TSAN_OPTIONS=\"${TSAN_OPTIONS}:report_thread_leaks=0\" "
      "RASTRACE_TEST_CHAIN_LOG=" +
      log + " " + ThisProgram() +
      " --gtest_filter=ProcessTest.FatalSignalChainsToThePreviousHandler"
      " >/dev/null 2>&1");
  EXPECT_EQ(status, 42);  // the program's own handler ran, after the log was completed
  auto events = ReadLog(log);
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(ValuesOf(*events, 0x0D00), (std::vector<uint64_t>{1}));
  EXPECT_EQ(events->back().hook_id, event::kHookTraceOff);
}

TEST(ProcessTest, ProgramConfiguredByEnvironmentIsFlushedAtExit) {
  TempDir dir;
  const std::string log = dir.File("log");
  const int status = Shell("env -u RASTRACE_LOG_OWNER RASTRACE_LOG=" + log +
                           " RASTRACE_MODE=circular RASTRACE_BUFSIZE=64K RASTRACE_LOGSIZE=1M " +
                           BinDir() + "/rastrace-example");
  ASSERT_EQ(status, 0);
  auto events = ReadLog(log);
  ASSERT_TRUE(events) << events.error().message;
  ExpectExampleLog(*events);
  bool mode_seen = false;
  for (const auto& e : *events) {
    if (e.hook_id == event::kHookUtil && e.subhook == event::kUtilBufferMode) {
      mode_seen = true;
      EXPECT_EQ(e.words[0], 1u);
      EXPECT_EQ(e.words[1], 65536u);
      EXPECT_EQ(e.words[2], 1u << 20);
    }
  }
  EXPECT_TRUE(mode_seen);
}

TEST(ProcessTest, BadEnvironmentIsReportedAndNothingRecorded) {
  TempDir dir;
  const std::string log = dir.File("log");
  const std::string err = dir.File("err");
  const int status = Shell("env -u RASTRACE_LOG_OWNER RASTRACE_LOG=" + log +
                           " RASTRACE_BUFSIZE=lots " + BinDir() + "/rastrace-example 2>" + err);
  EXPECT_EQ(status, 0);
  EXPECT_NE(ReadFile(err).find("RASTRACE_BUFSIZE: 'lots' is not a size"), std::string::npos)
      << ReadFile(err);
  EXPECT_FALSE(ReadLog(log));
}

TEST(ProcessTest, RecordRunsTheExampleEndToEnd) {
  TempDir dir;
  const std::string log = dir.File("trace.log");
  const int status =
      Shell(BinDir() + "/rastrace record -o " + log + " -- " + BinDir() + "/rastrace-example");
  ASSERT_EQ(status, 0);
  auto events = ReadLog(log);
  ASSERT_TRUE(events) << events.error().message;
  ExpectExampleLog(*events);
}

TEST(ProcessTest, RecordPassesOptionsAndExitStatus) {
  TempDir dir;
  const std::string log = dir.File("trace.log");
  const std::string err = dir.File("err");
  // -j keeps only 011; -k drops 012 (and nothing else).
  ASSERT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " -f -T 64K -j 011 -- " + BinDir() +
                  "/rastrace-example"),
            0);
  auto events = ReadLog(log);
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(UserHooks(*events), (std::vector<uint16_t>(5, 0x0110)));

  EXPECT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " -- sh -c 'exit 7' 2>" + err), 7);
  EXPECT_NE(ReadFile(err).find("wrote no log"), std::string::npos);
  EXPECT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " -- /no/such/program 2>" + err), 127);
  EXPECT_NE(ReadFile(err).find("cannot run /no/such/program"), std::string::npos);
  EXPECT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " -T 12Q -- true 2>" + err), 2);
  EXPECT_NE(ReadFile(err).find("-T: '12Q' has an unknown suffix"), std::string::npos);
  EXPECT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " --buffer-max 12Q -- true 2>" + err),
            2);
  EXPECT_NE(ReadFile(err).find("--buffer-max: '12Q' has an unknown suffix"), std::string::npos);
  ASSERT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " --buffer-max 8M --buffered-io -- " +
                  BinDir() + "/rastrace-example"),
            0);
  auto again = ReadLog(log);
  ASSERT_TRUE(again) << again.error().message;
  ExpectExampleLog(*again);
}

TEST(ProcessTest, RecordKeepsTheOldLogWithC) {
  TempDir dir;
  const std::string log = dir.File("trace.log");
  const std::string example = BinDir() + "/rastrace-example";
  ASSERT_EQ(Shell(BinDir() + "/rastrace record -o " + log + " -- " + example), 0);
  ASSERT_EQ(Shell(BinDir() + "/rastrace record -c -o " + log + " -- " + example), 0);
  EXPECT_TRUE(ReadLog(log + ".old"));
  EXPECT_TRUE(ReadLog(log));
}

}  // namespace
}  // namespace rastrace::recorder
