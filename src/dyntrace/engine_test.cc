// Both engines against the example programs: every kind of tracepoint and data statement, the
// traced program's own output, attach and detach while it runs, and four threads.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "dyntrace/bpf_engine.h"
#include "dyntrace/elf_module.h"
#include "dyntrace/launcher.h"
#include "dyntrace/ptrace_engine.h"
#include "dyntrace/resolver.h"
#include "dyntrace/test_support.h"
#include "dyntrace/x86_emulator.h"
#include "dyntrace/x86_length.h"

namespace rastrace::dyntrace {
namespace {

using testing::CollectedHit;
using testing::CollectingSink;
using testing::LoadLe;
using testing::MarkerLine;
using testing::ParseModule;
using testing::ReadAll;
using testing::ResolveInProcess;
using testing::TestProgram;

enum class Engine { kPtrace, kBpf };

std::string SampleTsf(const std::string& modname) {
  return fmt::format(R"(MODNAME = {}
MAJOR = 0x64
MAXDATALENGTH = 200
TYPELIST NAME=PRE,ID=1, NAME=API,ID=128, NAME=POST,ID=0x8000
GROUPLIST NAME=DOS,ID=0x2B, NAME=MEM,ID=2
TRACE MINOR=0x0001, TP=.DosOpen, TYPE=(PRE,API), GROUP=DOS,
      DESC="DosOpen Pre-Invocation",
      FMT="ESI = %F  RDI = %Q",
      FMT="FileName = %P%S",
      FMT="Request = %P%U",
      REGS=(ESI,RDI),
      ASCIIZ32=(.FileName,DIRECT,128),
      MEM32=(RSI,DIRECT,16)
TRACE MINOR=0x0002, TP=.DosOpen+4, TYPE=API, GROUP=MEM, REGS=(RSP,RBP)
TRACE MINOR=0x7001, TP=@sample.c,{}, TYPE=API, GROUP=DOS, MEM32=(.handle,DIRECT,2)
TRACE MINOR=0x8001, TP=.DosOpenC,RETEP, TYPE=(API,POST), GROUP=DOS,
      REGS=(EAX),
      MEM32=(.retcode,DIRECT,2),
      LEN=(var_struct+2,DIRECT),
      MEM32=(.var_struct,DIRECT,LEN)
TRACE MINOR=0x0003, TP=.DosOpenC, TYPE=PRE, GROUP=MEM,
      MEM32=(.bad_pointer,INDIRECT,8), MEM32=(.retcode,DIRECT,2)
TRACE MINOR=0x0004, TP=.DosOpenC, TYPE=PRE, GROUP=MEM, MEM32=(.current_request,INDIRECT,16)
)",
                     modname, MarkerLine("sample.c", "after_createhandle"));
}

int g_child_status = 0;
bool ChildAlive(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) {
    g_child_status = status;
    return false;
  }
  return true;
}

// Runs `argv` from its start under `engine` with the tracepoints of `tsf_text`; returns the
// program's standard output.
struct TracedRun {
  CollectingSink sink;
  std::string output;
  int status = -1;
  std::vector<CompiledTracepoint> compiled;
  EngineStats stats;   // ptrace only
  BpfStats bpf_stats;  // bpf only
};

// `arm_return_addresses`: RETEP as for a procedure whose rets could not be found (a tail call,
// a jump table): a breakpoint at the return address armed at every entry.
// `single_step_all`: the ptrace engine runs every displaced instruction on the CPU.
void RunTraced(const std::string& tsf_text, const std::vector<std::string>& argv, Engine engine,
               TracedRun& run, const Selection& selection = {}, bool arm_return_addresses = false,
               bool single_step_all = false) {
  tsf::Module module = ParseModule(tsf_text);
  ASSERT_FALSE(module.tracepoints.empty());
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  auto child = LaunchStopped(argv, pipe_fds[1]);
  close(pipe_fds[1]);
  ASSERT_TRUE(child) << child.error().message;
  auto compiled = ResolveInProcess(module, *child, selection, argv[0]);
  if (!compiled) {
    kill(*child, SIGKILL);
    waitpid(*child, nullptr, 0);
    FAIL() << compiled.error().message;
  }
  if (arm_return_addresses) {
    for (CompiledTracepoint& tracepoint : *compiled) tracepoint.site.return_sites.clear();
  }
  run.compiled = *compiled;
  std::atomic<bool> stop{false};
  if (engine == Engine::kPtrace) {
    auto attached = PtraceEngine::Attach(*child, *compiled, run.sink, true);
    ASSERT_TRUE(attached) << attached.error().message;
    if (single_step_all) (*attached)->SingleStepEverySite();
    bool exited = false;
    auto ran = (*attached)->Run(stop, run.status, exited);
    ASSERT_TRUE(ran) << ran.error().message;
    EXPECT_TRUE(exited);
    run.stats = (*attached)->stats();
  } else {
    auto attached = BpfEngine::Attach(*child, *compiled, run.sink);
    if (!attached) {
      kill(*child, SIGKILL);
      waitpid(*child, nullptr, 0);
      FAIL() << attached.error().message;
    }
    ptrace(PTRACE_DETACH, *child, nullptr, nullptr);
    auto ran = (*attached)->Run(stop, ChildAlive);
    ASSERT_TRUE(ran) << ran.error().message;
    (*attached)->Detach();
    run.bpf_stats = (*attached)->stats();
    run.status = g_child_status;
  }
  run.output = ReadAll(pipe_fds[0]);
  close(pipe_fds[0]);
}

