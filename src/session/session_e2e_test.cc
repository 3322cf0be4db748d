// End-to-end: the real trace, trcon, trcoff, trcstop and trcrpt commands, with programs linked
// with librastrace joining the session on their own. Each test has a private session directory
// (RASTRACE_SESSION_DIR) and kills its daemon by pid in TearDown, even when it fails.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/sanitizers.h"
#include "common/wait_or_kill.h"
#include "event/format.h"
#include "event/reader.h"
#include "session/kernel_events.h"

namespace rastrace::session {
namespace {

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

std::string Bin(const std::string& name) {
  const char* bin = std::getenv("RASTRACE_BIN");
  return std::string(bin ? bin : RASTRACE_BINARY_DIR "/bin") + "/" + name;
}

std::string Hooker() {
  return std::string(RASTRACE_BINARY_DIR) + "/tests/session_hooker";
}

// Whether `user` may execute `path`: every directory above it must let that user in too.
bool CanExecuteAs(uid_t user, const std::string& path) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (setgid(user) != 0 || setuid(user) != 0) _exit(2);
    _exit(access(path.c_str(), X_OK) == 0 ? 0 : 1);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SessionE2E : public ::testing::Test {
 public:  // for the helpers that several tests share
  void SetUp() override {
    char pattern[] = "/tmp/session_e2e_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    setenv("RASTRACE_SESSION_DIR", (dir_ + "/run").c_str(), 1);
    session_dirs_.push_back(dir_ + "/run");
    unsetenv("RASTRACE_LOG");
    unsetenv("RASTRACE_LOG_OWNER");
    unsetenv("RASTRACE_KERNEL_READER");
    for (const char* tool : {"trace", "trcstop", "trcon", "trcoff", "trcrpt"}) {
      if (access(Bin(tool).c_str(), X_OK) != 0) GTEST_SKIP() << Bin(tool) << " is not built";
    }
  }
  void TearDown() override {
    for (const std::string& sessions : session_dirs_) {
      for (unsigned ch = 0; ch < 8; ++ch) {
        const std::string lock = Slurp(sessions + "/ch" + std::to_string(ch) + "/lock");
        const int pid = std::atoi(lock.c_str());
        if (pid > 0 && kill(pid, 0) == 0) {
          // A daemon that survived its test: stop it, or kill it by pid.
          setenv("RASTRACE_SESSION_DIR", sessions.c_str(), 1);
          const std::string stop = Bin("trcstop") + " -" + std::to_string(ch) + " 2>/dev/null";
          if (std::system(stop.c_str()) != 0) kill(pid, SIGKILL);
        }
      }
    }
    std::filesystem::remove_all(dir_);
  }

  // Starts a command with its output in files named after `tag`; returns its pid.
  pid_t Spawn(const std::vector<std::string>& args, const std::string& tag,
              const std::string& input = "") {
    const std::string out = dir_ + "/" + tag + ".out", err = dir_ + "/" + tag + ".err",
                      in = dir_ + "/" + tag + ".in";
    std::ofstream(in) << input;
    const pid_t pid = fork();
    if (pid == 0) {
      freopen(in.c_str(), "r", stdin);
      freopen(out.c_str(), "w", stdout);
      freopen(err.c_str(), "w", stderr);
      if (run_as_ != 0 && (setgid(run_as_) != 0 || setuid(run_as_) != 0)) _exit(126);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  }

  Outcome Wait(pid_t pid, const std::string& tag) {
    Outcome run;
    int status = 0;
    waitpid(pid, &status, 0);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = Slurp(dir_ + "/" + tag + ".out");
    run.err = Slurp(dir_ + "/" + tag + ".err");
    return run;
  }

  Outcome Exec(const std::vector<std::string>& args, const std::string& input = "") {
    return Wait(Spawn(args, "exec", input), "exec");
  }

  struct LogSummary {
    std::map<uint16_t, uint64_t> hooks;               // events per hook id
    std::map<uint64_t, uint64_t> hooks_by_pid_word;   // user hooks 020-023: data word 1 -> count
    std::map<uint64_t, uint64_t> thread_of_pid_word;  // data word 1 -> thread id
    uint64_t lost = 0;
    uint64_t lost_by_threads = 0;  // 006 events of processes' threads (the kernel's say thread 0)
    uint64_t loader_entries = 0;   // 00A/106 (-n)
    uint64_t trace_cuts = 0;       // 00A/107: a process died and its buffers were recovered
    uint64_t cpu_events = 0;       // 00A/108: the cpu of a thread's following events
    std::map<uint64_t, uint64_t> syscalls_by_thread;
  };

  LogSummary Summarize(const std::string& log) {
    LogSummary s;
    auto reader = event::LogReader::Open(log);
    EXPECT_TRUE(reader) << (reader ? "" : reader.error().message);
    if (!reader) return s;
    event::Event ev;
    event::ReadStatus status;
    while ((status = reader->Next(ev)) == event::ReadStatus::kEvent) {
      ++s.hooks[ev.hook_id];
      if ((ev.hook_id == 0x0200 || ev.hook_id == 0x0210 || ev.hook_id == 0x0220 ||
           ev.hook_id == 0x0230) &&
          ev.word_count >= 1) {
        ++s.hooks_by_pid_word[ev.words[0]];
        s.thread_of_pid_word[ev.words[0]] = ev.thread_id;
      }
      if (ev.hook_id == event::kHookLost) s.lost += ev.words[0];
      if (ev.hook_id == event::kHookLost && ev.words[1] != 0) s.lost_by_threads += ev.words[0];
      if (ev.hook_id == event::kHookUtil && ev.subhook == 0x0106) ++s.loader_entries;
      if (ev.hook_id == event::kHookUtil && ev.subhook == 0x0107) ++s.trace_cuts;
      if (ev.hook_id == event::kHookUtil && ev.subhook == event::kUtilCpu) ++s.cpu_events;
      if (ev.hook_id == kHookSystemCall) ++s.syscalls_by_thread[ev.thread_id];
    }
    EXPECT_EQ(status, event::ReadStatus::kEnd) << reader->error().message;
    return s;
  }

  std::string dir_;
  uid_t run_as_ = 0;                       // commands run as this user when not 0
  std::vector<std::string> session_dirs_;  // where TearDown looks for daemons left running
};

TEST_F(SessionE2E, TwoProcessesAndACommandInOneReport) {
  const std::string log = dir_ + "/trcfile";
  Outcome start = Exec({Bin("trace"), "-a", "-o", log});
  ASSERT_EQ(start.status, 0) << start.err;
  Outcome first = Exec({Hooker(), "020", "100"});
  Outcome second = Exec({Hooker(), "021", "50", "3"});
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(second.status, 0) << second.err;
  // A second session on the same channel is refused.
  Outcome again = Exec({Bin("trace"), "-a", "-o", dir_ + "/other"});
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("already running"), std::string::npos) << again.err;
  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  // trcstop returned: the log is complete.
  const uint64_t pid1 = std::stoull(first.out), pid2 = std::stoull(second.out);
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[pid1], 100u);
  EXPECT_EQ(s.hooks_by_pid_word[pid2], 150u);
  EXPECT_EQ(s.thread_of_pid_word[pid1], pid1);
  // The processes lost nothing. (The kernel's events of a busy machine may overflow its
  // buffers; those losses are counted too, but they are not this test's subject.)
  EXPECT_EQ(s.lost_by_threads, 0u);
  EXPECT_EQ(s.hooks[event::kHookHeader], 1u);
  EXPECT_EQ(s.hooks[event::kHookTraceOn], 1u);
  EXPECT_EQ(s.hooks[event::kHookTraceOff], 1u);

