// One `trace on` session: loads the definitions (a TSF or trcust's trace definition file),
// starts or finds the process, resolves the selected tracepoints, attaches the chosen engine and
// stores every hit in the output until the process ends or the session is stopped.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "dyntrace/resolver.h"
#include "tsf/tsf.h"

namespace rastrace::dyntrace {

enum class EngineChoice { kAuto, kUprobe, kPtrace };

struct SessionOptions {
  std::string definitions;  // TSF or TDF path
  Selection selection;
  pid_t pid = 0;                     // attach to this process...
  std::vector<std::string> command;  // ...or start this one
  std::string output;
  bool log = false;  // a rastrace log instead of an STDA save file
  size_t buffer_size = 0x10000;
  EngineChoice engine = EngineChoice::kAuto;
};

// Reads a trace definition file (recognised by its magic) or parses a TSF; warnings of the TSF
// compile land in `warnings`, errors are returned with file:line:col.
Result<tsf::Module> LoadDefinitions(const std::string& path, std::vector<std::string>& warnings);

// The engine `choice` means for these tracepoints: auto takes uprobes when every tracepoint
// records registers only (exact either way) and the kernel has them, else ptrace.
EngineChoice ChooseEngine(EngineChoice choice, const std::vector<CompiledTracepoint>& tracepoints);

class Session {
 public:
  static Result<std::unique_ptr<Session>> Start(const SessionOptions& options);
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  ~Session();

  pid_t target() const;
  const char* engine_name() const;
  size_t tracepoint_count() const;
  const std::vector<std::string>& warnings() const;

  // Records until `stop` or the end of the process.
  Result<void> Run(const std::atomic<bool>& stop);
  // Detaches (the process runs on), writes the output. Returns the number of records stored.
  Result<uint64_t> Finish();
  // For a started command: whether it ended, and its wait status.
  bool target_exited() const;
  int target_status() const;
  // Waits for a started command that outlived the session (trace off) and returns its status.
  int WaitForCommand();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
