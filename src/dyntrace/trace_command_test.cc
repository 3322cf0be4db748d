// End to end through the commands: trcust compiles the seed 004 sample adapted to dt_sample,
// `trace on` records it, `tracefmt` formats it; `trace on -p` / `trace off` attach to and detach
// from a running program.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "dyntrace/test_support.h"
#ifdef RASTRACE_DYNTRACE_TEST_HAVE_LOG
#include "common/byte_order.h"
#include "event/format.h"
#include "event/reader.h"
#endif

namespace rastrace::dyntrace {
namespace {

namespace fs = std::filesystem;
using testing::Bin;
using testing::MarkerLine;
using testing::ReadAll;
using testing::RunCommand;
using testing::TestProgram;

// The seed 004 sample, adapted to dt_sample: its symbols, a line, its return point.
std::string SeedSampleTsf() {
  return fmt::format(
      R"(;  Sample trace source file of seed 004, adapted to src/dyntrace/testdata/sample.c
      MODNAME = dt_sample
      MAJOR   = 100  /* this is decimal, would be 0x64 if specified hex */
      MAXDATALENGTH = 200 /* max bytes logged per tracepoint is 200 */

      TYPELIST NAME=PRE,ID=1,
               NAME=SYS,ID=0x40,
               NAME=API,ID=128,     /* decimal, if hex would be 0x80 */
               NAME=POST,ID=0x8000

      GROUPLIST NAME=MEM,ID=2,
                NAME=FS,ID=0x5,
                NAME=MOU,ID=13,
                NAME=DOS,ID=0x2B    /* would be 43 if decimal */

      TRACE   MINOR=0x0001,
              TP=.DosOpen,          /* Pre-invocation tracing on DosOpen */
              TYPE=(PRE,API),
              GROUP=DOS,
              DESC="(OS) DosOpen    Pre-Invocation",
              FMT="Major = %X  Minor = %Y",
              FMT="            EAX = %D",
              FMT="            FileName = %P%S",
              REGS=(EAX),
              ASCIIZ32=(.FileName,DIRECT,128)

      TRACE   MINOR=0x7001,
              TP=@sample.c,{},
              TYPE=(API),
              GROUP=DOS,
              DESC="(OS) CheckParm  After Createhandle",
              FMT="                 New handle = %P%W",
              MEM32=(.handle,DIRECT,2)

      TRACE   MINOR=0x8001,         /* Post-invocation tracing at         */
              TP=.DosOpenC,RETEP,   /*   procedure DosOpenC return point. */
              TYPE=(API,POST),
              GROUP=DOS,
              DESC="(OS) DosOpenC   Post-Invocation",
              FMT="                 Return Code = %P%W",
              FMT="                 Variable Rec= %P%U",
              MEM32=(.retcode,DIRECT,2),
              LEN=(var_struct+2,DIRECT),
              MEM32=(.var_struct,DIRECT,LEN)

      TRACE   MINOR=0x0002, TP=.DosOpenC, TYPE=PRE, GROUP=MEM,
              DESC="bad pointer",
              FMT="                 Through bad_pointer = %P%F",
              MEM32=(.bad_pointer,INDIRECT,4)
)",
      MarkerLine("sample.c", "after_createhandle"));
}

class TraceCommandTest : public testing::CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    if (IsSkipped()) return;
    std::ofstream(dir_ / "sample.tsf") << SeedSampleTsf();
  }
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// The formatted FMT lines of tracefmt's output (those that carry no pid or time).
std::vector<std::string> FormattedLines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : Lines(text)) {
    if (line.find(" = ") != std::string::npos || line.find("Variable Rec=") != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

TEST_F(TraceCommandTest, SeedSampleAttachesRecordsAndFormatsEndToEnd) {
  auto compiled = RunCommand({Bin("trcust"), "-o", dir_.string(), "sample.tsf"}, dir_);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  ASSERT_TRUE(fs::exists(dir_ / "TRC0064.TDF"));
  auto traced = RunCommand(
      {Bin("trace"), "on", "TRC0064.TDF", "-o", "run.sav", "--", TestProgram("dt_sample"), "2"},
      dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  auto plain = RunCommand({TestProgram("dt_sample"), "2"}, dir_);
  EXPECT_EQ(traced.out, plain.out);  // the program's own output is untouched
  // auto: the BPF engine wherever it can be loaded.
  std::string engine = testing::BpfUnavailableReason().empty() ? "bpf" : "ptrace";
  EXPECT_NE(traced.err.find("records from 4 tracepoints (" + engine + " engine) in run.sav"),
            std::string::npos)
      << traced.err;
  auto formatted = RunCommand({Bin("tracefmt"), "-t", dir_.string(), "run.sav"}, dir_);
  ASSERT_EQ(formatted.exit_code, 0) << formatted.err << formatted.out;
  std::vector<std::string> expected;
  for (int i = 0; i < 2; ++i) {
    std::string n = std::to_string(i);
    expected.insert(expected.end(),
                    {"Major = 0064  Minor = 0001", "FileName = CONFIG.SYS", "New handle = 000C",
                     "Through bad_pointer = <invalid address: 0x10>", "Return Code = 010" + n,
                     "Variable Rec= AB CD 06 00 0" + n + " 22"});
  }
  std::vector<std::string> got = FormattedLines(formatted.out);
  std::vector<std::string> trimmed;
  for (std::string line : got) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.rfind("EAX = ", 0) == 0) continue;  // a value left in EAX by the caller
    trimmed.push_back(line);
  }
  EXPECT_EQ(trimmed, expected) << formatted.out;
}

TEST_F(TraceCommandTest, TheTsfItselfWorksAsDefinitions) {
  auto traced = RunCommand({Bin("trace"), "on", "sample.tsf", "MINOR=(0x8001)", "-o", "run.sav",
                            "--", TestProgram("dt_sample"), "3"},
                           dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_NE(traced.err.find("3 records from 1 tracepoints"), std::string::npos) << traced.err;
  auto compiled = RunCommand({Bin("trcust"), "-o", dir_.string(), "sample.tsf"}, dir_);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  auto formatted = RunCommand({Bin("tracefmt"), "-t", dir_.string(), "run.sav"}, dir_);
  EXPECT_NE(formatted.out.find("Return Code = 0102"), std::string::npos) << formatted.out;
}

TEST_F(TraceCommandTest, LogOutputIsARastraceLog) {
  auto traced = RunCommand({Bin("trace"), "on", "sample.tsf", "--log", "-o", "run.trc", "--",
                            TestProgram("dt_sample"), "1"},
                           dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  std::ifstream log(dir_ / "run.trc", std::ios::binary);
  uint32_t magic = 0;
  log.read(reinterpret_cast<char*>(&magic), sizeof magic);
  EXPECT_EQ(magic, 0xEFDF1114u);
#ifdef RASTRACE_DYNTRACE_TEST_HAVE_LOG
  // One 00A/109 definition per tracepoint, in TSF order, before the first 00C hit.
  auto reader = event::LogReader::Open((dir_ / "run.trc").string());
  ASSERT_TRUE(reader) << reader.error().message;
  struct Definition {
    uint64_t word;
    std::string name;
    bool operator==(const Definition&) const = default;
  };
  std::vector<Definition> definitions;
  size_t hits = 0;
  event::Event event;
  while (reader->Next(event) == event::ReadStatus::kEvent) {
    if (event.hook_id == event::kHookDynamicTracepoint) ++hits;
    if (event.hook_id != event::kHookUtil || event.subhook != event::kUtilTracepointDef) continue;
    EXPECT_EQ(hits, 0u) << "a definition after a hit";
    ASSERT_TRUE(event.generic);
    ASSERT_GE(event.buffer.size(), 2u);
    uint16_t length = Load16(event.buffer.data(), reader->byte_order());
    ASSERT_EQ(event.buffer.size(), 2u + length);
    definitions.push_back(
        {event.generic_word,
         std::string(reinterpret_cast<const char*>(event.buffer.data()) + 2, length)});
  }
  auto word = [](uint64_t major, uint64_t minor, uint64_t kind) {
    return major | minor << 16 | kind << 32;
  };
  std::string line = fmt::format("sample.c:{}", MarkerLine("sample.c", "after_createhandle"));
  std::vector<Definition> expected = {{word(100, 0x0001, 1), "DosOpen"},
                                      {word(100, 0x7001, 0), line},
                                      {word(100, 0x8001, 2), "DosOpenC"},
                                      {word(100, 0x0002, 1), "DosOpenC"}};
  EXPECT_EQ(definitions, expected);
  EXPECT_EQ(hits, 4u);
#endif
}

TEST_F(TraceCommandTest, AnOffsetIsAPointInsideTheProcedure) {
#ifndef RASTRACE_DYNTRACE_TEST_HAVE_LOG
  GTEST_SKIP() << "the event part (log reader) is not in this build";
#else
  std::ofstream(dir_ / "offset.tsf")
      << "MODNAME = dt_sample\nMAJOR = 0x300\nTRACE MINOR=5, TP=.DosOpen+1, REGS=(EAX)\n"
         "TRACE MINOR=6, TP=.DosOpen+0, REGS=(EAX)\n";
  auto traced = RunCommand({Bin("trace"), "on", "offset.tsf", "--log", "-o", "run.trc", "--",
                            TestProgram("dt_sample"), "1"},
                           dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  auto reader = event::LogReader::Open((dir_ / "run.trc").string());
  ASSERT_TRUE(reader) << reader.error().message;
  std::vector<uint64_t> words;
  event::Event event;
  while (reader->Next(event) == event::ReadStatus::kEvent) {
    if (event.hook_id == event::kHookUtil && event.subhook == event::kUtilTracepointDef) {
      words.push_back(event.generic_word);
    }
  }
  EXPECT_EQ(words, (std::vector<uint64_t>{0x300 | 5 << 16, 0x300 | 6 << 16 | uint64_t{1} << 32}));
#endif
}

#ifdef RASTRACE_DYNTRACE_TEST_HAVE_LOG
struct LoggedHit {
  uint16_t minor;
  std::vector<uint8_t> data;
};

// The 00C hits of a dyntrace log and the number of 00A/109 definitions before the first.
std::vector<LoggedHit> ReadHits(const fs::path& log, size_t& definitions_before) {
  std::vector<LoggedHit> hits;
  definitions_before = 0;
  auto reader = event::LogReader::Open(log.string());
  EXPECT_TRUE(reader) << reader.error().message;
  if (!reader) return hits;
  event::Event event;
  while (reader->Next(event) == event::ReadStatus::kEvent) {
    if (event.hook_id == event::kHookDynamicTracepoint) {
      hits.push_back({event.subhook, {event.buffer.begin(), event.buffer.end()}});
    } else if (event.hook_id == event::kHookUtil && event.subhook == event::kUtilTracepointDef &&
               hits.empty()) {
      ++definitions_before;
    }
  }
  return hits;
}
#endif

// Tracepoints in libdtdl.so, which dt_dlopen maps only after the attach.
constexpr const char* kDlopenTsf =
    "MODNAME = libdtdl.so\nMAJOR = 0x300\n"
    "TRACE MINOR=1, TP=.dl_probe, REGS=(EDI),\n"
    "      MEM32=(.dl_calls,DIRECT,4)\n"
    "TRACE MINOR=2, TP=.dl_probe,RETEP, REGS=(EAX)\n";

// kDlopenTsf with the library's path as MODNAME, which the BPF engine needs.
void WriteDlopenTsfWithPath(const fs::path& tsf, const std::string& library) {
  std::string with_path = kDlopenTsf;
  with_path.replace(0, with_path.find('\n'), "MODNAME = " + library);
  std::ofstream(tsf) << with_path;
}

// A MODNAME that is not mapped at attach: dt_dlopen loads it later. ptrace catches the dynamic
// linker's _dl_debug_state; uprobes (given the path) sit on the file before it is mapped.
TEST_F(TraceCommandTest, AModuleLoadedLaterIsAttachedWhenItIsMapped) {
#ifndef RASTRACE_DYNTRACE_TEST_HAVE_LOG
  GTEST_SKIP() << "the event part (log reader) is not in this build";
#else
  std::string library = TestProgram("libdtdl.so");
  ASSERT_TRUE(fs::exists(library));
  std::ofstream(dir_ / "dl.tsf") << kDlopenTsf;
  auto traced = RunCommand({Bin("trace"), "on", "dl.tsf", "--log", "-o", "run.trc", "--",
                            TestProgram("dt_dlopen"), library, "5"},
                           dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, "sum 25\n");
  EXPECT_NE(traced.err.find("not mapped yet"), std::string::npos) << traced.err;
  EXPECT_NE(traced.err.find("10 records from 2 tracepoints (ptrace engine)"), std::string::npos)
      << traced.err;
  size_t definitions = 0;
  std::vector<LoggedHit> hits = ReadHits(dir_ / "run.trc", definitions);
  EXPECT_EQ(definitions, 2u);
  ASSERT_EQ(hits.size(), 10u);
  for (uint32_t i = 0; i < 5; ++i) {
    // Entry: EDI = i, then dl_calls (read in the library's data, so its load bias was right).
    EXPECT_EQ(hits[2 * i].minor, 1);
    EXPECT_EQ(hits[2 * i].data, (std::vector<uint8_t>{static_cast<uint8_t>(i), 0, 0, 0, 0, 4, 0,
                                                      static_cast<uint8_t>(i), 0, 0, 0}));
    EXPECT_EQ(hits[2 * i + 1].minor, 2);
    EXPECT_EQ(hits[2 * i + 1].data,
              (std::vector<uint8_t>{static_cast<uint8_t>(2 * i + 1), 0, 0, 0}));
  }

  // The BPF engine's uprobes need the file: a bare name is refused, a path works before the
  // mapping exists, and a symbol of the module (dl_calls) is read at the load bias the program
  // finds at the hit.
  auto bare = RunCommand({Bin("trace"), "on", "dl.tsf", "-e", "bpf", "--log", "-o", "u.trc", "--",
                          TestProgram("dt_dlopen"), library, "5"},
                         dir_);
  EXPECT_EQ(bare.exit_code, 1);
  EXPECT_NE(bare.err.find("need its path"), std::string::npos) << bare.err;
  std::string reason = testing::BpfUnavailableReason();
  if (!reason.empty()) GTEST_SKIP() << "BPF half: " << reason;
  WriteDlopenTsfWithPath(dir_ / "dlpath.tsf", library);
  auto bpf = RunCommand({Bin("trace"), "on", "dlpath.tsf", "--log", "-o", "u.trc", "--",
                         TestProgram("dt_dlopen"), library, "5"},
                        dir_);
  ASSERT_EQ(bpf.exit_code, 0) << bpf.err;
  EXPECT_EQ(bpf.out, "sum 25\n");
  EXPECT_NE(bpf.err.find("10 records from 2 tracepoints (bpf engine)"), std::string::npos)
      << bpf.err;
  std::vector<LoggedHit> bpf_hits = ReadHits(dir_ / "u.trc", definitions);
  EXPECT_EQ(definitions, 2u);
  ASSERT_EQ(bpf_hits.size(), 10u);
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(bpf_hits[i].minor, hits[i].minor);
    EXPECT_EQ(bpf_hits[i].data, hits[i].data) << "hit " << i;
  }
#endif
}

// dlclose unmaps the module (its breakpoints are forgotten, not restored into memory that is no
// longer its) and a second dlopen maps it afresh: the tracepoints are attached again, and the
// data symbol is read at its new address (dl_calls counts from 0 again).
TEST_F(TraceCommandTest, AModuleClosedAndLoadedAgainIsAttachedAgain) {
#ifndef RASTRACE_DYNTRACE_TEST_HAVE_LOG
  GTEST_SKIP() << "the event part (log reader) is not in this build";
#else
  std::string library = TestProgram("libdtdl.so");
  ASSERT_TRUE(fs::exists(library));
  std::ofstream(dir_ / "dl.tsf") << kDlopenTsf;
  auto plain = RunCommand({TestProgram("dt_dlopen"), library, "3", "3"}, dir_);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "sum 9\nsum 9\nsum 9\n");
  auto traced = RunCommand({Bin("trace"), "on", "dl.tsf", "--log", "-o", "run.trc", "--",
                            TestProgram("dt_dlopen"), library, "3", "3"},
                           dir_);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_NE(traced.err.find("18 records"), std::string::npos) << traced.err;
  size_t definitions = 0;
  std::vector<LoggedHit> hits = ReadHits(dir_ / "run.trc", definitions);
  ASSERT_EQ(hits.size(), 18u);
  for (uint32_t round = 0; round < 3; ++round) {
    for (uint32_t i = 0; i < 3; ++i) {
      size_t at = 6 * round + 2 * i;
      EXPECT_EQ(hits[at].minor, 1);
      EXPECT_EQ(hits[at].data, (std::vector<uint8_t>{static_cast<uint8_t>(i), 0, 0, 0, 0, 4, 0,
                                                     static_cast<uint8_t>(i), 0, 0, 0}))
          << "round " << round << " call " << i;
      EXPECT_EQ(hits[at + 1].minor, 2);
      EXPECT_EQ(hits[at + 1].data,
                (std::vector<uint8_t>{static_cast<uint8_t>(2 * i + 1), 0, 0, 0}));
    }
  }
  // The BPF engine with the module's path: the kernel arms the probes in each new mapping, and
  // dl_calls is read wherever the module lands.
  std::string reason = testing::BpfUnavailableReason();
  if (!reason.empty()) GTEST_SKIP() << "BPF half: " << reason;
  WriteDlopenTsfWithPath(dir_ / "dlpath.tsf", library);
  auto bpf = RunCommand({Bin("trace"), "on", "dlpath.tsf", "--log", "-o", "u.trc", "--",
                         TestProgram("dt_dlopen"), library, "3", "3"},
                        dir_);
  ASSERT_EQ(bpf.exit_code, 0) << bpf.err;
  EXPECT_EQ(bpf.out, plain.out);
  std::vector<LoggedHit> bpf_hits = ReadHits(dir_ / "u.trc", definitions);
  ASSERT_EQ(bpf_hits.size(), hits.size());
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(bpf_hits[i].data, hits[i].data) << i;
#endif
}

// Reads `lines` more lines of the program's output from `fd` into `text` (at most 30 s).
bool ReadLines(int fd, int lines, std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int seen = 0;
  while (seen < lines && std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    char c;
    if (read(fd, &c, 1) != 1) return false;
    text.push_back(c);
    if (c == '\n') ++seen;
  }
  return seen == lines;
}

TEST_F(TraceCommandTest, AttachToARunningProgramThenTraceOffLeavesItRunning) {
  int out_pipe[2];
  ASSERT_EQ(pipe(out_pipe), 0);
  // It runs until the test creates the stop file (or 100 s pass): the test waits on its output,
  // not on time.
  const std::string stop_file = (dir_ / "stop").string();
  pid_t program = fork();
  if (program == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    execl(TestProgram("dt_sample").c_str(), "dt_sample", "10000", "10", stop_file.c_str(), nullptr);
    _exit(127);
  }
  close(out_pipe[1]);
  std::string output;
  // Iteration 0 is done before the attach.
  ASSERT_TRUE(ReadLines(out_pipe[0], 1, output)) << output;
  auto on = RunCommand({Bin("trace"), "on", "sample.tsf", "TYPE=POST", "-p",
                        std::to_string(program), "-o", "attached.sav"},
                       dir_);
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("1 tracepoints attached to process " + std::to_string(program)),
            std::string::npos)
      << on.out;
  auto twice = RunCommand({Bin("trace"), "on", "sample.tsf", "-p", std::to_string(program)}, dir_);
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("is already traced"), std::string::npos) << twice.err;
  // A few iterations traced (counted from now: lines printed while trace on attached, still in
  // the pipe, are taken first), then detached; a few more show the program still runs.
  for (pollfd pfd{out_pipe[0], POLLIN, 0}; poll(&pfd, 1, 0) > 0; pfd.revents = 0) {
    char c;
    if (read(out_pipe[0], &c, 1) != 1) break;
    output.push_back(c);
  }
  ASSERT_TRUE(ReadLines(out_pipe[0], 3, output)) << output;
  auto off = RunCommand({Bin("trace"), "off"}, dir_);
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("detached from process " + std::to_string(program)), std::string::npos);
  ASSERT_TRUE(ReadLines(out_pipe[0], 3, output)) << output;
  std::ofstream(stop_file) << "";
  output += ReadAll(out_pipe[0]);
  close(out_pipe[0]);
  int status = 0;
  waitpid(program, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const auto iterations = std::count(output.begin(), output.end(), '\n');
  EXPECT_EQ(output, RunCommand({TestProgram("dt_sample"), std::to_string(iterations)}, dir_).out);
  auto compiled = RunCommand({Bin("trcust"), "-o", dir_.string(), "sample.tsf"}, dir_);
  ASSERT_EQ(compiled.exit_code, 0);
  auto formatted = RunCommand({Bin("tracefmt"), "-t", dir_.string(), "attached.sav"}, dir_);
  // DosOpenC returns 0x100 + the iteration: traced iterations, none from before the attach.
  EXPECT_NE(formatted.out.find("Return Code = 0"), std::string::npos) << formatted.out;
  EXPECT_EQ(formatted.out.find("Return Code = 0100"), std::string::npos);  // before the attach
  // Nothing is left attached.
  auto again = RunCommand({Bin("trace"), "off"}, dir_);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("none of your dynamic traces is attached"), std::string::npos)
      << again.err;
}

