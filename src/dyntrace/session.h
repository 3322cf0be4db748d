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

// kBpf: uprobes running the BPF program that records at the hit (bpf_engine.h); kPtrace:
// breakpoints through ptrace (ptrace_engine.h); kAuto: kBpf wherever it can be loaded and the
// tracepoints fit its limits, else kPtrace, saying why.
enum class EngineChoice { kAuto, kBpf, kPtrace };

struct SessionOptions {
  std::string definitions;  // TSF or TDF path
  Selection selection;
  pid_t pid = 0;                     // attach to this process...
  std::vector<std::string> command;  // ...or start this one
  std::string output;
  bool log = false;  // a rastrace log instead of an STDA save file
  size_t buffer_size = 0x10000;
  EngineChoice engine = EngineChoice::kAuto;
  size_t bpf_ring_bytes = 0;  // 0: the BPF engine's default
};

// Reads a trace definition file (recognised by its magic) or parses a TSF; warnings of the TSF
// compile land in `warnings`, errors are returned with file:line:col.
Result<tsf::Module> LoadDefinitions(const std::string& path, std::vector<std::string>& warnings);

// The engine `choice` means for these tracepoints: auto takes the BPF engine when it can be
// loaded here and every tracepoint fits its limits, else ptrace, with the reason in `why` (one
// line). Both engines record exactly at the hit.
EngineChoice ChooseEngine(EngineChoice choice, const std::vector<CompiledTracepoint>& tracepoints,
                          std::string* why = nullptr);

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
  // Fails, after writing the output, when MODNAME never appeared in a process that exited.
  Result<uint64_t> Finish();
  // Hits the engine could not record (the BPF ring was full); also in the output (the log's 006
  // event, the save file's lost-hits record).
  uint64_t lost() const;
  // For a started command: whether it ended, and its wait status.
  bool target_exited() const;
  int target_status() const;
  // Waits for a started command that outlived the session (trace off) and returns its status.
  int WaitForCommand();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastrace::dyntrace