  // The report names both processes with their pids and tids.
  Outcome report = Exec({Bin("trcrpt"), "-O", "exec=on,pid=on,tid=on", log});
  ASSERT_EQ(report.status, 0) << report.err;
  size_t lines1 = 0, lines2 = 0;
  std::istringstream lines(report.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string id, name, pid, tid;
    fields >> id >> name >> pid >> tid;
    if (id == "020") {
      ++lines1;
      EXPECT_EQ(name, "session_hooker") << line;
      EXPECT_EQ(pid, std::to_string(pid1)) << line;
      EXPECT_EQ(tid, std::to_string(pid1)) << line;
    } else if (id == "021") {
      ++lines2;
      EXPECT_EQ(name, "session_hooker") << line;
      EXPECT_EQ(pid, std::to_string(pid2)) << line;
    }
  }
  EXPECT_EQ(lines1, 100u);
  EXPECT_EQ(lines2, 150u);
  // No session is left: trcstop now says so.
  Outcome none = Exec({Bin("trcstop")});
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("no trace session is running"), std::string::npos) << none.err;
}

TEST_F(SessionE2E, TraceXRunsACommandUntilItEnds) {
  const std::string log = dir_ + "/xlog";
  Outcome run = Exec({Bin("trace"), "-o", log, "-x", Hooker() + " 022 25"});
  ASSERT_EQ(run.status, 0) << run.err;
  const uint64_t pid = std::stoull(run.out);
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[pid], 25u);
  EXPECT_EQ(s.thread_of_pid_word[pid], pid);
}

TEST_F(SessionE2E, LostEventsAreCountedExactly) {
  const std::string log = dir_ + "/lossy";
  // The smallest ring (4 KiB) and a burst far larger: the ring overflows, every event is either
  // in the log or counted in a 006 event.
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-T", "4K", "-j", "020", "-o", log}).status, 0);
  Outcome hook = Exec({Hooker(), "020", "200000"});
  ASSERT_EQ(hook.status, 0) << hook.err;
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  const uint64_t pid = std::stoull(hook.out);
  LogSummary s = Summarize(log);
  EXPECT_GT(s.lost, 0u);
  EXPECT_EQ(s.hooks_by_pid_word[pid] + s.lost, 200000u);
  // -j 020 let no kernel events through.
  EXPECT_EQ(s.hooks[kHookSystemCall], 0u);
}

// Issue 16: with default options (kernel events on when root), two programs that record as fast
// as they can lose no hook (before: 39,000-52,000 of 200,000 lost on this machine).
TEST_F(SessionE2E, NoHookIsLostAtRealRates) {
  const std::string log = dir_ + "/busy";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-o", log}).status, 0);
  const pid_t a = Spawn({Hooker(), "020", "200000"}, "a");
  const pid_t b = Spawn({Hooker(), "020", "200000"}, "b");
  Outcome first = Wait(a, "a"), second = Wait(b, "b");
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(second.status, 0) << second.err;
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(first.out)], 200000u);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(second.out)], 200000u);
  EXPECT_EQ(s.lost_by_threads, 0u);
}

// Issue 19 point 4: the log's path is checked when the session starts, and the log is a new
// file: a symlink, a directory or a file of /proc is refused at once; a hard link to another
// file is replaced, never written through.
TEST_F(SessionE2E, LogPathIsCheckedWhenTheSessionStarts) {
  const std::string target = dir_ + "/target";
  std::ofstream(target) << "keep";
  const std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const std::string directory = dir_ + "/directory";
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  for (const auto& [path, reason] :
       std::vector<std::pair<std::string, std::string>>{{link, "symbolic link"},
                                                        {directory, "is a directory"},
                                                        {"/proc/version", "kernel (proc)"},
                                                        {"/proc/self/newlog", "kernel (proc)"}}) {
    Outcome start = Exec({Bin("trace"), "-a", "-o", path});
    EXPECT_EQ(start.status, 1) << path;
    EXPECT_NE(start.err.find(reason), std::string::npos) << start.err;
    EXPECT_EQ(Exec({Bin("trcstop")}).status, 1) << "a session started with " << path;
  }
  // -C: each cpu's log FILE-N is checked too.
  const std::string per_cpu = dir_ + "/percpu";
  ASSERT_EQ(symlink(target.c_str(), (per_cpu + "-0").c_str()), 0);
  Outcome start = Exec({Bin("trace"), "-a", "-C", "all", "-o", per_cpu});
  EXPECT_EQ(start.status, 1);
  EXPECT_NE(start.err.find(per_cpu + "-0: is a symbolic link"), std::string::npos) << start.err;

  const std::string log = dir_ + "/log";
  ASSERT_EQ(::link(target.c_str(), log.c_str()), 0);
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  EXPECT_EQ(Slurp(target), "keep");
  struct stat st {};
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(SessionE2E, DeferredSessionRecordsOnlyBetweenTrconAndTrcoff) {
  const std::string log = dir_ + "/deferred";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-d", "-j", "020,021", "-o", log}).status, 0);
  Outcome before = Exec({Hooker(), "020", "10"});
  ASSERT_EQ(Exec({Bin("trcon")}).status, 0);
  Outcome during = Exec({Hooker(), "021", "10"});
  ASSERT_EQ(Exec({Bin("trcoff")}).status, 0);
  Outcome after = Exec({Hooker(), "020", "10"});
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(before.out)], 0u);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(during.out)], 10u);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(after.out)], 0u);
  EXPECT_EQ(s.hooks[event::kHookTraceOn], 1u);
  EXPECT_EQ(s.hooks[event::kHookTraceOff], 2u);  // trcoff, and the end of the session
}

