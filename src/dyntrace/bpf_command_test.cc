// End to end through the commands, the BPF engine as users meet it: its formatted records of
// issue 18's program equal the ptrace engine's; hits a full ring loses are counted in the summary,
// the log's 006 event and the save file; `auto` without BPF says why on one line; a MODNAME that
// never appears fails; `trace off` leaves other users' sessions alone, and a tracer that cannot
// record its session says why.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "dyntrace/test_support.h"
#ifdef RASTRACE_DYNTRACE_TEST_HAVE_LOG
#include "event/format.h"
#include "event/reader.h"
#endif

namespace rastrace::dyntrace {
namespace {

namespace fs = std::filesystem;
using testing::Bin;
using testing::ReadAll;
using testing::RunCommand;
using testing::TestProgram;

// Issue 18's tracepoints on dt_items: process_item(const char* name, int qty).
constexpr const char* kItemsTsf = R"(MODNAME = dt_items
MAJOR = 0x50
TRACE MINOR=1, TP=.process_item, DESC="process_item entry",
      FMT="  qty = %F", FMT="  name = %P%S", FMT="  counter = %P%F",
      REGS=(ESI), ASCIIZ32=(RDI,DIRECT,40), MEM32=(.g_counter,DIRECT,4)
TRACE MINOR=2, TP=.process_item,RETEP, DESC="process_item return",
      FMT="  result = %F", REGS=(EAX)
)";

class BpfCommandTest : public testing::CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    if (IsSkipped()) return;
    std::string reason = testing::BpfUnavailableReason();
    if (!reason.empty()) GTEST_SKIP() << reason;
    std::ofstream(dir_ / "items.tsf") << kItemsTsf;
  }
};

// tracefmt's output without what differs from run to run: the save time, the trace on/off
// stamps, each record's pid and time.
std::string WithoutTimesAndPids(const std::string& text) {
  static const std::regex kSaved("^Save file .*\n(Trace on .*\n)?");
  static const std::regex kHeading("PID [0-9]+  Time [0-9:.]+");
  return std::regex_replace(std::regex_replace(text, kSaved, ""), kHeading, "PID -  Time -");
}

// What the FMT lines of dt_items N must say, call by call.
std::string ExpectedItemLines(int calls) {
  const char* kinds[] = {"apple", "pear", "a-name-longer-than-forty-characters-is-cut-at-forty", "",
                         "plum"};
  std::string lines;
  uint32_t counter = 0;
  for (int i = 0; i < calls; ++i) {
    std::string name = fmt::format("{}-{}", kinds[i % 5], i);
    uint32_t qty = static_cast<uint32_t>(i % 13 + 1);
    lines += fmt::format("  qty = {:08X}\n  name = {}\n  counter = {:08X}\n", qty,
                         name.substr(0, 40), counter);
    lines += fmt::format("  result = {:08X}\n", static_cast<uint32_t>(name.size()) * 3 + qty);
    counter += qty;
  }
  return lines;
}

std::string FmtLines(const std::string& text) {
  std::string lines;
  static const std::regex kFmtLine("^  (qty|name|counter|result) = .*$");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, kFmtLine)) lines += line + "\n";
  }
  return lines;
}

TEST_F(BpfCommandTest, BothEnginesFormatTheSameRecordsOfTheIssueProgram) {
  constexpr int kCalls = 200;
  auto compiled = RunCommand({Bin("trcust"), "-o", dir_.string(), "items.tsf"}, dir_);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  std::string plain = RunCommand({TestProgram("dt_items"), std::to_string(kCalls)}, dir_).out;
  std::map<std::string, std::string> formatted;
  for (const std::string engine : {"bpf", "ptrace"}) {
    auto traced =
        RunCommand({Bin("trace"), "on", "TRC0050.TDF", "-e", engine, "-o", engine + ".sav", "--",
                    TestProgram("dt_items"), std::to_string(kCalls)},
                   dir_);
    ASSERT_EQ(traced.exit_code, 0) << traced.err;
    EXPECT_EQ(traced.out, plain);
    EXPECT_NE(traced.err.find(fmt::format("{} records from 2 tracepoints ({} engine) in {}.sav",
                                          2 * kCalls, engine, engine)),
              std::string::npos)
        << traced.err;
    auto shown = RunCommand({Bin("tracefmt"), "-t", dir_.string(), engine + ".sav"}, dir_);
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    formatted[engine] = shown.out;
  }
  EXPECT_EQ(WithoutTimesAndPids(formatted["bpf"]), WithoutTimesAndPids(formatted["ptrace"]));
  EXPECT_EQ(FmtLines(formatted["bpf"]), ExpectedItemLines(kCalls));
  EXPECT_NE(formatted["bpf"].find("Summary: 400 records in the buffer"), std::string::npos)
      << formatted["bpf"];
}