// Runs `tsf` on `argv` under `engine` into `first`, then under the ptrace engine (single-stepping
// every site when asked: the CPU's own execution) into `second`, with address randomization off
// in the children so that both runs see the same stack, heap and TLS addresses.
void RunTwiceAtTheSameAddresses(const std::string& tsf, const std::vector<std::string>& argv,
                                Engine engine, TracedRun& first, TracedRun& second,
                                bool single_step_all) {
  int persona = personality(0xFFFFFFFF);
  personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE);
  RunTraced(tsf, argv, engine, first);
  RunTraced(tsf, argv, Engine::kPtrace, second, {}, false, single_step_all);
  personality(static_cast<unsigned long>(persona));
}

// The program's standard output, untraced.
std::string RunPlain(const std::vector<std::string>& argv) {
  return testing::RunCommand(argv, ".").out;
}

class PtraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason = testing::PtraceUnavailableReason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

class BpfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason = testing::PtraceUnavailableReason();
    if (reason.empty()) reason = testing::BpfUnavailableReason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

void CheckSampleHits(const TracedRun& run, int iterations, const std::string& program) {
  // .DosOpen: ESI (low half of the request pointer), RDI (the file name), the string, and the
  // request structure through RSI.
  auto entries = run.sink.OfMinor(0x0001);
  ASSERT_EQ(entries.size(), static_cast<size_t>(iterations));
  const CompiledTracepoint& first = run.compiled[0];
  uint64_t file_name = first.data[1].address.base_address;
  for (const CollectedHit& hit : entries) {
    const std::vector<uint8_t>& d = hit.data;
    ASSERT_EQ(d.size(), 4u + 8u + 3u + 10u + 3u + 16u) << program;
    EXPECT_EQ(LoadLe(d, 4, 8), file_name);
    EXPECT_EQ(d[12], 0);
    EXPECT_EQ(LoadLe(d, 13, 2), 10u);
    EXPECT_EQ(std::string(d.begin() + 15, d.begin() + 25), "CONFIG.SYS");
    EXPECT_EQ(d[25], 0);
    EXPECT_EQ(LoadLe(d, 26, 2), 16u);
    EXPECT_EQ(LoadLe(d, 28, 4), 0x40u);  // flags
    EXPECT_EQ(LoadLe(d, 32, 2), 2u);     // mode
    EXPECT_EQ(LoadLe(d, 34, 2), 16u);    // size
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(d.data() + 36)), "REQTAG1");
  }
  // .DosOpen+4: after push %rbp; mov %rsp,%rbp the two are equal.
  auto offset = run.sink.OfMinor(0x0002);
  ASSERT_EQ(offset.size(), static_cast<size_t>(iterations));
  for (const CollectedHit& hit : offset) {
    ASSERT_EQ(hit.data.size(), 16u);
    EXPECT_EQ(LoadLe(hit.data, 0, 8), LoadLe(hit.data, 8, 8));
  }
  // @sample.c,line: the handle just created.
  auto line = run.sink.OfMinor(0x7001);
  ASSERT_EQ(line.size(), static_cast<size_t>(iterations));
  for (const CollectedHit& hit : line) {
    EXPECT_EQ(hit.data, (std::vector<uint8_t>{0, 2, 0, 12, 0}));
  }
  // RETEP: the return value, retcode and the variable-length structure of this call.
  auto returns = run.sink.OfMinor(0x8001);
  ASSERT_EQ(returns.size(), static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    std::vector<uint8_t> expected = {0x00, 0x01, 0, 0,  // EAX = 0x100 + i
                                     0,    2,    0, 0x00, 0x01, 0, 6, 0, 0xAB, 0xCD, 6, 0, 0, 0x22};
    expected[0] = static_cast<uint8_t>(i);
    expected[7] = static_cast<uint8_t>(i);
    expected[16] = static_cast<uint8_t>(i);
    EXPECT_EQ(returns[i].data, expected) << "call " << i;
  }
  // A bad pointer: status 2 and the pointer, and nothing after it.
  auto bad = run.sink.OfMinor(0x0003);
  ASSERT_EQ(bad.size(), static_cast<size_t>(iterations));
  for (const CollectedHit& hit : bad) {
    EXPECT_EQ(hit.data, (std::vector<uint8_t>{2, 8, 0, 0x10, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_TRUE(hit.built.faulted);
  }
  // A structure through a pointer variable.
  auto request = run.sink.OfMinor(0x0004);
  ASSERT_EQ(request.size(), static_cast<size_t>(iterations));
  for (const CollectedHit& hit : request) {
    ASSERT_EQ(hit.data.size(), 19u);
    EXPECT_EQ(LoadLe(hit.data, 3, 4), 0x40u);
  }
}

TEST_F(PtraceTest, RecordsEveryKindOfTracepointInAPieExecutable) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "3"}, Engine::kPtrace, run);
  CheckSampleHits(run, 3, "dt_sample");
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "3"}));
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0);
}

