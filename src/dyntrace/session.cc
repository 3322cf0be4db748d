#include "dyntrace/session.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "dyntrace/bpf_engine.h"
#include "dyntrace/bpf_tracepoint.h"
#include "dyntrace/launcher.h"
#include "dyntrace/ptrace_engine.h"
#include "dyntrace/record_output.h"
#ifdef RASTRACE_DYNTRACE_HAVE_TDF
#include "tsf/definition_file.h"
#endif

namespace rastrace::dyntrace {
namespace {

// Exit status of a started command once reaped by the BPF engine's liveness check.
pid_t g_started_child = 0;
int g_child_status = 0;
bool g_child_reaped = false;

bool StartedChildAlive(pid_t pid) {
  if (g_child_reaped) return false;
  int status = 0;
  pid_t got = waitpid(pid, &status, WNOHANG);
  if (got == pid) {
    g_child_reaped = true;
    g_child_status = status;
    return false;
  }
  return true;
}

bool ProcessAlive(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

bool IsDefinitionFile(const std::string& path) {
  std::ifstream in(path);
  std::string first(12, '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  return in && first == "RASTRACE-TDF";
}

}  // namespace

Result<tsf::Module> LoadDefinitions(const std::string& path, std::vector<std::string>& warnings) {
  if (IsDefinitionFile(path)) {
#ifdef RASTRACE_DYNTRACE_HAVE_TDF
    return tsf::LoadDefinitionFile(path);
#else
    return MakeError(
        "{}: trace definition files need the tsf part's reader, not in this build; "
        "give the TSF itself",
        path);
#endif
  }
  auto parsed = tsf::ParseTsfFile(path);
  if (!parsed) return parsed.error();
  std::string errors;
  for (const tsf::Diagnostic& diagnostic : parsed->diagnostics) {
    if (diagnostic.is_error()) {
      if (!errors.empty()) errors += '\n';
      errors += diagnostic.ToString();
    } else {
      warnings.push_back(diagnostic.ToString());
    }
  }
  if (!errors.empty() || !parsed->module) {
    return Error{errors.empty() ? path + ": not a valid TSF" : errors};
  }
  return std::move(*parsed->module);
}

EngineChoice ChooseEngine(EngineChoice choice, const std::vector<CompiledTracepoint>& tracepoints,
                          std::string* why) {
  if (choice != EngineChoice::kAuto) return choice;
  auto available = BpfAvailable();
  if (!available) {
    if (why != nullptr) *why = "the BPF engine cannot be used here: " + available.error().message;
    return EngineChoice::kPtrace;
  }
  auto fits = DescribeForBpf(tracepoints);
  if (!fits) {
    if (why != nullptr) *why = fits.error().message;
    return EngineChoice::kPtrace;
  }
  return EngineChoice::kBpf;
}

struct Session::Impl {
  SessionOptions options;
  tsf::Module module;
  std::vector<std::string> warnings;
  pid_t target = 0;
  bool started = false;  // we launched the command: it is our child
  EngineChoice engine = EngineChoice::kPtrace;
  size_t tracepoint_count = 0;
  std::unique_ptr<RecordOutput> output;
  std::unique_ptr<PtraceEngine> ptrace_engine;
  std::unique_ptr<BpfEngine> bpf_engine;
  bool exited = false;
  int status = 0;
  bool late_defined = false;  // the dlopened module's 00A/109 definitions are written
  // MODNAME was not mapped when tracing began; `modname` is what was looked for.
  bool deferred = false;
  std::string modname;
  uint64_t lost = 0;

  void AbandonLaunch() {
    if (started && target > 0) {
      kill(target, SIGKILL);
      waitpid(target, nullptr, 0);
    }
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;
pid_t Session::target() const {
  return impl_->target;
}
const char* Session::engine_name() const {
  return impl_->engine == EngineChoice::kBpf ? "bpf" : "ptrace";
}
size_t Session::tracepoint_count() const {
  return impl_->tracepoint_count;
}
const std::vector<std::string>& Session::warnings() const {
  return impl_->warnings;
}
bool Session::target_exited() const {
  return impl_->exited;
}
int Session::target_status() const {
  return impl_->status;
}
uint64_t Session::lost() const {
  return impl_->lost;
}

Result<std::unique_ptr<Session>> Session::Start(const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  auto module = LoadDefinitions(options.definitions, impl->warnings);
  if (!module) return module.error();
  impl->module = std::move(*module);
  auto selected = SelectTracepoints(impl->module, options.selection);
  if (!selected) return selected.error();
  if (!options.log && impl->module.major > 0xFF) {
    return MakeError(
        "{}: MAJOR 0x{:X} does not fit an STDA record (one byte); record into a "
        "rastrace log with --log",
        options.definitions, impl->module.major);
  }
  if ((options.pid != 0) == !options.command.empty()) {
    return MakeError("give either -p PID or -- COMMAND");
  }
  BpfOptions bpf_options;
  if (options.bpf_ring_bytes != 0) {
    auto ring_ok = CheckBpfRingBytes(options.bpf_ring_bytes);
    if (!ring_ok) return ring_ok.error();
    bpf_options.ring_bytes = options.bpf_ring_bytes;
  }
  std::string default_module;
  if (!options.command.empty()) {
    auto launched = LaunchStopped(options.command);
    if (!launched) return launched.error();
    impl->target = *launched;
    impl->started = true;
    g_started_child = *launched;
    g_child_reaped = false;
  } else {
    impl->target = options.pid;
    if (!ProcessAlive(options.pid)) return MakeError("no process {}", options.pid);
  }
  // Without MODNAME the tracepoints are in the main executable.
  char exe[4096] = {};
  ssize_t n = readlink(fmt::format("/proc/{}/exe", impl->target).c_str(), exe, sizeof exe - 1);
  if (n > 0) default_module = std::string(exe, static_cast<size_t>(n));

  auto maps = ReadMaps(impl->target);
  if (!maps) {
    impl->AbandonLaunch();
    return maps.error();
  }
  // A MODNAME the process has not mapped yet: a later dlopen may load it.
  std::string modname = ModuleName(impl->module, default_module);
  impl->modname = modname;
  bool deferred = !impl->module.modname.empty() && !FindModulePath(*maps, modname, impl->target);
  impl->deferred = deferred;
  Result<std::vector<CompiledTracepoint>> compiled = std::vector<CompiledTracepoint>{};
  std::optional<LateModule> late;
  std::string why_ptrace;
  if (!deferred) {
    compiled = ResolveTracepoints(impl->module, *selected, impl->target, *maps, default_module);
    if (compiled) impl->engine = ChooseEngine(options.engine, *compiled, &why_ptrace);
  } else if (modname.find('/') != std::string::npos && options.engine != EngineChoice::kPtrace) {
    // Uprobes are placed per file: they fire once the file is mapped, at whatever address; the
    // program finds the module's load bias at each hit, so symbols are read right wherever it
    // is mapped.
    compiled = ResolveTracepointsInFile(impl->module, *selected, modname);
    if (compiled) impl->engine = ChooseEngine(options.engine, *compiled, &why_ptrace);
    if (compiled && impl->engine == EngineChoice::kBpf) {
      impl->warnings.push_back(
          fmt::format("{} is not mapped yet; its uprobes fire once the process loads it", modname));
    } else {
      compiled = std::vector<CompiledTracepoint>{};
    }
  } else if (options.engine == EngineChoice::kBpf) {
    impl->AbandonLaunch();
    return MakeError(
        "{}: MODNAME {} is not mapped in process {}; uprobes on a module not loaded yet need "
        "its path (MODNAME = /path/to/{}), or use -e ptrace, which waits for the dynamic linker",
        options.definitions, modname, impl->target, modname);
  } else if (options.engine == EngineChoice::kAuto) {
    why_ptrace = fmt::format(
        "MODNAME {} is not mapped yet and has no path: the ptrace engine waits for the dynamic "
        "linker to load it",
        modname);
  }
  if (!compiled) {
    impl->AbandonLaunch();
    return compiled.error();
  }
  bool late_ptrace = deferred && impl->engine != EngineChoice::kBpf;
  if (late_ptrace) {
    impl->engine = EngineChoice::kPtrace;
    // The ptrace engine asks again whenever the dynamic linker changes its link map.
    Impl* state = impl.get();
    std::vector<const tsf::Tracepoint*> pending = *selected;
    late = LateModule{
        [state, default_module]() {
          auto now = ReadMaps(state->target);
          return now &&
                 FindModulePath(*now, ModuleName(state->module, default_module), state->target);
        },
        [state, pending, default_module]() -> Result<std::vector<CompiledTracepoint>> {
          auto now = ReadMaps(state->target);
          if (!now) return now.error();
          auto resolved =
              ResolveTracepoints(state->module, pending, state->target, *now, default_module);
          // Defined once: a module loaded again after a dlclose has the same tracepoints.
          if (resolved && !state->late_defined) {
            state->late_defined = true;
            for (const CompiledTracepoint& tracepoint : *resolved) {
              auto defined = state->output->Define(tracepoint);
              if (!defined) return defined.error();
            }
          }
          return resolved;
        }};
    impl->warnings.push_back(fmt::format(
        "MODNAME {} is not mapped yet; its tracepoints are attached when the process loads it",
        modname));
  }
  impl->tracepoint_count = late_ptrace ? selected->size() : compiled->size();

  auto output = options.log ? OpenLogOutput(options.output)
                            : OpenStdaOutput(options.output, options.buffer_size);
  if (!output) {
    impl->AbandonLaunch();
    return output.error();
  }
  impl->output = std::move(*output);
  for (const CompiledTracepoint& tracepoint : *compiled) {  // empty when ptrace waits
    auto defined = impl->output->Define(tracepoint);
    if (!defined) {
      impl->AbandonLaunch();
      return defined.error();
    }
  }

  if (impl->engine == EngineChoice::kBpf) {
    bpf_options.watch_module = deferred ? modname : std::string();
    auto engine = BpfEngine::Attach(impl->target, *compiled, *impl->output, bpf_options);
    if (engine) {
      impl->bpf_engine = std::move(*engine);
      // The launcher's ptrace hold is no longer needed: the probes live in the kernel.
      if (impl->started) ptrace(PTRACE_DETACH, impl->target, nullptr, nullptr);
    } else if (options.engine == EngineChoice::kAuto && !deferred) {
      why_ptrace = "the BPF engine could not attach: " + engine.error().message;
      impl->engine = EngineChoice::kPtrace;
    } else {
      impl->AbandonLaunch();
      return engine.error();
    }
  }
  if (impl->engine == EngineChoice::kPtrace) {
    // One line saying why auto did not take the BPF engine.
    if (options.engine == EngineChoice::kAuto && !why_ptrace.empty()) {
      std::string line = why_ptrace.substr(0, why_ptrace.find('\n'));
      impl->warnings.insert(impl->warnings.begin(), "using the ptrace engine: " + line);
    }
    auto engine = PtraceEngine::Attach(impl->target, std::move(*compiled), *impl->output,
                                       impl->started, std::move(late));
    if (!engine) {
      impl->AbandonLaunch();
      return engine.error();
    }
    impl->ptrace_engine = std::move(*engine);
  }
  return std::make_unique<Session>(std::move(impl));
}

Result<void> Session::Run(const std::atomic<bool>& stop) {
  Impl& impl = *impl_;
  if (impl.ptrace_engine) {
    return impl.ptrace_engine->Run(stop, impl.status, impl.exited);
  }
  auto ran = impl.bpf_engine->Run(stop, impl.started ? StartedChildAlive : ProcessAlive);
  if (impl.started && g_child_reaped) {
    impl.exited = true;
    impl.status = g_child_status;
  } else if (!impl.started && !ProcessAlive(impl.target)) {
    impl.exited = true;
  }
  return ran;
}

Result<uint64_t> Session::Finish() {
  Impl& impl = *impl_;
  bool module_appeared = !impl.deferred;
  if (impl.ptrace_engine) {
    auto detached = impl.ptrace_engine->Detach();
    if (!detached) return detached.error();
    for (const std::string& error : impl.ptrace_engine->stats().late_errors) {
      impl.warnings.push_back("a loaded module's tracepoints were not attached: " + error);
    }
    if (impl.ptrace_engine->stats().late_attaches != 0 ||
        !impl.ptrace_engine->stats().late_errors.empty()) {
      module_appeared = true;
    }
  }
  if (impl.bpf_engine) {
    impl.bpf_engine->Detach();
    const BpfStats& stats = impl.bpf_engine->stats();
    impl.lost = stats.lost;
    if (stats.module_seen || stats.hits != 0) module_appeared = true;
    if (impl.lost != 0) {
      impl.warnings.push_back(fmt::format(
          "{} hits were lost: the BPF ring buffer ({} bytes) was full (the tracer fell behind); "
          "a larger --ring-size keeps them",
          impl.lost, impl.bpf_engine->ring_bytes()));
      auto recorded = impl.output->RecordLost(impl.module.major, impl.lost);
      if (!recorded)
        impl.warnings.push_back("the lost hits could not be recorded: " + recorded.error().message);
    }
  }
  auto finished = impl.output->Finish();
  if (!finished) return finished.error();
  if (impl.output->failed() != 0) {
    impl.warnings.push_back(fmt::format("{} hits could not be stored; the first: {}",
                                        impl.output->failed(), impl.output->first_failure()));
  }
  if (!module_appeared) {
    std::string message = fmt::format(
        "MODNAME {} never appeared in process {}: no tracepoint was attached, nothing was "
        "recorded",
        impl.modname, impl.target);
    if (impl.exited) return Error{message + " (the process ended without loading it)"};
    impl.warnings.push_back(message);
  }
  return impl.output->records();
}

int Session::WaitForCommand() {
  Impl& impl = *impl_;
  if (!impl.started) return 0;
  if (impl.exited) return impl.status;
  if (g_child_reaped) return g_child_status;
  int status = 0;
  while (waitpid(impl.target, &status, 0) < 0 && errno == EINTR) {
  }
  impl.exited = true;
  impl.status = status;
  return status;
}

}  // namespace rastrace::dyntrace