TEST_F(SessionE2E, InteractivePrompt) {
  const std::string log = dir_ + "/interactive";
  Outcome run =
      Exec({Bin("trace"), "-d", "-o", log}, "trcon\n!" + Hooker() + " 020 5\ntrcoff\nq\n");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("-> "), std::string::npos);
  LogSummary s = Summarize(log);
  size_t hooks = 0;
  for (auto [pid, count] : s.hooks_by_pid_word) hooks += count;
  EXPECT_EQ(hooks, 5u);
}

TEST_F(SessionE2E, GenericChannelIsPrintedAndStoppedByNumber) {
  const std::string log = dir_ + "/generic";
  Outcome start = Exec({Bin("trace"), "-a", "-g", "-o", log});
  ASSERT_EQ(start.status, 0) << start.err;
  EXPECT_EQ(start.out, "1\n");
  Outcome second = Exec({Bin("trace"), "-a", "-g", "-o", log + "2"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.out, "2\n");
  EXPECT_EQ(Exec({Bin("trcstop"), "-2"}).status, 0);
  EXPECT_EQ(Exec({Bin("trcstop"), "-1"}).status, 0);
  EXPECT_EQ(Exec({Bin("trcstop"), "-1"}).status, 1);
  EXPECT_TRUE(std::filesystem::exists(log));
  EXPECT_TRUE(std::filesystem::exists(log + "2"));
  Outcome bad = Exec({Bin("trcstop"), "-9"});
  EXPECT_EQ(bad.status, 2);
}

TEST_F(SessionE2E, RuntimeDirectoryOfAnotherModeIsRefused) {
  std::filesystem::create_directories(dir_ + "/run");
  chmod((dir_ + "/run").c_str(), 0777);
  Outcome start = Exec({Bin("trace"), "-a", "-o", dir_ + "/log"});
  EXPECT_NE(start.status, 0);
  EXPECT_NE(start.err.find("lets other users in"), std::string::npos) << start.err;
}

TEST_F(SessionE2E, SymlinkedRuntimeDirectoryIsRefused) {
  std::filesystem::create_directories(dir_ + "/elsewhere");
  chmod((dir_ + "/elsewhere").c_str(), 0700);
  std::filesystem::create_directory_symlink(dir_ + "/elsewhere", dir_ + "/run");
  Outcome start = Exec({Bin("trace"), "-a", "-o", dir_ + "/log"});
  EXPECT_NE(start.status, 0);
  EXPECT_NE(start.err.find("symlink"), std::string::npos) << start.err;
}

TEST_F(SessionE2E, LogToStandardOutput) {
  // The background daemon keeps the standard output it was started with and writes the log there
  // when the session stops.
  const pid_t trace = Spawn({Bin("trace"), "-a", "-j", "020", "-o", "-"}, "stdout");
  ASSERT_EQ(Wait(trace, "stdout").status, 0);
  Outcome hook = Exec({Hooker(), "020", "7"});
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  LogSummary s = Summarize(dir_ + "/stdout.out");
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(hook.out)], 7u);
}

TEST_F(SessionE2E, WithoutRootOnlyUserHooksAndAClearMessage) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the commands as another user";
  // The commands run as nobody, with a session directory and a log directory of nobody's.
  constexpr uid_t kNobody = 65534;
  if (!CanExecuteAs(kNobody, Bin("trace")) || !CanExecuteAs(kNobody, Hooker())) {
    // A clone in root's home (0700 on Debian) is built where nobody cannot enter.
    GTEST_SKIP() << "nobody cannot execute " << Bin("trace") << " or " << Hooker()
                 << ": a directory above them is closed to other users";
  }
  chmod(dir_.c_str(), 0711);
  const std::string home = dir_ + "/nobody";
  std::filesystem::create_directories(home);
  ASSERT_EQ(chown(home.c_str(), kNobody, kNobody), 0);
  chmod(home.c_str(), 0700);
  setenv("RASTRACE_SESSION_DIR", (home + "/run").c_str(), 1);
  session_dirs_.push_back(home + "/run");
  run_as_ = kNobody;
  const std::string log = home + "/log";
  Outcome start = Exec({Bin("trace"), "-a", "-o", log});
  ASSERT_EQ(start.status, 0) << start.err;
  EXPECT_NE(start.err.find("not running as root: kernel events are not recorded"),
            std::string::npos)
      << start.err;
  Outcome hook = Exec({Hooker(), "020", "12"});
  ASSERT_EQ(hook.status, 0) << hook.err;
  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  run_as_ = 0;
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(hook.out)], 12u);
  EXPECT_EQ(s.hooks[kHookSystemCall], 0u);
}

TEST_F(SessionE2E, TrcstopDrainsAProcessStillRunning) {
  const std::string log = dir_ + "/alive";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-l", "-j", "020", "-o", log}).status, 0);
  // Circular mode: the process's buffer is only drained when the session stops.
  const pid_t hooker = Spawn({Hooker(), "020", "300", "1", "linger"}, "linger");
  std::string pid_text;
  for (int i = 0; i < 5000 && pid_text.find('\n') == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    pid_text = Slurp(dir_ + "/linger.out");
  }
  ASSERT_FALSE(pid_text.empty());
  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  // The process is still alive (or just leaving): its hooks are in the log all the same.
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(pid_text)], 300u);
  EXPECT_EQ(Wait(hooker, "linger").status, 0);
}

TEST_F(SessionE2E, CrashedAndForkedProcessesKeepTheirHooks) {
  const std::string log = dir_ + "/crash";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020,021", "-o", log}).status, 0);
  Outcome crashed = Exec({Hooker(), "020", "1000", "1", "abort"});
  EXPECT_EQ(crashed.status, 128 + SIGABRT);
  Outcome forked = Exec({Hooker(), "021", "40", "1", "fork"});
  ASSERT_EQ(forked.status, 0) << forked.err;
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(crashed.out)], 1000u);
  std::istringstream pids(forked.out);
  uint64_t parent = 0, child = 0;
  pids >> parent >> child;
  ASSERT_NE(child, 0u) << forked.out;
  EXPECT_EQ(s.hooks_by_pid_word[parent], 40u);
  EXPECT_EQ(s.hooks_by_pid_word[child], 40u);
  EXPECT_EQ(s.thread_of_pid_word[child], child);
}