// dt_loop's probe_target at -O0 (x86_emulator_test.cc decodes the same bytes): a tracepoint on
// most instructions, and RETEP, which shares the ret with minor 9. All are emulated; the values
// recorded after each emulated instruction show it ran.
TEST_F(PtraceTest, EmulatesTheDisplacedInstructionInsteadOfSingleStepping) {
  const std::vector<uint8_t> expected_code = {0x55, 0x48, 0x89, 0xE5, 0x48, 0x89, 0x7D, 0xF8, 0x48,
                                              0x8B, 0x55, 0xF8, 0x48, 0x89, 0xD0, 0x48, 0x01, 0xC0,
                                              0x48, 0x01, 0xD0, 0x48, 0x83, 0xC0, 0x01, 0x5D, 0xC3};
  auto elf = ElfModule::Open(TestProgram("dt_loop"));
  ASSERT_TRUE(elf) << elf.error().message;
  auto symbol = elf->FindSymbol("probe_target");
  ASSERT_TRUE(symbol);
  auto code = elf->ReadBytes(symbol->value, expected_code.size());
  ASSERT_TRUE(code);
  if (*code != expected_code) {
    GTEST_SKIP() << "this compiler built probe_target differently; the offsets below are gcc's";
  }
  constexpr int kCalls = 50;
  TracedRun run;
  RunTraced(R"(MODNAME = dt_loop
MAJOR = 0x70
TRACE MINOR=1, TP=.probe_target, REGS=(RDI,RSP,RBP)
TRACE MINOR=2, TP=.probe_target+1, REGS=(RSP)
TRACE MINOR=3, TP=.probe_target+4, REGS=(RSP,RBP)
TRACE MINOR=4, TP=.probe_target+8, MEM32=(RBP-8,DIRECT,8)
TRACE MINOR=5, TP=.probe_target+12, REGS=(RDX)
TRACE MINOR=6, TP=.probe_target+15, REGS=(RAX)
TRACE MINOR=7, TP=.probe_target+21, REGS=(RAX)
TRACE MINOR=8, TP=.probe_target+25, REGS=(RAX)
TRACE MINOR=9, TP=.probe_target+26, REGS=(RSP,RBP)
TRACE MINOR=10, TP=.probe_target,RETEP, REGS=(RAX)
)",
            {TestProgram("dt_loop"), std::to_string(kCalls)}, Engine::kPtrace, run);
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
  EXPECT_NE(run.output.find("ns_per_iteration"), std::string::npos);
  std::vector<std::vector<CollectedHit>> hits(11);
  for (uint16_t minor = 1; minor <= 10; ++minor) {
    hits[minor] = run.sink.OfMinor(minor);
    ASSERT_EQ(hits[minor].size(), static_cast<size_t>(kCalls)) << minor;
  }
  for (int i = 0; i < kCalls; ++i) {
    const auto& entry = hits[1][i].data;
    uint64_t entry_rsp = LoadLe(entry, 8, 8);
    uint64_t caller_rbp = LoadLe(entry, 16, 8);
    EXPECT_EQ(LoadLe(entry, 0, 8), static_cast<uint64_t>(i));
    // push %rbp (emulated) moved RSP and stored RBP.
    EXPECT_EQ(LoadLe(hits[2][i].data, 0, 8), entry_rsp - 8);
    // mov %rsp,%rbp
    const auto& frame = hits[3][i].data;
    EXPECT_EQ(LoadLe(frame, 8, 8), entry_rsp - 8);
    // mov %rdi,-8(%rbp) stored i in the frame; mov -8(%rbp),%rdx loaded it; mov %rdx,%rax.
    EXPECT_EQ(LoadLe(hits[4][i].data, 3, 8), static_cast<uint64_t>(i));
    EXPECT_EQ(LoadLe(hits[5][i].data, 0, 8), static_cast<uint64_t>(i));
    EXPECT_EQ(LoadLe(hits[6][i].data, 0, 8), static_cast<uint64_t>(i));
    EXPECT_EQ(LoadLe(hits[7][i].data, 0, 8), static_cast<uint64_t>(3 * i));  // add $1 next
    EXPECT_EQ(LoadLe(hits[8][i].data, 0, 8), static_cast<uint64_t>(3 * i + 1));
    // pop %rbp restored the caller's frame; RETEP records at the ret.
    const auto& at_ret = hits[9][i].data;
    EXPECT_EQ(LoadLe(at_ret, 0, 8), entry_rsp);
    EXPECT_EQ(LoadLe(at_ret, 8, 8), caller_rbp);
    EXPECT_EQ(LoadLe(hits[10][i].data, 0, 8), static_cast<uint64_t>(3 * i + 1));
  }
  // add %rax,%rax (+15) included: every site is emulated.
  EXPECT_EQ(run.stats.single_steps, 0u);
  EXPECT_EQ(run.stats.emulated, 9u * kCalls);
  ASSERT_EQ(run.compiled[9].site.return_sites.size(), 1u);
  EXPECT_EQ(run.compiled[9].site.return_sites[0], run.compiled[8].site.address);
}

// With the return address armed at each entry, RETEP records after the return; the caller's
// `mov sink(%rip),%rdx` there is emulated too: two stops per call, no single step.
TEST_F(PtraceTest, RetepFallsBackToTheReturnAddress) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "3"}, Engine::kPtrace, run, {},
            /*arm_return_addresses=*/true);
  CheckSampleHits(run, 3, "dt_sample");
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "3"}));
  TracedRun loop;
  RunTraced("MODNAME = dt_loop\nMAJOR = 0x70\nTRACE MINOR=1, TP=.probe_target,RETEP, REGS=(RAX)\n",
            {TestProgram("dt_loop"), "20"}, Engine::kPtrace, loop, {}, true);
  auto returns = loop.sink.OfMinor(1);
  ASSERT_EQ(returns.size(), 20u);
  for (size_t i = 0; i < returns.size(); ++i) {
    EXPECT_EQ(LoadLe(returns[i].data, 0, 8), 3 * i + 1);
  }
  EXPECT_EQ(loop.stats.single_steps, 0u);
  EXPECT_EQ(loop.stats.emulated, 40u);
}

// The seed 004 sample on a stripped copy of dt_sample: every symbol and the source line resolve
// through its .gnu_debuglink, and the records are those of the unstripped program.
TEST_F(PtraceTest, TracesAStrippedProgramThroughItsDebugFile) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("dyntrace-stripped-{}", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string reason;
  std::string stripped = testing::StripWithDebugLink("dt_sample", dir.string(), reason);
  if (stripped.empty()) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << reason;
  }
  TracedRun run;
  RunTraced(SampleTsf("dt_sample"), {stripped, "2"}, Engine::kPtrace, run);
  CheckSampleHits(run, 2, stripped);
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "2"}));
  std::filesystem::remove_all(dir);
}

TEST_F(PtraceTest, RecordsEveryKindOfTracepointInANonPieExecutable) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample_nopie"), {TestProgram("dt_sample_nopie"), "4"}, Engine::kPtrace,
            run);
  CheckSampleHits(run, 4, "dt_sample_nopie");
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample_nopie"), "4"}));
}