TEST_F(TraceCommandTest, BadInputGetsAClearErrorAndNoTrace) {
  std::ofstream(dir_ / "bad.tsf")
      << "MAJOR = 1\nTRACE TP=.DosOpen, REGS=(EAX),\n  MEM=(.x,DIRECT,4)\n";
  auto segmented =
      RunCommand({Bin("trace"), "on", "bad.tsf", "--", TestProgram("dt_sample"), "1"}, dir_);
  EXPECT_EQ(segmented.exit_code, 1);
  EXPECT_NE(segmented.err.find("bad.tsf:3:"), std::string::npos) << segmented.err;
  EXPECT_NE(segmented.err.find("segmented"), std::string::npos) << segmented.err;
  std::ofstream(dir_ / "syntax.tsf") << "MAJOR = 1\nTRACE TP=.DosOpen, REGS=(EAX\n";
  auto syntax =
      RunCommand({Bin("trace"), "on", "syntax.tsf", "--", TestProgram("dt_sample"), "1"}, dir_);
  EXPECT_EQ(syntax.exit_code, 1);
  EXPECT_NE(syntax.err.find("syntax.tsf:"), std::string::npos) << syntax.err;
  std::ofstream(dir_ / "big.tsf")
      << "MODNAME = dt_sample\nMAJOR = 0x100\nTRACE TP=.DosOpen, REGS=(EAX)\n";
  auto big_major =
      RunCommand({Bin("trace"), "on", "big.tsf", "--", TestProgram("dt_sample"), "1"}, dir_);
  EXPECT_EQ(big_major.exit_code, 1);
  EXPECT_NE(big_major.err.find("does not fit an STDA record"), std::string::npos) << big_major.err;
  auto big_log = RunCommand({Bin("trace"), "on", "big.tsf", "--log", "-o", "big.trc", "--",
                             TestProgram("dt_sample"), "1"},
                            dir_);
  EXPECT_EQ(big_log.exit_code, 0) << big_log.err;
  auto neither = RunCommand({Bin("trace"), "on", "sample.tsf"}, dir_);
  EXPECT_EQ(neither.exit_code, 2);
  auto no_process = RunCommand({Bin("trace"), "on", "sample.tsf", "-p", "999999999"}, dir_);
  EXPECT_EQ(no_process.exit_code, 1);
  auto unknown_type = RunCommand(
      {Bin("trace"), "on", "sample.tsf", "TYPE=(NOPE)", "--", TestProgram("dt_sample"), "1"}, dir_);
  EXPECT_EQ(unknown_type.exit_code, 1);
  EXPECT_NE(unknown_type.err.find("TYPE NOPE is not in the TYPELIST"), std::string::npos);
}

}  // namespace
}  // namespace rastrace::dyntrace