// A process killed right after its last hook: what its writer had not yet drained is recovered
// from its rings (shared-memory files) by the daemon, so every committed event is in the report.
// `flags`: trace's flags besides -a -j 020 -o; with `lossy` the ring is too small for the
// burst, and every event must be either in the log or counted in a 006 event.
void ExpectKilledProcessKeepsEverything(SessionE2E& test, const std::string& tag,
                                        const std::vector<std::string>& flags, const char* count,
                                        bool lossy = false) {
  const std::string log = test.dir_ + "/killed-" + tag;
  std::vector<std::string> trace = {Bin("trace"), "-a", "-j", "020", "-o", log};
  trace.insert(trace.end(), flags.begin(), flags.end());
  ASSERT_EQ(test.Exec(trace).status, 0);
  Outcome killed = test.Exec({Hooker(), "020", count, "1", "kill"});
  ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
  Outcome stop = test.Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  const uint64_t pid = std::stoull(killed.out);
  EXPECT_NE(stop.err.find("process " + std::to_string(pid) + " ended without completing its log"),
            std::string::npos)
      << stop.out << stop.err;
  SessionE2E::LogSummary s = test.Summarize(log);
  if (lossy) {
    EXPECT_GT(s.lost, 0u);
    EXPECT_EQ(s.hooks_by_pid_word[pid] + s.lost, std::stoull(count));
    // trcstop's total says the same.
    EXPECT_NE(stop.err.find(" lost " + std::to_string(s.lost)), std::string::npos) << stop.err;
  } else {
    // The rings (4 MiB) hold every event: nothing may be lost, nothing counted twice.
    EXPECT_EQ(s.lost, 0u);
    EXPECT_EQ(s.hooks_by_pid_word[pid], std::stoull(count));
  }
  EXPECT_EQ(s.thread_of_pid_word[pid], pid);
  EXPECT_EQ(s.trace_cuts, 1u);
  EXPECT_EQ(s.hooks[event::kHookTraceOff], 1u);
  // The process's files are gone with the session.
  EXPECT_TRUE(std::filesystem::is_empty(test.dir_ + "/run/ch0/procs"));
}

TEST_F(SessionE2E, KilledProcessLosesNothingItCommitted) {
  // Alternate mode: the writer was draining; whatever it had not written is in the rings.
  ExpectKilledProcessKeepsEverything(*this, "alternate", {}, "50000");
}

TEST_F(SessionE2E, KilledProcessWhoseRingGrewLosesNothingItCommitted) {
  // 600,000 hooks (24 MB) in a burst: the 4 MiB ring in its file grows to 32 MiB (each region
  // appended to the file), and the daemon recovers what the writer had not drained across the
  // regions. Rings in files kept their size before, and lost what the writer did not keep up with.
  ExpectKilledProcessKeepsEverything(*this, "grown", {}, "600000");
}

TEST_F(SessionE2E, KilledProcessInCircularModeLosesNothingItCommitted) {
  // Circular mode writes nothing before the end: every event comes from the rings.
  ExpectKilledProcessKeepsEverything(*this, "circular", {"-l"}, "20000");
}

TEST_F(SessionE2E, KilledProcessLossesAreCountedExactly) {
  // A 4 KiB ring overflows: the losses the log had reported and those only the ring knew are
  // counted once each.
  ExpectKilledProcessKeepsEverything(*this, "lossy", {"-T", "4K"}, "200000", /*lossy=*/true);
}

TEST_F(SessionE2E, KilledProcessIsRecoveredWhileTheSessionRuns) {
  const std::string log = dir_ + "/killed-early";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
  Outcome killed = Exec({Hooker(), "020", "30000", "1", "kill"});
  ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
  const std::string pid = killed.out.substr(0, killed.out.find('\n'));
  // The daemon sees the process end (pidfd) and recovers its log at once: its flight-recorder
  // files go away while the session still runs.
  const std::string procs = dir_ + "/run/ch0/procs";
  auto proc_files_left = [&] {
    size_t left = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(procs, ec)) {
      if (entry.path().filename() == "rastrace-" + pid + ".proc") ++left;
    }
    return left;
  };
  bool recovered = false;
  for (int i = 0; i < 5000 && !recovered; ++i) {
    recovered = proc_files_left() == 0;
    if (!recovered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(recovered) << "the killed process's files are still there";
  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  EXPECT_NE(stop.err.find("process " + pid + " ended without completing its log"),
            std::string::npos)
      << stop.err;
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.hooks_by_pid_word[std::stoull(pid)], 30000u);
  EXPECT_EQ(s.trace_cuts, 1u);
}

// A process whose flight recorder is damaged (here: a checkpoint that says its log is 4 EiB) is
// reported with the file and offset, and the session's log is still written (the daemon used to
// die of std::bad_alloc, and trcstop wrote nothing).
TEST_F(SessionE2E, ADamagedFlightRecorderIsReportedAndTheLogIsStillWritten) {
  const std::string log = dir_ + "/damaged";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
  // The process stops itself after its hooks; stopped, its writer cannot change the checkpoint.
  const pid_t hooker = Spawn({Hooker(), "020", "1000", "1", "stop"}, "damaged");
  int status = 0;
  ASSERT_EQ(waitpid(hooker, &status, WUNTRACED), hooker);
  ASSERT_TRUE(WIFSTOPPED(status));
  std::string proc;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/run/ch0/procs")) {
    if (entry.path().filename() == "rastrace-" + std::to_string(hooker) + ".proc") {
      proc = entry.path();
    }
  }
  ASSERT_FALSE(proc.empty()) << "no flight recorder file of process " << hooker;
  const int fd = open(proc.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const uint64_t checkpoint[] = {1, uint64_t{1} << 62, uint64_t{1} << 62};  // seq, both log sizes
  ASSERT_EQ(pwrite(fd, checkpoint, sizeof checkpoint, 0x18),
            static_cast<ssize_t>(sizeof checkpoint));
  close(fd);
  ASSERT_EQ(kill(hooker, SIGKILL), 0);
  EXPECT_EQ(Wait(hooker, "damaged").status, 128 + SIGKILL);

  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;
  EXPECT_NE(stop.err.find(
                proc + ": offset 0x28: the checkpoint says the log has 4611686018427387904 bytes"),
            std::string::npos)
      << stop.err;
  LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks[event::kHookTraceOff], 1u);
}