// A tracepoint in libdtsample.so, which dt_sample links: MODNAME is a shared object.
void TraceASharedObject(Engine engine) {
  TracedRun run;
  RunTraced(
      "MODNAME = libdtsample.so\nMAJOR = 0x65\n"
      "TRACE TP=.lib_checksum, ASCIIZ32=(RDI,DIRECT,32)\n",
      {TestProgram("dt_sample"), "2"}, engine, run);
  ASSERT_EQ(run.sink.hits.size(), 2u);
  for (const CollectedHit& hit : run.sink.hits) {
    EXPECT_EQ(hit.minor, 1);  // numbered in file order without MINOR
    EXPECT_EQ(std::string(hit.data.begin() + 3, hit.data.end()), "CONFIG.SYS");
  }
}

TEST_F(PtraceTest, TracesASharedObject) {
  TraceASharedObject(Engine::kPtrace);
}

TEST_F(PtraceTest, SelectionByTypeAndGroupAttachesOnlyThoseTracepoints) {
  TracedRun run;
  Selection selection;
  selection.types = {"post"};
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "2"}, Engine::kPtrace, run,
            selection);
  ASSERT_EQ(run.sink.hits.size(), 2u);
  for (const CollectedHit& hit : run.sink.hits) EXPECT_EQ(hit.minor, 0x8001);
  TracedRun grouped;
  selection = {};
  selection.groups = {"MEM"};
  selection.minors = {0x0003};
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "2"}, Engine::kPtrace, grouped,
            selection);
  ASSERT_EQ(grouped.sink.hits.size(), 2u);
  EXPECT_EQ(grouped.sink.hits[0].minor, 0x0003);
}

TEST_F(PtraceTest, FourThreadsLoseNoHit) {
  TracedRun run;
  RunTraced(
      "MODNAME = dt_threads\nMAJOR = 0x66\n"
      "TRACE MINOR=1, TP=.worker_step, REGS=(RDI,RSI)\n"
      "TRACE MINOR=2, TP=.worker_step,RETEP, REGS=(RAX)\n",
      {TestProgram("dt_threads"), "150"}, Engine::kPtrace, run);
  std::map<uint64_t, int> per_thread;
  std::set<pid_t> tids;
  for (const CollectedHit& hit : run.sink.OfMinor(1)) {
    ++per_thread[LoadLe(hit.data, 0, 8)];
    tids.insert(hit.tid);
  }
  EXPECT_EQ(per_thread.size(), 4u);
  for (const auto& [thread, count] : per_thread) EXPECT_EQ(count, 150) << "thread " << thread;
  EXPECT_EQ(tids.size(), 4u);
  EXPECT_EQ(run.sink.OfMinor(2).size(), 600u);
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_threads"), "150"}));
}

// The stop-the-world paths with four threads: every site single-stepped (worker_step's second
// instruction and the return address RETEP arms).
TEST_F(PtraceTest, FourThreadsThroughSingleStepsAndArmedReturns) {
  auto elf = ElfModule::Open(TestProgram("dt_threads"));
  ASSERT_TRUE(elf);
  auto symbol = elf->FindSymbol("worker_step");
  ASSERT_TRUE(symbol);
  auto code = elf->ReadBytes(symbol->value, symbol->size);
  ASSERT_TRUE(code);
  size_t offset = *X86InstructionLength(*code);
  TracedRun run;
  RunTraced(fmt::format("MODNAME = dt_threads\nMAJOR = 0x66\n"
                        "TRACE MINOR=1, TP=.worker_step+{}, REGS=(RDI,RSI)\n"
                        "TRACE MINOR=2, TP=.worker_step,RETEP, REGS=(RAX)\n",
                        offset),
            {TestProgram("dt_threads"), "150"}, Engine::kPtrace, run, {},
            /*arm_return_addresses=*/true, /*single_step_all=*/true);
  std::map<uint64_t, int> per_thread;
  for (const CollectedHit& hit : run.sink.OfMinor(1)) ++per_thread[LoadLe(hit.data, 0, 8)];
  EXPECT_EQ(per_thread.size(), 4u);
  for (const auto& [thread, count] : per_thread) EXPECT_EQ(count, 150) << "thread " << thread;
  EXPECT_EQ(run.sink.OfMinor(2).size(), 600u);
  EXPECT_GE(run.stats.single_steps, 1200u);
  EXPECT_EQ(run.stats.emulated, 0u);
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_threads"), "150"})) << "status " << run.status;
}

// A tracepoint on every instruction of dt_forms's forms(), recording the registers, RFLAGS and
// 48 bytes of stack: the TSF, and by minor (from 1) each site's offset and whether the emulator
// decodes it.
struct FormsSites {
  std::string tsf = "MODNAME = dt_forms\nMAJOR = 0x71\nMAXDATALENGTH = 200\n";
  std::vector<size_t> offsets = {0};
  std::vector<bool> emulated = {false};
};

void TraceEveryInstructionOfForms(FormsSites& forms) {
  auto elf = ElfModule::Open(TestProgram("dt_forms"));
  ASSERT_TRUE(elf) << elf.error().message;
  auto symbol = elf->FindSymbol("forms");
  ASSERT_TRUE(symbol);
  auto code = elf->ReadBytes(symbol->value, symbol->size);
  ASSERT_TRUE(code);
  for (size_t offset = 0; offset < code->size();) {
    auto length = X86InstructionLength(std::span(*code).subspan(offset));
    ASSERT_TRUE(length) << "at +" << offset;
    forms.tsf += fmt::format(
        "TRACE MINOR={}, TP=.forms+{}, REGS=(RAX,RBX,RCX,RDX,RSI,RDI,RBP,RSP,R8,R12,RFLAGS,RIP),"
        " MEM32=(RSP,DIRECT,48)\n",
        forms.offsets.size(), offset);
    forms.emulated.push_back(DecodeX86(std::span(*code).subspan(offset)).has_value());
    forms.offsets.push_back(offset);
    offset += *length;
  }
}

