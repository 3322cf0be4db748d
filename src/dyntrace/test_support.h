// Helpers shared by the dyntrace tests: the example programs, TSF parsing, a sink that keeps
// every hit, and privilege checks that let tests skip with a reason.
#pragma once

#include <sys/types.h>

#include <cstdint>
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

// Empty when ptrace can attach here; otherwise the reason.
std::string PtraceUnavailableReason();
std::string UprobeUnavailableReason();

// True on an AMD CPU, whose values for architecturally undefined flags the emulator gives.
bool AmdCpu();

// Little-endian helpers for checking record bytes.
uint64_t LoadLe(const std::vector<uint8_t>& bytes, size_t at, size_t size);
// Reads a whole file descriptor until EOF.
std::string ReadAll(int fd);

}  // namespace rastrace::dyntrace::testing