// trcstop has no deadline of its own: it waits for the reply as long as the daemon runs (a
// sanitizer build on a loaded machine can take long to drain), and says so when the daemon dies.
TEST_F(SessionE2E, TrcstopWaitsForASlowDaemonAndNoticesADeadOne) {
  const std::string log = dir_ + "/slow";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
  const pid_t daemon = std::atoi(Slurp(dir_ + "/run/ch0/lock").c_str());
  ASSERT_GT(daemon, 0);
  // A stopped daemon answers nothing: trcstop waits, and gets its answer once it runs again.
  ASSERT_EQ(kill(daemon, SIGSTOP), 0);
  const pid_t stop = Spawn({Bin("trcstop")}, "slow");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_EQ(waitpid(stop, nullptr, WNOHANG), 0) << "trcstop gave up on a daemon that lives";
  ASSERT_EQ(kill(daemon, SIGCONT), 0);
  Outcome slow = Wait(stop, "slow");
  EXPECT_EQ(slow.status, 0) << slow.err;
  EXPECT_TRUE(std::filesystem::exists(log));

  // A daemon that dies while trcstop waits: trcstop says so and fails.
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log + "2"}).status, 0);
  const pid_t second = std::atoi(Slurp(dir_ + "/run/ch0/lock").c_str());
  ASSERT_GT(second, 0);
  ASSERT_EQ(kill(second, SIGSTOP), 0);
  const pid_t waiting = Spawn({Bin("trcstop")}, "dead");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(second, SIGKILL), 0);
  Outcome dead = Wait(waiting, "dead");
  EXPECT_EQ(dead.status, 1);
  EXPECT_NE(dead.err.find("the session daemon (pid " + std::to_string(second) + ")"),
            std::string::npos)
      << dead.err;
}