// A tracepoint on every instruction of dt_forms's forms(), recording the registers and the top
// of the stack: with the emulator and with every site single-stepped (the CPU's own execution)
// the records are identical hit for hit, and the program prints what it prints untraced. Address
// randomization is off in the child so both runs see the same stack and TLS addresses.
TEST_F(PtraceTest, EmulationMatchesTheCpuOnEveryInstructionOfAFunction) {
  FormsSites forms;
  ASSERT_NO_FATAL_FAILURE(TraceEveryInstructionOfForms(forms));
  const std::vector<bool>& emulated_site = forms.emulated;
  const std::vector<size_t>& site_offset = forms.offsets;
  const std::string& tsf = forms.tsf;
  ASSERT_GT(emulated_site.size(), 60u);
  constexpr int kCalls = 40;
  std::vector<std::string> argv = {TestProgram("dt_forms"), std::to_string(kCalls)};
  TracedRun emulated, stepped;
  RunTwiceAtTheSameAddresses(tsf, argv, Engine::kPtrace, emulated, stepped,
                             /*single_step_all=*/true);
  ASSERT_FALSE(HasFatalFailure());

  std::string plain = RunPlain(argv);
  EXPECT_EQ(emulated.output, plain);
  EXPECT_EQ(stepped.output, plain);
  EXPECT_TRUE(WIFEXITED(emulated.status) && WEXITSTATUS(emulated.status) == 0);
  ASSERT_EQ(emulated.sink.hits.size(), stepped.sink.hits.size());
  uint64_t expected_emulated = 0;
  uint64_t expected_stepped = 0;
  // Flags the architecture leaves undefined (AF after logic operations and shifts, OF after
  // multi-bit shifts) are the emulator's AMD values; compared only on AMD CPUs.
  uint64_t undefined = testing::AmdCpu() ? 0 : 0x810;
  for (size_t i = 0; i < emulated.sink.hits.size(); ++i) {
    CollectedHit a = emulated.sink.hits[i];
    CollectedHit b = stepped.sink.hits[i];
    ASSERT_EQ(a.minor, b.minor) << "hit " << i;
    ASSERT_EQ(a.data.size(), 96u + 3u + 48u);
    for (auto* data : {&a.data, &b.data}) (*data)[80] &= static_cast<uint8_t>(~undefined);
    for (auto* data : {&a.data, &b.data}) (*data)[81] &= static_cast<uint8_t>(~(undefined >> 8));
    ASSERT_EQ(a.data, b.data) << "hit " << i << " at minor " << a.minor << " (+"
                              << site_offset[a.minor] << ")";
    (emulated_site[a.minor] ? expected_emulated : expected_stepped) += 1;
  }
  // pushfq and imul are the two sites left to the CPU, once per call.
  EXPECT_EQ(expected_stepped, 2u * kCalls);
  EXPECT_EQ(emulated.stats.emulated, expected_emulated);
  EXPECT_EQ(emulated.stats.single_steps, expected_stepped);
  EXPECT_EQ(stepped.stats.emulated, 0u);
  EXPECT_EQ(stepped.stats.single_steps, expected_emulated + expected_stepped);
}

TEST_F(PtraceTest, OpcodeMismatchIsRefusedAndTheProgramIsLeftAlone) {
  tsf::Module module = ParseModule(
      "MODNAME = dt_sample\nMAJOR = 1\n"
      "TRACE TP=.DosOpen, OPCODE=0x90, REGS=(EAX)\n");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  auto child = LaunchStopped({TestProgram("dt_sample"), "2"}, pipe_fds[1]);
  close(pipe_fds[1]);
  ASSERT_TRUE(child) << child.error().message;
  auto compiled = ResolveInProcess(module, *child);
  ASSERT_TRUE(compiled) << compiled.error().message;
  CollectingSink sink;
  auto attached = PtraceEngine::Attach(*child, *compiled, sink, true);
  ASSERT_FALSE(attached);
  EXPECT_NE(attached.error().message.find("OPCODE=0x90"), std::string::npos)
      << attached.error().message;
  std::string output = ReadAll(pipe_fds[0]);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(*child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(output, RunPlain({TestProgram("dt_sample"), "2"}));
}

// Starts the program untraced, with its output on a pipe.
pid_t StartPlain(const std::vector<std::string>& argv, int& output_fd) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], 1);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  output_fd = pipe_fds[0];
  return child;
}