// Waits up to `seconds` for `done`.
template <class Done>
bool WaitFor(Done done, int seconds = 10) {
  for (int waited = 0; waited < seconds * 100; ++waited) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// The target of the one session in the state directory `run`, 0 when there is none yet.
pid_t SessionTarget(const fs::path& run) {
  for (const auto& entry : fs::directory_iterator(run)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("dyntrace.", 0) == 0 && name.find(".tmp") == std::string::npos) {
      return static_cast<pid_t>(std::stol(name.substr(9)));
    }
  }
  return 0;
}

char ProcessState(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text;
  std::getline(in, text);
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? 'X' : text[close + 2];
}

// The tracer is stopped while the program makes 40,000 hits into a 4 KiB ring: most are lost,
// none silently. `extra` selects the output.
struct LostRun {
  uint64_t records = 0;
  uint64_t lost = 0;
  std::string err;
};
LostRun RunWithAStoppedTracer(const fs::path& dir, const std::vector<std::string>& extra) {
  LostRun result;
  std::vector<std::string> argv = {Bin("trace"), "on", "items.tsf", "--ring-size", "4096"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  for (const char* arg : {"--", "PROGRAM", "20000", "-1"}) argv.emplace_back(arg);
  argv[argv.size() - 3] = TestProgram("dt_items");
  std::string err_path = (dir / "trace.err").string();
  // The program makes its calls once its stdin (this pipe, through the tracer) ends.
  int go[2];
  EXPECT_EQ(pipe2(go, O_CLOEXEC), 0);
  pid_t tracer = fork();
  if (tracer == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_WRONLY);
    dup2(go[0], 0);
    dup2(err, 2);
    dup2(null, 1);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(go[0]);
  // Attached once the session's state is written; the program waits for its stdin to end.
  pid_t target = 0;
  EXPECT_TRUE(WaitFor([&] { return (target = SessionTarget(dir / "run")) != 0; }));
  kill(tracer, SIGSTOP);
  close(go[1]);
  EXPECT_TRUE(WaitFor([&] { return target != 0 && ProcessState(target) == 'Z'; }, 60));
  kill(tracer, SIGCONT);
  int status = 0;
  waitpid(tracer, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(err_path);
  result.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::smatch match;
  if (std::regex_search(result.err, match,
                        std::regex("trace: ([0-9]+) records from 2 tracepoints \\(bpf engine, "
                                   "([0-9]+) hits lost\\)"))) {
    result.records = std::stoull(match[1]);
    result.lost = std::stoull(match[2]);
  }
  return result;
}

TEST_F(BpfCommandTest, HitsAFullRingLosesAreCountedInTheSummaryTheLogAndTheSaveFile) {
  auto compiled = RunCommand({Bin("trcust"), "-o", dir_.string(), "items.tsf"}, dir_);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  LostRun saved = RunWithAStoppedTracer(dir_, {"-o", "lost.sav"});
  EXPECT_GT(saved.lost, 30000u) << saved.err;
  EXPECT_EQ(saved.records + saved.lost, 40000u) << saved.err;
  EXPECT_NE(saved.err.find("hits were lost: the BPF ring buffer (4096 bytes) was full"),
            std::string::npos)
      << saved.err;
  auto shown = RunCommand({Bin("tracefmt"), "-t", dir_.string(), "lost.sav"}, dir_);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(fmt::format("  lost: {} hits the tracer could not record", saved.lost)),
            std::string::npos)
      << shown.out.substr(shown.out.size() > 600 ? shown.out.size() - 600 : 0);
  EXPECT_EQ(shown.out.find("Minor 0x0000"), std::string::npos);  // counted, not listed

#ifdef RASTRACE_DYNTRACE_TEST_HAVE_LOG
  LostRun logged = RunWithAStoppedTracer(dir_, {"--log", "-o", "lost.trc"});
  EXPECT_GT(logged.lost, 30000u) << logged.err;
  EXPECT_EQ(logged.records + logged.lost, 40000u) << logged.err;
  auto reader = event::LogReader::Open((dir_ / "lost.trc").string());
  ASSERT_TRUE(reader) << reader.error().message;
  uint64_t hits = 0, lost_events = 0, lost = 0;
  event::Event event;
  while (reader->Next(event) == event::ReadStatus::kEvent) {
    if (event.hook_id == event::kHookDynamicTracepoint) ++hits;
    if (event.hook_id == event::kHookLost) {
      ++lost_events;
      lost += event.words[0];
    }
  }
  EXPECT_EQ(hits, logged.records);
  EXPECT_EQ(lost_events, 1u);
  EXPECT_EQ(lost, logged.lost);
  auto from_log = RunCommand({Bin("tracefmt"), "-t", dir_.string(), "lost.trc"}, dir_);
  EXPECT_NE(from_log.out.find(fmt::format("  lost: {} hits", logged.lost)), std::string::npos);
#endif
}

TEST_F(BpfCommandTest, AutoWithoutBpfTakesPtraceAndSaysWhyOnOneLine) {
  constexpr uid_t kNobody = 65534;
  auto probe = RunCommand({Bin("trace"), "--help"}, "/", kNobody);
  if (geteuid() != 0 || probe.exit_code == 126 || probe.exit_code == 127) {
    GTEST_SKIP() << "needs root to run trace as nobody, and a build nobody can enter";
  }
  ASSERT_EQ(chown(dir_.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(chown((dir_ / "run").c_str(), kNobody, kNobody), 0);
  chmod((dir_ / "run").c_str(), 0700);
  auto traced = RunCommand(
      {Bin("trace"), "on", "items.tsf", "-o", "nobody.sav", "--", TestProgram("dt_items"), "3"},
      dir_, kNobody);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_NE(traced.err.find("6 records from 2 tracepoints (ptrace engine)"), std::string::npos)
      << traced.err;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(traced.err, match,
                                std::regex("trace: using the ptrace engine: ([^\n]*)\n")))
      << traced.err;
  EXPECT_NE(match[1].str().find("BPF needs root"), std::string::npos) << match[1];
  // -e bpf is refused with the reason.
  auto forced = RunCommand({Bin("trace"), "on", "items.tsf", "-e", "bpf", "-o", "nobody.sav", "--",
                            TestProgram("dt_items"), "3"},
                           dir_, kNobody);
  EXPECT_EQ(forced.exit_code, 1);
  EXPECT_NE(forced.err.find("BPF needs root"), std::string::npos) << forced.err;
}

TEST_F(BpfCommandTest, AModnameThatNeverAppearsIsAnErrorNotZeroRecords) {
  // ptrace waits for a bare name the dynamic linker never loads.
  std::ofstream(dir_ / "never.tsf") << "MODNAME = libnever.so\nMAJOR = 0x51\n"
                                       "TRACE TP=.never_called, REGS=(EAX)\n";
  auto bare = RunCommand(
      {Bin("trace"), "on", "never.tsf", "-o", "never.sav", "--", TestProgram("dt_items"), "2"},
      dir_);
  EXPECT_EQ(bare.exit_code, 1) << bare.err;
  EXPECT_NE(bare.err.find("MODNAME libnever.so never appeared in process"), std::string::npos)
      << bare.err;
  // The BPF engine's probes wait on a path the program never maps.
  std::string library = TestProgram("libdtdl.so");
  std::ofstream(dir_ / "path.tsf")
      << "MODNAME = " << library << "\nMAJOR = 0x51\nTRACE TP=.dl_probe, REGS=(EDI)\n";
  auto path = RunCommand(
      {Bin("trace"), "on", "path.tsf", "-o", "path.sav", "--", TestProgram("dt_items"), "2"}, dir_);
  EXPECT_EQ(path.exit_code, 1) << path.err;
  EXPECT_NE(path.err.find("never appeared"), std::string::npos) << path.err;
}

TEST_F(BpfCommandTest, TraceOffActsOnlyOnTheSessionsOfItsUser) {
  // Another user's session: a live tracer (a sleeping process stands in for it) and its target.
  auto start_sleeper = [] {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sleep", "sleep", "30", nullptr);
      _exit(127);
    }
    return pid;
  };
  pid_t other_tracer = start_sleeper();
  pid_t other_target = start_sleeper();
  std::ofstream(dir_ / "run" / fmt::format("dyntrace.{}", other_target))
      << fmt::format("v2 {} {} bpf 65534 4294967295 0 theirs.sav\n", other_tracer, other_target);
  // This user's session on a running program, which waits until its stdin ends.
  int out_pipe[2], go[2];
  ASSERT_EQ(pipe2(out_pipe, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
  pid_t program = fork();
  if (program == 0) {
    dup2(go[0], 0);
    dup2(out_pipe[1], 1);
    execl(TestProgram("dt_items").c_str(), "dt_items", "10", "-1", nullptr);
    _exit(127);
  }
  close(out_pipe[1]);
  close(go[0]);
  // Attached only once the program is mapped: before that (exec or the dynamic linker still
  // running) `trace` says it waits for the module, a line between the two this test checks.
  ASSERT_TRUE(WaitFor([&] {
    std::ifstream maps(fmt::format("/proc/{}/maps", program));
    std::stringstream text;
    text << maps.rdbuf();
    return text.str().find("dt_items") != std::string::npos;
  }));
  // A tracer that attached but cannot record its session (the state directory is a file) says
  // why and detaches; the definitions' warnings follow, each on its own line (they once ran into
  // the error as "\nW...").
  std::ofstream(dir_ / "warn.tsf") << "MODNAME = dt_items\nMAJOR = 0x60\nMAXDATALENGTH = 20\n"
                                      "TRACE MINOR=1, TP=.process_item, MEM32=(RSP,DIRECT,40)\n";
  std::ofstream(dir_ / "not-a-dir") << "x";
  setenv("RASTRACE_RUNTIME_DIR", (dir_ / "not-a-dir").c_str(), 1);
  auto unrecorded = RunCommand(
      {Bin("trace"), "on", "warn.tsf", "-p", std::to_string(program), "-o", "warn.sav"}, dir_);
  setenv("RASTRACE_RUNTIME_DIR", (dir_ / "run").c_str(), 1);
  EXPECT_EQ(unrecorded.exit_code, 1);
  EXPECT_NE(
      unrecorded.err.find("not-a-dir: not a directory owned by this user\ntrace: warn.tsf:4:"),
      std::string::npos)
      << unrecorded.err;
  EXPECT_EQ(unrecorded.err.find("\nW"), std::string::npos) << unrecorded.err;
  auto on = RunCommand(
      {Bin("trace"), "on", "items.tsf", "-p", std::to_string(program), "-o", "mine.sav"}, dir_);
  ASSERT_EQ(on.exit_code, 0) << on.err;

  auto theirs = RunCommand({Bin("trace"), "off", "-p", std::to_string(other_target)}, dir_);
  EXPECT_EQ(theirs.exit_code, 1);
  EXPECT_NE(theirs.err.find("another user's session"), std::string::npos) << theirs.err;
  auto off = RunCommand({Bin("trace"), "off"}, dir_);  // not "several processes are traced"
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("detached from process " + std::to_string(program)), std::string::npos)
      << off.out;
  EXPECT_EQ(kill(other_tracer, 0), 0) << "another user's tracer was signalled";
  EXPECT_TRUE(fs::exists(dir_ / "run" / fmt::format("dyntrace.{}", other_target)));

  close(go[1]);
  ReadAll(out_pipe[0]);
  close(out_pipe[0]);
  int status = 0;
  waitpid(program, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  for (pid_t sleeper : {other_tracer, other_target}) {
    kill(sleeper, SIGKILL);
    waitpid(sleeper, nullptr, 0);
  }
}

}  // namespace
}  // namespace rastrace::dyntrace
