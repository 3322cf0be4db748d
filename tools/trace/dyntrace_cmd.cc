// `trace on DEFS (-p PID | -- CMD ARGS)` and `trace off [-p PID]` (docs/dyntrace.md, man/trace.1).
#include "dyntrace_cmd.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/usage_exit.h"
#include "dyntrace/session.h"
#include "dyntrace/session_state.h"

namespace rastrace::cli {
namespace {

using dyntrace::EngineChoice;
using dyntrace::SessionOptions;

std::atomic<bool> g_stop{false};

void OnStopSignal(int) {
  g_stop.store(true, std::memory_order_relaxed);
}
void OnTimer(int) {}

// Stop signals end the session; a 100 ms timer interrupts blocking waits so the flag is seen.
void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;  // no SA_RESTART: waits return EINTR
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaction(signal, &action, nullptr);
  action.sa_handler = OnTimer;
  sigaction(SIGALRM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
  itimerval timer{{0, 100000}, {0, 100000}};
  setitimer(ITIMER_REAL, &timer, nullptr);
}

std::vector<std::string> SplitList(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '(' || c == ')'; }),
             text.end());
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

bool ParseMinor(const std::string& text, uint16_t& minor) {
  try {
    size_t used = 0;
    unsigned long value = std::stoul(text, &used, 0);
    if (used != text.size() || value == 0 || value > 0xFFFF) return false;
    minor = static_cast<uint16_t>(value);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// OS/2 TRACE ON selectors: TYPE=(PRE,API) GROUP=DOS MINOR=(0x0001,0x7001).
bool AddSelector(const std::string& selector, dyntrace::Selection& selection, std::string& error) {
  size_t equals = selector.find('=');
  std::string key = selector.substr(0, equals);
  std::transform(key.begin(), key.end(), key.begin(), ::toupper);
  if (equals == std::string::npos || (key != "TYPE" && key != "GROUP" && key != "MINOR")) {
    error = fmt::format("'{}': expected TYPE=(names), GROUP=(names) or MINOR=(codes)", selector);
    return false;
  }
  for (const std::string& item : SplitList(selector.substr(equals + 1))) {
    if (key == "TYPE") selection.types.push_back(item);
    if (key == "GROUP") selection.groups.push_back(item);
    if (key == "MINOR") {
      uint16_t minor = 0;
      if (!ParseMinor(item, minor)) {
        error = fmt::format("'{}': minor codes are 1-0xFFFF", item);
        return false;
      }
      selection.minors.push_back(minor);
    }
  }
  return true;
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 0;
}

// Prints the session's warnings from `from` on; returns how many there are now.
size_t PrintWarnings(const dyntrace::Session& session, size_t from = 0) {
  const std::vector<std::string>& warnings = session.warnings();
  for (size_t i = from; i < warnings.size(); ++i) fmt::print(stderr, "trace: {}\n", warnings[i]);
  return warnings.size();
}

int RunForeground(const SessionOptions& options) {
  InstallStopHandlers();
  auto session = dyntrace::Session::Start(options);
  if (!session) {
    fmt::print(stderr, "trace: {}\n", session.error().message);
    return 1;
  }
  dyntrace::Session& s = **session;
  // What was decided at the start (the engine auto chose and why) is said at once.
  size_t printed = PrintWarnings(s);
  auto state =
      dyntrace::WriteState(dyntrace::NewSessionState(s.target(), s.engine_name(), options.output));
  if (!state)
    fmt::print(stderr, "trace: {} (trace off will not find this session)\n", state.error().message);
  auto ran = s.Run(g_stop);
  auto records = s.Finish();
  dyntrace::RemoveState(s.target());
  PrintWarnings(s, printed);
  if (!ran) fmt::print(stderr, "trace: {}\n", ran.error().message);
  if (!records) {
    fmt::print(stderr, "trace: {}\n", records.error().message);
    return 1;
  }
  std::string lost = s.lost() != 0 ? fmt::format(", {} hits lost", s.lost()) : "";
  fmt::print(stderr, "trace: {} records from {} tracepoints ({} engine{}) in {}\n", *records,
             s.tracepoint_count(), s.engine_name(), lost, options.output);
  if (!options.command.empty()) return ExitCodeOf(s.WaitForCommand());
  return ran ? 0 : 1;
}

// -p without --foreground: the tracer becomes a daemon (ptrace binds it to the process for
// the whole session) and reports through a pipe whether attaching worked.
int RunDaemon(const SessionOptions& options) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    fmt::print(stderr, "trace: pipe: {}\n", std::strerror(errno));
    return 1;
  }
  pid_t daemon = fork();
  if (daemon < 0) {
    fmt::print(stderr, "trace: fork: {}\n", std::strerror(errno));
    return 1;
  }
  if (daemon == 0) {
    close(report[0]);
    // A daemon keeps no descriptor of its caller but the report pipe: an inherited pipe would
    // keep the caller's reader waiting until the session ends.
    if (dup2(report[1], 3) == 3) report[1] = 3;
    close_range(4, ~0U, 0);
    setsid();
    InstallStopHandlers();
    auto session = dyntrace::Session::Start(options);
    if (!session) {
      std::string message = "E" + session.error().message;
      (void)!write(report[1], message.data(), message.size());
      _exit(1);
    }
    dyntrace::Session& s = **session;
    auto state = dyntrace::WriteState(
        dyntrace::NewSessionState(s.target(), s.engine_name(), options.output));
    std::string message = fmt::format(
        "O{} tracepoints attached to process {} ({} engine); "
        "records go to {}; `trace off -p {}` detaches",
        s.tracepoint_count(), s.target(), s.engine_name(), options.output, s.target());
    if (!state) message = "E" + state.error().message;
    for (const std::string& warning : s.warnings()) message += "\nW" + warning;
    (void)!write(report[1], message.data(), message.size());
    close(report[1]);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    if (!state) {
      (void)s.Finish();
      _exit(1);
    }
    auto ran = s.Run(g_stop);
    auto records = s.Finish();
    dyntrace::RemoveState(s.target());
    _exit(ran && records ? 0 : 1);
  }
  close(report[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = read(report[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    message.append(buffer, static_cast<size_t>(n));
  }
  close(report[0]);
  // The first line says whether the session started (O) or why not (E); every later line is a
  // warning (W), also when the session could not start; each already says what it is.
  size_t line_end = message.find('\n');
  std::string first = message.substr(0, line_end);
  auto print_warnings = [&] {
    for (size_t at = line_end; at != std::string::npos;) {
      size_t next = message.find('\n', at + 1);
      std::string line = message.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      if (!line.empty() && line[0] == 'W') line.erase(0, 1);
      fmt::print(stderr, "trace: {}\n", line);  // as the foreground session prints them
      at = next;
    }
  };
  if (first.empty() || first[0] != 'O') {
    waitpid(daemon, nullptr, 0);
    fmt::print(stderr, "trace: {}\n", first.empty() ? "the tracer died" : first.substr(1));
    print_warnings();
    return 1;
  }
  fmt::print("trace: {}\n", first.substr(1));
  print_warnings();
  return 0;
}

int TraceOn(int argc, char** argv) {
  // Everything after `--` is the command to start.
  std::vector<std::string> command;
  int own = argc;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      own = i;
      for (int j = i + 1; j < argc; ++j) command.emplace_back(argv[j]);
      break;
    }
  }
  CLI::App app{"Attach OS/2-style dynamic tracepoints to a running or new Linux program",
               "trace on"};
  SessionOptions options;
  std::vector<std::string> selectors;
  std::vector<std::string> types, groups, minors;
  std::string engine = "auto";
  bool foreground = false;
  app.add_option("definitions", options.definitions,
                 "the TSF, or the trace definition file trcust wrote from it")
      ->required();
  app.add_option("selectors", selectors,
                 "OS/2 selection: TYPE=(names) GROUP=(names) MINOR=(codes)");
  app.add_option("-p,--pid", options.pid, "attach to this running process");
  app.add_option("-o,--output", options.output,
                 "output file (default dyntrace.sav, or dyntrace.trc with --log)");
  app.add_flag("--log", options.log, "write a rastrace log instead of an STDA save file");
  app.add_option("-e,--engine", engine,
                 "auto (bpf where it can be loaded, else ptrace), bpf or ptrace; uprobe is bpf")
      ->check(CLI::IsMember({"auto", "bpf", "uprobe", "ptrace"}));
  app.add_option("--ring-size", options.bpf_ring_bytes,
                 "bytes of the BPF engine's ring buffer, a power of two (default 32M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("-t,--type", types, "select tracepoints with any of these TYPE names")
      ->delimiter(',');
  app.add_option("-g,--group", groups, "select tracepoints of these GROUP names")->delimiter(',');
  app.add_option("-m,--minor", minors, "select these minor codes")->delimiter(',');
  app.add_option("-s,--buffer-size", options.buffer_size, "STDA buffer bytes (64 to 65536)")
      ->check(CLI::Range(0x40, 0x10000));
  app.add_flag("-f,--foreground", foreground, "with -p: stay in the foreground until stopped");
  try {
    app.parse(own - 1, argv + 1);
  } catch (const CLI::ParseError& error) {
    return UsageExit(app, error);
  }
  options.command = command;
  for (const std::string& selector : selectors) {
    std::string error;
    if (!AddSelector(selector, options.selection, error)) {
      fmt::print(stderr, "trace: {}\n", error);
      return 2;
    }
  }
  options.selection.types.insert(options.selection.types.end(), types.begin(), types.end());
  options.selection.groups.insert(options.selection.groups.end(), groups.begin(), groups.end());
  for (const std::string& text : minors) {
    uint16_t minor = 0;
    if (!ParseMinor(text, minor)) {
      fmt::print(stderr, "trace: --minor {}: minor codes are 1-0xFFFF\n", text);
      return 2;
    }
    options.selection.minors.push_back(minor);
  }
  if ((options.pid != 0) == !command.empty()) {
    fmt::print(stderr, "trace on: give either -p PID or -- COMMAND [ARGS]\n");
    return 2;
  }
  options.engine = engine == "bpf" || engine == "uprobe" ? EngineChoice::kBpf
                   : engine == "ptrace"                  ? EngineChoice::kPtrace
                                                         : EngineChoice::kAuto;
  if (options.output.empty()) options.output = options.log ? "dyntrace.trc" : "dyntrace.sav";
  for (const dyntrace::SessionState& state : dyntrace::ListStates()) {
    if (options.pid != 0 && state.target == options.pid) {
      fmt::print(stderr,
                 "trace on: process {} is already traced (tracer {}); `trace off -p {}` first\n",
                 options.pid, state.tracer, options.pid);
      return 1;
    }
  }
  if (!command.empty() || foreground) return RunForeground(options);
  return RunDaemon(options);
}

int TraceOff(int argc, char** argv) {
  CLI::App app{"Detach the dynamic tracer trace on left running", "trace off"};
  pid_t pid = 0;
  app.add_option("-p,--pid", pid, "the traced process (needed when several are traced)");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& error) {
    return UsageExit(app, error);
  }
  // Only the sessions this user started; another user's tracer is never signalled.
  std::vector<dyntrace::SessionState> states = dyntrace::ListStates();
  size_t others = 0;
  std::erase_if(states, [&](const dyntrace::SessionState& s) {
    bool theirs = !dyntrace::StartedByCaller(s);
    if (theirs && (pid == 0 || s.target == pid)) {
      ++others;
      if (pid != 0) {
        fmt::print(stderr,
                   "trace off: process {} is traced by another user's session (tracer {}, uid "
                   "{}); trace off acts only on the sessions you started\n",
                   pid, s.tracer, s.uid);
      }
    }
    return theirs;
  });
  if (pid != 0) {
    std::erase_if(states, [&](const dyntrace::SessionState& s) { return s.target != pid; });
    if (states.empty() && others != 0) return 1;
  }
  if (states.empty()) {
    fmt::print(stderr, "trace off: none of your dynamic traces is attached{} (state in {})\n",
               pid != 0 ? fmt::format(" to process {}", pid) : "", dyntrace::StateDirectory());
    return 1;
  }
  if (states.size() > 1) {
    fmt::print(stderr, "trace off: you trace several processes; choose one with -p:\n");
    for (const auto& s : states) fmt::print(stderr, "  -p {}  ({} engine)\n", s.target, s.engine);
    return 2;
  }
  const dyntrace::SessionState& state = states.front();
  if (kill(state.tracer, SIGTERM) != 0) {
    fmt::print(stderr, "trace off: cannot signal tracer {}: {}\n", state.tracer,
               std::strerror(errno));
    return 1;
  }
  // Done when the tracer has written its output and removed the state file; a tracer that
  // started the command itself stays to wait for it.
  bool ended = false;
  for (int waited_ms = 0; waited_ms < 30000 && !ended; waited_ms += 10) {
    std::vector<dyntrace::SessionState> now = dyntrace::ListStates();
    ended = std::none_of(now.begin(), now.end(), [&](const dyntrace::SessionState& s) {
      return s.target == state.target && s.tracer == state.tracer;
    });
    if (!ended) usleep(10000);
  }
  if (!ended) {
    fmt::print(stderr, "trace off: tracer {} did not finish within 30 s\n", state.tracer);
    return 1;
  }
  fmt::print("trace off: detached from process {}; records in {}\n", state.target, state.output);
  return 0;
}

}  // namespace

int RunDyntrace(int argc, char** argv) {
  if (std::strcmp(argv[1], "on") == 0) return TraceOn(argc, argv);
  return TraceOff(argc, argv);
}

}  // namespace rastrace::cli