// `with_memory`: also record retcode, which only the ptrace engine reads at the hit itself.
template <class AttachAndRun>
void AttachDetachWhileRunning(bool with_memory, AttachAndRun attach_and_run) {
  int output_fd = -1;
  pid_t child = StartPlain({TestProgram("dt_sample"), "50", "20"}, output_fd);
  ASSERT_GT(child, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // let it run a while untraced
  tsf::Module module =
      ParseModule(std::string("MODNAME = dt_sample\nMAJOR = 0x64\n"
                              "TRACE MINOR=0x8001, TP=.DosOpenC,RETEP, REGS=(EAX)") +
                  (with_memory ? ", MEM32=(.retcode,DIRECT,2)\n" : "\n"));
  auto compiled = ResolveInProcess(module, child);
  ASSERT_TRUE(compiled) << compiled.error().message;
  CollectingSink sink;
  attach_and_run(child, *compiled, sink);
  std::string output = ReadAll(output_fd);
  close(output_fd);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(output, RunPlain({TestProgram("dt_sample"), "50"}));
  // Some calls were traced, not those before the attach nor after the detach.
  EXPECT_GE(sink.hits.size(), 2u);
  EXPECT_LT(sink.hits.size(), 48u);
  for (size_t i = 0; i < sink.hits.size(); ++i) {
    const std::vector<uint8_t>& data = sink.hits[i].data;
    if (i > 0) {
      EXPECT_EQ(LoadLe(data, 0, 4), LoadLe(sink.hits[i - 1].data, 0, 4) + 1);
    }
    if (with_memory) {
      EXPECT_EQ(LoadLe(data, 0, 4), LoadLe(data, 7, 2));
    }
  }
}

TEST_F(PtraceTest, AttachesAndDetachesWhileTheProgramRuns) {
  AttachDetachWhileRunning(
      true, [](pid_t child, std::vector<CompiledTracepoint> compiled, CollectingSink& sink) {
        auto engine = PtraceEngine::Attach(child, compiled, sink, false);
        ASSERT_TRUE(engine) << engine.error().message;
        std::atomic<bool> stop{false};
        std::thread stopper([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(400));
          stop = true;
        });
        int status = 0;
        bool exited = false;
        auto ran = (*engine)->Run(stop, status, exited);
        stopper.join();
        ASSERT_TRUE(ran) << ran.error().message;
        EXPECT_FALSE(exited);
        auto detached = (*engine)->Detach();
        EXPECT_TRUE(detached) << detached.error().message;
      });
}

// Attaching to a process whose four threads already run: every thread is attached.
template <class AttachAndRun>
void AttachToRunningThreads(AttachAndRun attach_and_run) {
  int output_fd = -1;
  pid_t child = StartPlain({TestProgram("dt_threads"), "300", "3000"}, output_fd);
  ASSERT_GT(child, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  tsf::Module module =
      ParseModule("MODNAME = dt_threads\nMAJOR = 0x66\nTRACE TP=.worker_step, REGS=(RDI,RSI)\n");
  auto compiled = ResolveInProcess(module, child);
  ASSERT_TRUE(compiled) << compiled.error().message;
  CollectingSink sink;
  attach_and_run(child, *compiled, sink);
  std::string output = ReadAll(output_fd);
  close(output_fd);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(output, RunPlain({TestProgram("dt_threads"), "300"}));
  std::set<uint64_t> threads;
  for (const CollectedHit& hit : sink.hits) threads.insert(LoadLe(hit.data, 0, 8));
  EXPECT_EQ(threads.size(), 4u);
}

// A site that holds an int3 already (another tracer's: a uprobe, a debugger) is refused with a
// message: saved as the original byte, that int3 would stay in the program after detaching and
// kill it with SIGTRAP at its next pass.
TEST_F(PtraceTest, RefusesASiteThatHoldsAnotherTracersBreakpoint) {
  // Launched stopped at its first instruction, so that it cannot run into the planted int3.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  auto child = LaunchStopped({TestProgram("dt_threads"), "300"}, pipe_fds[1]);
  close(pipe_fds[1]);
  ASSERT_TRUE(child) << child.error().message;
  tsf::Module module =
      ParseModule("MODNAME = dt_threads\nMAJOR = 0x66\nTRACE TP=.worker_step, REGS=(RDI,RSI)\n");
  auto compiled = ResolveInProcess(module, *child, {}, TestProgram("dt_threads"));
  ASSERT_TRUE(compiled) << compiled.error().message;
  const uint64_t site = (*compiled)[0].site.address;
  const int mem = open(fmt::format("/proc/{}/mem", *child).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(mem, 0);
  const uint8_t int3 = 0xCC;
  ASSERT_EQ(pwrite(mem, &int3, 1, static_cast<off_t>(site)), 1);
  close(mem);
  CollectingSink sink;
  auto engine = PtraceEngine::Attach(*child, *compiled, sink, true);
  EXPECT_FALSE(engine);
  if (engine) {
    (void)(*engine)->Detach();
  } else {
    EXPECT_NE(engine.error().message.find("holds a breakpoint already"), std::string::npos)
        << engine.error().message;
  }
  kill(*child, SIGKILL);
  waitpid(*child, nullptr, 0);
  close(pipe_fds[0]);
}

TEST_F(PtraceTest, AttachesToEveryThreadOfARunningProcess) {
  AttachToRunningThreads(
      [](pid_t child, std::vector<CompiledTracepoint> compiled, CollectingSink& sink) {
        auto engine = PtraceEngine::Attach(child, compiled, sink, false);
        ASSERT_TRUE(engine) << engine.error().message;
        std::atomic<bool> stop{false};
        std::thread stopper([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          stop = true;
        });
        int status = 0;
        bool exited = false;
        auto ran = (*engine)->Run(stop, status, exited);
        stopper.join();
        ASSERT_TRUE(ran) << ran.error().message;
        EXPECT_TRUE((*engine)->Detach());
      });
}

TEST_F(BpfTest, RecordsEveryKindOfTracepointAsThePtraceEngineDoes) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "3"}, Engine::kBpf, run);
  CheckSampleHits(run, 3, "dt_sample");
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "3"}));
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
  EXPECT_EQ(run.bpf_stats.lost, 0u);
  EXPECT_EQ(run.bpf_stats.bad_records, 0u);
}

// RETEP on a uretprobe (as when a procedure's rets cannot all be found) records after the
// return, as the ptrace engine's armed return address does: the same values.
TEST_F(BpfTest, RetepAfterTheReturnThroughAUretprobe) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample"), {TestProgram("dt_sample"), "3"}, Engine::kBpf, run, {},
            /*arm_return_addresses=*/true);
  CheckSampleHits(run, 3, "dt_sample");
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "3"}));
}

TEST_F(BpfTest, RecordsEveryKindOfTracepointInANonPieExecutable) {
  TracedRun run;
  RunTraced(SampleTsf("dt_sample_nopie"), {TestProgram("dt_sample_nopie"), "4"}, Engine::kBpf, run);
  CheckSampleHits(run, 4, "dt_sample_nopie");
}

