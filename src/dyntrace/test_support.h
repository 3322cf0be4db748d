// Helpers shared by the dyntrace tests: the example programs, TSF parsing, a sink that keeps
// every hit, and privilege checks that let tests skip with a reason.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/compiled_tracepoint.h"
#include "dyntrace/hit_sink.h"
#include "dyntrace/resolver.h"
#include "tsf/tsf.h"

namespace rastrace::dyntrace::testing {

// Path of an example program built from src/dyntrace/testdata.
std::string TestProgram(const std::string& name);
std::string TestSource(const std::string& name);
// The line of src/dyntrace/testdata/`file` holding "LINE:`marker`".
int MarkerLine(const std::string& file, const std::string& marker);
// Parses TSF text; fails the calling test on errors.
tsf::Module ParseModule(const std::string& text);
// Selects `module`'s tracepoints and resolves them against process `pid` as it is mapped now.
Result<std::vector<CompiledTracepoint>> ResolveInProcess(const tsf::Module& module, pid_t pid,
                                                         const Selection& selection = {},
                                                         const std::string& default_module = "");

struct CollectedHit {
  uint16_t minor = 0;
  pid_t pid = 0;
  pid_t tid = 0;
  std::vector<uint8_t> data;
  BuiltRecord built;
};

class CollectingSink : public HitSink {
 public:
  void OnHit(const CompiledTracepoint& tracepoint, const Hit& hit) override;
  std::vector<CollectedHit> hits;
  std::vector<CollectedHit> OfMinor(uint16_t minor) const;
};

// Copies example program `name` into `dir` stripped of its symbols and DWARF, which go into
// `name`.debug beside it, named by a .gnu_debuglink (objcopy --only-keep-debug, strip,
// objcopy --add-gnu-debuglink). Returns the copy's path, or empty with `reason` set when the
// binutils are not available.
std::string StripWithDebugLink(const std::string& name, const std::string& dir,
                               std::string& reason);

// A command's exit code (128 + signal when killed) and its output.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// A built command: $RASTRACE_BIN/name, else the build's bin/name.
std::string Bin(const std::string& name);
// Runs `argv` in `cwd` (as user `run_as` when it is not 0) and collects its stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& cwd,
                         uid_t run_as = 0);

// End-to-end tests of the commands: skipped without ptrace or the commands; each test has its
// own directory `dir_` (removed after it) and its own session state directory in it.
class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::filesystem::path dir_;
};

// Empty when ptrace can attach here; otherwise the reason.
std::string PtraceUnavailableReason();
// Empty when the BPF engine's program loads here (root, BPF, uprobes); otherwise the reason.
std::string BpfUnavailableReason();

// True on an AMD CPU, whose values for architecturally undefined flags the emulator gives.
bool AmdCpu();

// Little-endian helpers for checking record bytes.
uint64_t LoadLe(const std::vector<uint8_t>& bytes, size_t at, size_t size);
// Reads a whole file descriptor until EOF.
std::string ReadAll(int fd);

}  // namespace rastrace::dyntrace::testing