// A background daemon has no terminal: its stderr is chN/daemon.err, a fatal signal leaves its
// number there, and trcstop quotes it when the daemon died (issue #7: deaths during Stop were
// silent).
TEST_F(SessionE2E, TrcstopQuotesWhyTheDaemonDied) {
  const std::string log = dir_ + "/died";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
  const pid_t daemon = std::atoi(Slurp(dir_ + "/run/ch0/lock").c_str());
  ASSERT_GT(daemon, 0);
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/run/ch0/daemon.err").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Dies while trcstop waits for its answer.
  ASSERT_EQ(kill(daemon, SIGSTOP), 0);
  const pid_t waiting = Spawn({Bin("trcstop")}, "aborted");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(daemon, SIGABRT), 0);
  ASSERT_EQ(kill(daemon, SIGCONT), 0);
  Outcome dead = Wait(waiting, "aborted");
  EXPECT_EQ(dead.status, 1);
  EXPECT_NE(dead.err.find("without answering"), std::string::npos) << dead.err;
  EXPECT_NE(dead.err.find("trace daemon (pid " + std::to_string(daemon) +
                          "): fatal signal 6 (SIGABRT) sent by pid " + std::to_string(getpid())),
            std::string::npos)
      << dead.err;

  // Dies before trcstop asks: its socket is left behind, and trcstop still says why.
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log + "2"}).status, 0);
  const pid_t second = std::atoi(Slurp(dir_ + "/run/ch0/lock").c_str());
  ASSERT_GT(second, 0);
  ASSERT_EQ(kill(second, SIGBUS), 0);
  for (int i = 0; i < 2000 && kill(second, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Outcome stop = Exec({Bin("trcstop")});
  EXPECT_EQ(stop.status, 1);
  EXPECT_NE(stop.err.find("its daemon (pid " + std::to_string(second) + ") died"),
            std::string::npos)
      << stop.err;
  EXPECT_NE(stop.err.find("fatal signal 7 (SIGBUS)"), std::string::npos) << stop.err;
}

// Waits (up to 10 s) until process `pid` sits in poll or ppoll: a client that sent its request
// and waits for the answer. Where the system call numbers are not known here, waits 200 ms.
void WaitUntilPolling(pid_t pid) {
#if defined(__x86_64__)
  const std::vector<std::string> polls = {"7 ", "271 "};
#elif defined(__aarch64__)
  const std::vector<std::string> polls = {"73 "};
#else
  const std::vector<std::string> polls;
#endif
  if (polls.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return;
  }
  const std::string path = "/proc/" + std::to_string(pid) + "/syscall";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string call = Slurp(path);
    for (const std::string& number : polls) {
      if (call.starts_with(number)) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A trcstop that connects while the session ends on a signal is answered, never dropped (also one
// that connects after the daemon's last look at its socket, while it writes the log).
TEST_F(SessionE2E, TrcstopRacingATerminatedSessionIsAnswered) {
  for (int round = 0; round < 3; ++round) {
    const std::string log = dir_ + "/raced" + std::to_string(round);
    ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "020", "-o", log}).status, 0);
    const pid_t daemon = std::atoi(Slurp(dir_ + "/run/ch0/lock").c_str());
    ASSERT_GT(daemon, 0);
    // The daemon is stopped while both arrive, so the request waits in the listen backlog while
    // the signal ends the session.
    ASSERT_EQ(kill(daemon, SIGSTOP), 0);
    const pid_t stop = Spawn({Bin("trcstop")}, "raced");
    // Once trcstop waits for its answer (in poll), its request is in the daemon's backlog.
    WaitUntilPolling(stop);
    ASSERT_EQ(kill(daemon, SIGTERM), 0);
    ASSERT_EQ(kill(daemon, SIGCONT), 0);
    Outcome raced = Wait(stop, "raced");
    // Either answer is right (the signal or the request stopped the session): a closed
    // connection is not.
    EXPECT_TRUE(raced.status == 0 ||
                raced.err.find("no trace session is running") != std::string::npos)
        << raced.status << " " << raced.err;
    EXPECT_EQ(raced.err.find("without answering"), std::string::npos) << raced.err;
    EXPECT_TRUE(std::filesystem::exists(log));
    // The next round starts once the daemon has let its channel go.
    const int lock = open((dir_ + "/run/ch0/lock").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(lock, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (flock(lock, LOCK_EX | LOCK_NB) != 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    close(lock);
  }
}

// The first line an idle hooker prints (its pid; in forkidle mode its child's too), once it has
// printed it; empty if it does not within 10 s.
std::string FirstLine(const SessionE2E& test, const std::string& tag) {
  std::string out;
  for (int i = 0; i < 10000 && out.find('\n') == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    out = Slurp(test.dir_ + "/" + tag + ".out");
  }
  return out.find('\n') == std::string::npos ? "" : out.substr(0, out.find('\n'));
}

// Whether process `pid` has joined the session of channel 0: its lock is in procs/.
bool HasJoined(const SessionE2E& test, pid_t pid) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(test.dir_ + "/run/ch0/procs", ec)) {
    if (entry.path().filename().string().starts_with("p" + std::to_string(pid) + "-")) return true;
  }
  return false;
}

// Waits up to about 5 s for every process of `pids` to join.
void WaitUntilJoined(const SessionE2E& test, std::initializer_list<pid_t> pids) {
  auto all = [&] {
    return std::all_of(pids.begin(), pids.end(), [&](pid_t pid) { return HasJoined(test, pid); });
  };
  for (int i = 0; i < 5000 && !all(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Waits (up to 10 s) until every process of `pids` has recorded a hook with channel 0 on: idle
// hookers say "on PID" on stderr (the tag's .err) once they have.
void WaitUntilRecording(const SessionE2E& test, const std::string& tag,
                        std::initializer_list<pid_t> pids) {
  auto all = [&] {
    const std::string err = Slurp(test.dir_ + "/" + tag + ".err");
    return std::all_of(pids.begin(), pids.end(), [&](pid_t pid) {
      return err.find("on " + std::to_string(pid) + "\n") != std::string::npos;
    });
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!all() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Every hook `pid` made while channel 0 was on is in the log (the last may have raced with
// trcstop), recorded by its main thread.
void ExpectHooksWhileOn(SessionE2E::LogSummary& s, uint64_t pid, uint64_t on_hooks) {
  const uint64_t recorded = s.hooks_by_pid_word[pid];
  EXPECT_GT(recorded, 0u) << "pid " << pid;
  EXPECT_LE(recorded, on_hooks) << "pid " << pid;
  EXPECT_GE(recorded + 1, on_hooks) << "pid " << pid;
  EXPECT_EQ(s.thread_of_pid_word[pid], pid);
}

// A process started before the session (no session directory at all, or one left by an earlier
// session) joins it when it starts, and records from then on.
void ExpectIdleProcessJoins(SessionE2E& test, const std::string& tag) {
  const pid_t hooker = test.Spawn({Hooker(), "023", "0", "1", "idle"}, tag);
  const std::string first = FirstLine(test, tag);
  ASSERT_FALSE(first.empty()) << "the idle process did not start";
  const pid_t pid = std::stoi(first);
  const std::string log = test.dir_ + "/" + tag + ".trc";
  ASSERT_EQ(test.Exec({Bin("trace"), "-a", "-j", "023", "-o", log}).status, 0);
  WaitUntilJoined(test, {pid});
  EXPECT_TRUE(HasJoined(test, pid)) << "process " << pid << " did not join the session";
  WaitUntilRecording(test, tag, {pid});
  ASSERT_EQ(test.Exec({Bin("trcstop")}).status, 0);
  Outcome idle = test.Wait(hooker, tag);
  ASSERT_EQ(idle.status, 0) << idle.err;
  std::istringstream lines(idle.out);
  uint64_t printed_pid = 0, on_hooks = 0;
  lines >> printed_pid >> on_hooks;
  ASSERT_EQ(printed_pid, static_cast<uint64_t>(pid));
  SessionE2E::LogSummary s = test.Summarize(log);
  ExpectHooksWhileOn(s, printed_pid, on_hooks);
}

TEST_F(SessionE2E, ProcessStartedBeforeTheSessionJoinsIt) {
  // No session directory exists yet: the process makes it, and its wake word, to wait on.
  ASSERT_FALSE(std::filesystem::exists(dir_ + "/run"));
  ExpectIdleProcessJoins(*this, "before");
  // The session directory exists now (left by the first session): the next one is joined too.
  ExpectIdleProcessJoins(*this, "again");
}

// A worker forked while its parent waited for a session (a pre-forking server) joins the session
// too, with a log of its own.
TEST_F(SessionE2E, WorkerForkedBeforeTheSessionJoinsIt) {
#if defined(RASTRACE_TSAN)
  GTEST_SKIP() << "under ThreadSanitizer a forked child starts no attach thread (die_after_fork)";
#endif
  const pid_t hooker = Spawn({Hooker(), "023", "0", "1", "forkidle"}, "forked");
  const std::string first = FirstLine(*this, "forked");
  ASSERT_FALSE(first.empty()) << "the idle process did not start";
  pid_t parent_pid = 0, child_pid = 0;
  std::istringstream(first) >> parent_pid >> child_pid;
  ASSERT_GT(child_pid, 0) << first;
  const std::string log = dir_ + "/forked.trc";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-j", "023", "-o", log}).status, 0);
  WaitUntilJoined(*this, {parent_pid, child_pid});
  EXPECT_TRUE(HasJoined(*this, parent_pid)) << "the parent did not join the session";
  EXPECT_TRUE(HasJoined(*this, child_pid)) << "the forked worker did not join the session";
  WaitUntilRecording(*this, "forked", {parent_pid, child_pid});
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  // Both end within 20 s of their start by themselves; a hung one is killed, and the test fails.
  const std::optional<int> status = WaitOrKill(hooker, std::chrono::minutes(1));
  if (!status) {
    kill(child_pid, SIGKILL);
    FAIL() << "the forked hooker did not end within 60 s";
  }
  ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  std::istringstream lines(Slurp(dir_ + "/forked.out"));
  std::string child_word;
  uint64_t child_on = 0, parent_on = 0;
  lines >> parent_pid >> child_pid >> child_word >> child_on >> parent_on;
  ASSERT_EQ(child_word, "child") << Slurp(dir_ + "/forked.out");
  SessionE2E::LogSummary s = Summarize(log);
  ExpectHooksWhileOn(s, uint64_t(parent_pid), parent_on);
  ExpectHooksWhileOn(s, uint64_t(child_pid), child_on);
}

TEST_F(SessionE2E, LogOptionsKeepOldStopWhenFullAndSymbols) {
  const std::string log = dir_ + "/opts";
  std::ofstream(log) << "previous";
  ASSERT_EQ(
      Exec({Bin("trace"), "-a", "-c", "-n", "-s", "-L", "512K", "-j", "020", "-o", log}).status, 0);
  ASSERT_EQ(Exec({Hooker(), "020", "100000"}).status, 0);
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  EXPECT_EQ(Slurp(log + ".old"), "previous");
  // -s: the log stops at its limit (plus the closing TRACE OFF), -n: loader entries.
  EXPECT_LE(std::filesystem::file_size(log), 512u * 1024 + 64);
  LogSummary s = Summarize(log);
  EXPECT_GT(s.hooks[0x0200], 0u);
  EXPECT_LT(s.hooks[0x0200], 100000u);
  EXPECT_GT(s.loader_entries, 0u);
  EXPECT_EQ(s.hooks[event::kHookTraceOff], 1u);
}

TEST_F(SessionE2E, BadFlagsAreRefused) {
  Outcome bad = Exec({Bin("trace"), "-Q"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown flag -Q"), std::string::npos) << bad.err;
  bad = Exec({Bin("trace"), "-a", "-j", "zz9"});
  EXPECT_EQ(bad.status, 2);
  bad = Exec({Bin("trcon"), "-x"});
  EXPECT_EQ(bad.status, 2);
  Outcome none = Exec({Bin("trcon")});
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("no trace session is running"), std::string::npos) << none.err;
}

// Why kernel events cannot be tested here, or "".
std::string KernelEventsUnavailable() {
  if (geteuid() != 0) return "kernel events need root; running as uid " + std::to_string(geteuid());
  if (access("/sys/kernel/tracing/instances", F_OK) != 0 &&
      access("/sys/kernel/debug/tracing/instances", F_OK) != 0 &&
      std::system("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null") != 0) {
    return "tracefs is not available and cannot be mounted";
  }
  return "";
}

TEST_F(SessionE2E, PerCpuLogs) {
  if (auto why = KernelEventsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string log = dir_ + "/percpu";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-C", "all", "-o", log}).status, 0);
  Outcome hook = Exec({Hooker(), "020", "10"});
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  LogSummary main_log = Summarize(log);
  EXPECT_EQ(main_log.hooks_by_pid_word[std::stoull(hook.out)], 10u);
  EXPECT_EQ(main_log.hooks[kHookSystemCall], 0u);
  uint64_t syscalls = 0;
  for (unsigned cpu = 0; cpu < 1024; ++cpu) {
    const std::string cpu_log = log + "-" + std::to_string(cpu);
    if (!std::filesystem::exists(cpu_log)) continue;
    LogSummary s = Summarize(cpu_log);
    syscalls += s.hooks[kHookSystemCall];
    EXPECT_EQ(s.hooks[0x0200], 0u);
  }
  EXPECT_GT(syscalls, 0u);
  EXPECT_EQ(Exec({Bin("trace"), "-a", "-C", "all", "-o", "-"}).status, 2);

  // A cpu's log that cannot be written at the end (a directory put in its place during the
  // session) makes trcstop fail and name it; the others are written.
  const std::string broken = dir_ + "/broken";
  ASSERT_EQ(Exec({Bin("trace"), "-a", "-C", "all", "-o", broken}).status, 0);
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (long cpu = 0; cpu < cpus; ++cpu) {
    ASSERT_EQ(mkdir((broken + "-" + std::to_string(cpu)).c_str(), 0700), 0);
  }
  Outcome stop = Exec({Bin("trcstop")});
  EXPECT_EQ(stop.status, 1) << stop.err;
  EXPECT_NE(stop.err.find("not written: " + broken + "-"), std::string::npos) << stop.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(broken));
}

// Kernel events through the reader `reader` selects (RASTRACE_KERNEL_READER: "" = the binary
// per-cpu buffers, "text" = trace_pipe).
void ExpectKernelEvents(SessionE2E& test, const std::string& reader) {
  const std::string& dir_ = test.dir_;
  auto Exec = [&](const std::vector<std::string>& args) { return test.Exec(args); };
  auto Summarize = [&](const std::string& log) { return test.Summarize(log); };
  if (reader.empty()) {
    unsetenv("RASTRACE_KERNEL_READER");
  } else {
    setenv("RASTRACE_KERNEL_READER", reader.c_str(), 1);
  }
  const std::string log = dir_ + "/kernel";
  // The instance of a daemon that died (a pid that no longer exists) is removed at the next start.
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  std::string tracefs = "/sys/kernel/tracing";
  if (access((tracefs + "/instances").c_str(), F_OK) != 0) tracefs = "/sys/kernel/debug/tracing";
  const std::string stale = tracefs + "/instances/rastrace-" + std::to_string(dead);
  ASSERT_EQ(mkdir(stale.c_str(), 0700), 0) << stale;
  Outcome start = Exec({Bin("trace"), "-a", "-o", log});
  ASSERT_EQ(start.status, 0) << start.err;
  // The binary buffers are readable here: no fallback to text.
  EXPECT_EQ(start.err.find("read as text"), std::string::npos) << start.err;
  EXPECT_FALSE(std::filesystem::exists(stale));
  if (std::filesystem::exists(stale)) rmdir(stale.c_str());
  Outcome hook = Exec({Hooker(), "020", "10"});
  ASSERT_EQ(Exec({Bin("trcstop")}).status, 0);
  const uint64_t pid = std::stoull(hook.out);
  SessionE2E::LogSummary s = Summarize(log);
  EXPECT_EQ(s.hooks_by_pid_word[pid], 10u);
  // Every thread's first kernel event says on which cpu it ran.
  EXPECT_GT(s.cpu_events, 0u);
  EXPECT_GT(s.hooks[kHookSystemCall], 0u);
  EXPECT_GT(s.hooks[kHookSyscallReturn], 0u);
  EXPECT_GT(s.hooks[kHookDispatch] + s.hooks[kHookIdle], 0u);
  // A machine busy with system calls (other tests, a build) can overflow the kernel's buffers,
  // which then overwrite their oldest events: those of the short-lived hooker among them. Such
  // losses are counted in a 006 event; only a session that lost nothing must hold every event.
  const uint64_t kernel_lost = s.lost - s.lost_by_threads;
  if (kernel_lost != 0) {
    std::cout << "the kernel's buffers overflowed (" << kernel_lost
              << " events lost, counted): the hooker's own kernel events are not checked"
              << std::endl;  // before Exec forks with this buffer
  } else {
    EXPECT_GT(s.syscalls_by_thread[pid], 0u) << "no system call of the traced process";
    EXPECT_GT(s.hooks[kHookExec], 0u);
    EXPECT_GT(s.hooks[kHookExit], 0u);
    EXPECT_GT(s.hooks[kHookFork], 0u);
    // The process table names the hooker's real parent (this test), and the threads librastrace
    // starts in it (attach, writer) are its threads, not FORKs of new processes.
    std::set<uint64_t> threads, parents, forked;
    auto reader = event::LogReader::Open(log);
    ASSERT_TRUE(reader);
    event::Event ev;
    while (reader->Next(ev) == event::ReadStatus::kEvent) {
      if (ev.hook_id == event::kHookUtil && ev.subhook == event::kUtilProcess && ev.generic &&
          ev.generic_word == pid && ev.buffer.size() >= 16) {
        uint64_t ppid = 0, tid = 0;
        std::memcpy(&ppid, ev.buffer.data(), 8);
        std::memcpy(&tid, ev.buffer.data() + 8, 8);
        parents.insert(ppid);
        threads.insert(tid);
      }
      if (ev.hook_id == kHookFork && ev.word_count >= 1) forked.insert(ev.words[0]);
    }
    EXPECT_EQ(parents, std::set<uint64_t>{static_cast<uint64_t>(getpid())});
    EXPECT_GE(threads.size(), 2u) << "librastrace's threads are not the hooker's";
    for (uint64_t tid : threads) {
      if (tid != pid) {
        EXPECT_EQ(forked.count(tid), 0u) << "thread " << tid << " is a FORK";
      }
    }
  }

  // The report reads like AIX's, with the default and the kernel templates.
  const std::string templates = dir_ + "/trcfmt";
  {
    std::ofstream out(templates);
    out << Slurp(std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt") << "\n"
        << Slurp(std::string(RASTRACE_SOURCE_DIR) + "/templates/kernel.trcfmt");
  }
  Outcome report = Exec({Bin("trcrpt"), "-t", templates, "-O", "exec=on,pid=on", log});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("SYSTEM CALL"), std::string::npos);
  EXPECT_NE(report.out.find("DISPATCH"), std::string::npos);
  EXPECT_NE(report.out.find("session_hooker"), std::string::npos);
  // A system call's entry shows the arguments it takes, by name (the hooker's last call).
  if (kernel_lost == 0) {
    EXPECT_NE(report.out.find("SYSTEM CALL exit_group error_code=0x"), std::string::npos);
  }
  unsetenv("RASTRACE_KERNEL_READER");
}

TEST_F(SessionE2E, KernelEvents) {
  if (auto why = KernelEventsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  ExpectKernelEvents(*this, "");
}

TEST_F(SessionE2E, KernelEventsFromTheTextPipe) {
  if (auto why = KernelEventsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  ExpectKernelEvents(*this, "text");
}

// The daemon never records itself: with no program attached, while other system calls keep it
// reading, the log has no event of any of its threads, and no other event names them (a switch
// to or from it, its place in the process table). Without the exclusion its reads of the
// kernel's buffers were most of the log (issue 16).
TEST_F(SessionE2E, TheDaemonNeverRecordsItself) {
  if (auto why = KernelEventsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string log = dir_ + "/self";
  Outcome start = Exec({Bin("trace"), "-a", "-o", log});
  ASSERT_EQ(start.status, 0) << start.err;
  EXPECT_EQ(start.err.find("own kernel events"), std::string::npos) << start.err;
  const std::string lock = Slurp(dir_ + "/run/ch0/lock");
  const uint64_t daemon = std::stoull(lock);
  std::set<uint64_t> daemon_threads;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(daemon) + "/task")) {
    daemon_threads.insert(std::stoull(entry.path().filename().string()));
  }
  ASSERT_FALSE(daemon_threads.empty());
  // Kernel events for the daemon to read: enough pages that it reads many times over.
  const uint64_t me = static_cast<uint64_t>(gettid());
  for (int i = 0; i < 200000; ++i) (void)getppid();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Outcome stop = Exec({Bin("trcstop")});
  ASSERT_EQ(stop.status, 0) << stop.err;

  auto reader = event::LogReader::Open(log);
  ASSERT_TRUE(reader) << reader.error().message;
  event::Event ev;
  uint64_t own_calls = 0, of_daemon = 0, naming_daemon = 0, events = 0;
  std::string first;
  // The header names the tracer once (its 00A/100, for the thread of TRACE ON and OFF).
  bool header_names_daemon = false;
  while (reader->Next(ev) == event::ReadStatus::kEvent) {
    ++events;
    if (events < 10 && !header_names_daemon && ev.hook_id == event::kHookUtil &&
        ev.subhook == event::kUtilProcess && ev.generic && ev.generic_word == daemon) {
      header_names_daemon = true;
      continue;
    }
    if (ev.hook_id == kHookSystemCall && ev.thread_id == me) ++own_calls;
    // The session's own records (header, TRACE ON/OFF, loss counts) carry the daemon's thread:
    // they are the trace's, not events of the system. Kernel events and the thread and process
    // events that describe the system must not.
    const bool system_event = (ev.hook_id >= kHookInterrupt && ev.hook_id <= kHookExit) ||
                              (ev.hook_id == event::kHookUtil &&
                               (ev.subhook == event::kUtilProcess ||
                                ev.subhook == event::kUtilExec || ev.subhook == event::kUtilCpu));
    bool bad = system_event && daemon_threads.count(ev.thread_id) != 0;
    of_daemon += bad;
    if (ev.hook_id == event::kHookUtil && ev.subhook == event::kUtilProcess && ev.generic &&
        ev.generic_word == daemon) {
      bad = true;
      ++naming_daemon;
    }
    if ((ev.hook_id == kHookDispatch && ev.word_count >= 3 &&
         (daemon_threads.count(ev.words[0]) || daemon_threads.count(ev.words[2]))) ||
        (ev.hook_id == kHookIdle && ev.word_count >= 1 && daemon_threads.count(ev.words[0])) ||
        (ev.hook_id == kHookFork && ev.word_count >= 2 && ev.words[1] == daemon)) {
      bad = true;
      ++naming_daemon;
    }
    if (bad && first.empty()) {
      first =
          fmt::format("hook {:04X} thread {} at offset {}", ev.hook_id, ev.thread_id, ev.offset);
    }
  }
  EXPECT_GT(events, 0u);
  EXPECT_EQ(of_daemon, 0u) << "events of the daemon's threads; the first: " << first;
  EXPECT_EQ(naming_daemon, 0u) << "events naming the daemon; the first: " << first;
  // The session recorded the system all the same: this test's own calls are there unless the
  // kernel lost events (counted).
  SessionE2E::LogSummary s = Summarize(log);
  if (s.lost == 0) {
    EXPECT_GE(own_calls, 200000u);
  }
}

}  // namespace
}  // namespace rastrace::session