TEST_F(BpfTest, TracesASharedObject) {
  TraceASharedObject(Engine::kBpf);
}

// Issue 18's program and more: registers (segment selectors and flags included), a string that
// changes at every call and one cut at 40 bytes, a global read at each hit, the return value
// (after the return, and at the `ret` with RIP, RSP and the return address on the stack),
// MAXDATALENGTH cutting a record, a page that cannot be brought in (status 1), a string and a
// block that run into it, an invalid pointer (status 2). With address randomization off both
// engines see the same addresses: every record is the same, byte for byte.
TEST_F(BpfTest, RecordsEqualThePtraceEnginesByteForByte) {
  const std::string tsf = R"(MODNAME = dt_items
MAJOR = 0x50
MAXDATALENGTH = 100
TRACE MINOR=1, TP=.process_item, REGS=(ESI), ASCIIZ32=(RDI,DIRECT,40), MEM32=(.g_counter,DIRECT,4)
TRACE MINOR=2, TP=.process_item,RETEP, REGS=(EAX)
TRACE MINOR=3, TP=.process_item, REGS=(RIP,RSP,EFLAGS,CS,SS,DS,ES,FS,GS), MEM32=(RSP,DIRECT,16)
TRACE MINOR=4, TP=.process_item, MEM32=(.beyond_eof,INDIRECT,4), REGS=(EAX)
TRACE MINOR=5, TP=.process_item, ASCIIZ32=(.runs_into,INDIRECT,16), MEM32=(.runs_into,INDIRECT,8)
TRACE MINOR=6, TP=.process_item, ASCIIZ32=(.beyond_eof,INDIRECT,8)
TRACE MINOR=7, TP=.process_item, MEM32=(RDI,INDIRECT,4)
TRACE MINOR=8, TP=.process_item, LEN=(.g_counter,DIRECT), MEM32=(RDI,DIRECT,LEN)
TRACE MINOR=9, TP=.process_item,RETEP, REGS=(RIP,RSP,EAX,EBP), MEM32=(RSP,DIRECT,8)
)";
  constexpr int kCalls = 60;
  // A copy of its own: a uretprobe that another test puts on process_item of the shared file (for
  // another process) would replace the return address that minor 9 reads at the `ret`.
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("dyntrace-items-{}", getpid());
  std::filesystem::create_directories(dir);
  struct RemovedAtTheEnd {
    std::filesystem::path dir;
    ~RemovedAtTheEnd() { std::filesystem::remove_all(dir); }
  } removed{dir};
  std::filesystem::copy_file(TestProgram("dt_items"), dir / "dt_items",
                             std::filesystem::copy_options::overwrite_existing);
  std::vector<std::string> argv = {(dir / "dt_items").string(), std::to_string(kCalls)};
  TracedRun bpf, reference;
  RunTwiceAtTheSameAddresses(tsf, argv, Engine::kBpf, bpf, reference, false);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(bpf.output, reference.output);
  EXPECT_EQ(bpf.output, RunPlain(argv));
  for (uint16_t minor = 1; minor <= 9; ++minor) {
    std::vector<CollectedHit> a = bpf.sink.OfMinor(minor);
    std::vector<CollectedHit> b = reference.sink.OfMinor(minor);
    ASSERT_EQ(a.size(), static_cast<size_t>(kCalls)) << "minor " << minor;
    ASSERT_EQ(b.size(), a.size()) << "minor " << minor;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].data, b[i].data) << "minor " << minor << " call " << i;
      EXPECT_EQ(a[i].built.incomplete, b[i].built.incomplete) << "minor " << minor;
      EXPECT_EQ(a[i].built.faulted, b[i].built.faulted) << "minor " << minor;
    }
  }
  // What the records hold (the same for both, checked on one).
  uint32_t counter = 0;
  const char* kinds[] = {"apple", "pear", "a-name-longer-than-forty-characters-is-cut-at-forty", "",
                         "plum"};
  auto entries = bpf.sink.OfMinor(1);
  auto results = bpf.sink.OfMinor(2);
  for (int i = 0; i < kCalls; ++i) {
    std::string name = fmt::format("{}-{}", kinds[i % 5], i).substr(0, 40);
    uint32_t qty = static_cast<uint32_t>(i % 13 + 1);
    std::vector<uint8_t> expected(4);
    for (int b = 0; b < 4; ++b) expected[b] = static_cast<uint8_t>(qty >> (8 * b));
    expected.insert(expected.end(), {0, static_cast<uint8_t>(name.size()), 0});
    expected.insert(expected.end(), name.begin(), name.end());
    expected.insert(expected.end(), {0, 4, 0});
    for (int b = 0; b < 4; ++b) expected.push_back(static_cast<uint8_t>(counter >> (8 * b)));
    EXPECT_EQ(entries[i].data, expected) << "call " << i;
    uint32_t length = static_cast<uint32_t>(fmt::format("{}-{}", kinds[i % 5], i).size());
    EXPECT_EQ(LoadLe(results[i].data, 0, 4), length * 3 + qty) << "call " << i;
    counter += qty;
  }
  const CollectedHit absent = bpf.sink.OfMinor(4)[0];
  ASSERT_EQ(absent.data.size(), 11u);  // status 1, the pointer, and no EAX after it
  EXPECT_EQ(absent.data[0], 1);
  EXPECT_TRUE(absent.built.faulted);
  const CollectedHit edge = bpf.sink.OfMinor(5)[0];
  ASSERT_EQ(edge.data.size(), 3u + 5u + 11u);
  EXPECT_EQ(std::string(edge.data.begin() + 3, edge.data.begin() + 8), "edge!");
  EXPECT_EQ(edge.data[8], 1);  // the 8 bytes run into the page that is not present
  EXPECT_EQ(LoadLe(edge.data, 11, 8), LoadLe(absent.data, 3, 8) - 5);
  EXPECT_EQ(bpf.sink.OfMinor(6)[0].data[0], 1);
  EXPECT_EQ(bpf.sink.OfMinor(7)[0].data[0], 2);  // the name's bytes taken as a pointer
  // LEN = the counter's low word: once above 97 bytes the record is cut at MAXDATALENGTH.
  const CollectedHit cut = bpf.sink.OfMinor(8).back();
  EXPECT_EQ(cut.data.size(), 100u);
  EXPECT_TRUE(cut.built.incomplete);
  EXPECT_EQ(bpf.bpf_stats.lost, 0u);
}

// A tracepoint on every instruction of dt_forms's forms() (as the emulation test above): the BPF
// engine's records equal those of the ptrace engine single-stepping every site, the CPU's own
// execution, registers, flags and 48 bytes of stack included.
TEST_F(BpfTest, RecordsEqualTheCpusOnEveryInstructionOfAFunction) {
  FormsSites forms;
  ASSERT_NO_FATAL_FAILURE(TraceEveryInstructionOfForms(forms));
  const std::string& tsf = forms.tsf;
  size_t sites = forms.offsets.size() - 1;
  constexpr int kCalls = 3;
  std::vector<std::string> argv = {TestProgram("dt_forms"), std::to_string(kCalls)};
  TracedRun bpf, stepped;
  RunTwiceAtTheSameAddresses(tsf, argv, Engine::kBpf, bpf, stepped, /*single_step_all=*/true);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(bpf.output, RunPlain(argv));
  ASSERT_GT(bpf.sink.hits.size(), 6 * kCalls * sites / 10);  // some sites are branched over
  ASSERT_EQ(bpf.sink.hits.size(), stepped.sink.hits.size());
  for (size_t i = 0; i < bpf.sink.hits.size(); ++i) {
    ASSERT_EQ(bpf.sink.hits[i].minor, stepped.sink.hits[i].minor) << "hit " << i;
    ASSERT_EQ(bpf.sink.hits[i].data, stepped.sink.hits[i].data)
        << "hit " << i << " at minor " << bpf.sink.hits[i].minor;
  }
}

TEST_F(BpfTest, AttachesToEveryThreadOfARunningProcess) {
  AttachToRunningThreads(
      [](pid_t child, std::vector<CompiledTracepoint> compiled, CollectingSink& sink) {
        auto engine = BpfEngine::Attach(child, compiled, sink);
        ASSERT_TRUE(engine) << engine.error().message;
        std::atomic<bool> stop{false};
        std::thread stopper([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          stop = true;
        });
        auto ran = (*engine)->Run(stop, [](pid_t) { return true; });
        stopper.join();
        ASSERT_TRUE(ran) << ran.error().message;
        (*engine)->Detach();
      });
}

TEST_F(BpfTest, AttachesAndDetachesWhileTheProgramRuns) {
  AttachDetachWhileRunning(
      false, [](pid_t child, std::vector<CompiledTracepoint> compiled, CollectingSink& sink) {
        auto engine = BpfEngine::Attach(child, compiled, sink);
        ASSERT_TRUE(engine) << engine.error().message;
        std::atomic<bool> stop{false};
        std::thread stopper([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(400));
          stop = true;
        });
        auto ran = (*engine)->Run(stop, [](pid_t) { return true; });
        stopper.join();
        ASSERT_TRUE(ran) << ran.error().message;
        (*engine)->Detach();
      });
}

TEST_F(BpfTest, RecordsRegistersAtEntryOffsetAndReturn) {
  TracedRun run;
  RunTraced(
      "MODNAME = dt_sample\nMAJOR = 0x64\n"
      "TRACE MINOR=2, TP=.DosOpen+4, REGS=(RSP,RBP)\n"
      "TRACE MINOR=3, TP=.DosOpenC, REGS=(EDI)\n"
      "TRACE MINOR=4, TP=.DosOpenC,RETEP, REGS=(EAX)\n",
      {TestProgram("dt_sample"), "5"}, Engine::kBpf, run);
  ASSERT_EQ(run.sink.OfMinor(2).size(), 5u);
  for (const CollectedHit& hit : run.sink.OfMinor(2)) {
    EXPECT_EQ(LoadLe(hit.data, 0, 8), LoadLe(hit.data, 8, 8));
  }
  auto calls = run.sink.OfMinor(3);
  auto returns = run.sink.OfMinor(4);
  ASSERT_EQ(calls.size(), 5u);
  ASSERT_EQ(returns.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(LoadLe(calls[i].data, 0, 4), i);
    EXPECT_EQ(LoadLe(returns[i].data, 0, 4), 0x100 + i);
  }
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_sample"), "5"}));
}

TEST_F(BpfTest, FourThreadsLoseNoHit) {
  TracedRun run;
  RunTraced(
      "MODNAME = dt_threads\nMAJOR = 0x66\n"
      "TRACE MINOR=1, TP=.worker_step, REGS=(RDI,RSI)\n",
      {TestProgram("dt_threads"), "300"}, Engine::kBpf, run);
  std::map<uint64_t, int> per_thread;
  for (const CollectedHit& hit : run.sink.hits) {
    // Each thread's calls arrive in order (i = 0, 1, 2...), whichever CPU ran them.
    int& count = per_thread[LoadLe(hit.data, 0, 8)];
    EXPECT_EQ(LoadLe(hit.data, 8, 8), static_cast<uint64_t>(count)) << "thread " << hit.tid;
    ++count;
  }
  EXPECT_EQ(per_thread.size(), 4u);
  for (const auto& [thread, count] : per_thread) EXPECT_EQ(count, 300) << "thread " << thread;
  EXPECT_EQ(run.output, RunPlain({TestProgram("dt_threads"), "300"}));
}

}  // namespace
}  // namespace rastrace::dyntrace
