// `trace` with AIX flags: starts a session daemon in the background (-a), around a command (-x),
// or with an interactive prompt (`->`: trcon, trcoff, q, !command).
#include "aix_trace_cmd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "recorder/session_page.h"
#include "session/daemon_diagnostics.h"
#include "session/session_daemon.h"

// The trace command is never traced itself (its daemon would join its own session).
extern "C" const int rastrace_autostart_disabled = 1;

namespace rastrace::cli {

namespace {

using session::SessionConfig;
using session::SessionDaemon;

// SIGTERM, SIGINT and SIGHUP end the session the way trcstop does: the log is still written.
std::atomic<bool> g_signalled{false};

void OnSignal(int) {
  g_signalled.store(true);
}

void StopOnSignals(bool include_hangup) {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read of the prompt returns
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  if (include_hangup) sigaction(SIGHUP, &action, nullptr);
}

void PrintNotices(const std::vector<std::string>& notices) {
  for (const auto& notice : notices) std::fprintf(stderr, "%s\n", notice.c_str());
}

int ReportStop(const Result<session::StopTotals>& totals) {
  if (!totals) {
    std::fprintf(stderr, "%s\n", totals.error().message.c_str());
    return 1;
  }
  for (const auto& warning : totals->warnings) std::fprintf(stderr, "%s\n", warning.c_str());
  return totals->failed_logs.empty() ? 0 : 1;
}

// `serve_thread`: a thread of the daemon answers trcon/trcoff/trcstop (the daemon starts it before
// tracing starts, so that the kernel leaves it out of the trace like the daemon's other threads).
Result<std::unique_ptr<SessionDaemon>> StartDaemon(const SessionConfig& config,
                                                   std::vector<std::string>& notices,
                                                   bool serve_thread) {
  auto daemon = SessionDaemon::Create(config, recorder::SessionBaseDir());
  if (!daemon) return daemon.error();
  if (auto started = (*daemon)->Start(notices, serve_thread); !started) return started.error();
  return daemon;
}

// -a: the daemon runs in a child of its own session; the command returns once it is ready.
int RunBackground(const SessionConfig& config) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    std::perror("trace: pipe");
    return 1;
  }
  const pid_t child = fork();
  if (child < 0) {
    std::perror("trace: fork");
    return 1;
  }
  if (child == 0) {
    close(ready[0]);
    setsid();
    signal(SIGHUP, SIG_IGN);  // the terminal that started it may go away
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      if (config.log.log_path != "-") dup2(null, STDOUT_FILENO);
    }
    // Before `trace -a` returns: a SIGTERM right after it must stop the session, not kill it.
    StopOnSignals(false);
    std::vector<std::string> notices;
    auto daemon = StartDaemon(config, notices, /*serve_thread=*/false);
    std::string message;
    for (const auto& notice : notices) message += "N" + notice + "\n";
    if (!daemon) {
      message += "E" + daemon.error().message + "\n";
      (void)!write(ready[1], message.data(), message.size());
      _exit(1);
    }
    // No terminal to report to: what the daemon says, and a fatal signal that kills it, go to
    // <channel dir>/daemon.err, which trcstop quotes when the daemon died without answering.
    // Before the ready message: once `trace -a` returns, daemon.err must exist (a daemon killed
    // right after would otherwise leave nothing to quote).
    if (!session::RedirectStderrToDaemonErr((*daemon)->channel_dir()) && null >= 0) {
      dup2(null, STDERR_FILENO);
    }
    session::InstallFatalSignalReport();
    message += "C" + std::to_string((*daemon)->channel()) + "\n";
    (void)!write(ready[1], message.data(), message.size());
    close(ready[1]);
    (*daemon)->Serve(g_signalled);
    const bool ok = (*daemon)->Stop().ok();
    daemon->reset();
    _exit(ok ? 0 : 1);
  }
  close(ready[1]);
  std::string message;
  char buffer[4096];
  ssize_t n;
  while ((n = read(ready[0], buffer, sizeof buffer)) > 0) {
    message.append(buffer, static_cast<size_t>(n));
    if (message.find("\nC") != std::string::npos || message.starts_with("C")) {
      if (message.back() == '\n') break;
    }
  }
  close(ready[0]);
  int status = 1;
  size_t at = 0;
  bool started = false;
  while (at < message.size()) {
    const size_t end = message.find('\n', at);
    const std::string line = message.substr(at, end - at);
    at = end == std::string::npos ? message.size() : end + 1;
    if (line.empty()) continue;
    if (line[0] == 'N' || line[0] == 'E') std::fprintf(stderr, "%s\n", line.c_str() + 1);
    if (line[0] == 'C') {
      started = true;
      status = 0;
      if (config.generic) std::printf("%s\n", line.c_str() + 1);
    }
  }
  if (!started) {
    waitpid(child, nullptr, 0);
    if (message.empty()) std::fprintf(stderr, "trace: the session daemon did not start\n");
  }
  return status;
}

// -x: traces a command until it ends.
int RunCommand(const SessionConfig& config) {
  std::vector<std::string> notices;
  auto daemon = StartDaemon(config, notices, /*serve_thread=*/true);
  PrintNotices(notices);
  if (!daemon) {
    std::fprintf(stderr, "%s\n", daemon.error().message.c_str());
    return 1;
  }
  std::vector<char*> argv;
  for (const auto& word : config.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "trace: -x: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (child > 0) {
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  } else {
    std::perror("trace: fork");
  }
  const int result = ReportStop((*daemon)->Stop());
  if (child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) return 1;
  return result;
}

// Without -a or -x: the AIX prompt.
int RunInteractive(const SessionConfig& config) {
  std::vector<std::string> notices;
  auto daemon = StartDaemon(config, notices, /*serve_thread=*/true);
  PrintNotices(notices);
  if (!daemon) {
    std::fprintf(stderr, "%s\n", daemon.error().message.c_str());
    return 1;
  }
  StopOnSignals(true);
  // With -o - the log owns standard output.
  FILE* prompt = config.log.log_path == "-" ? stderr : stdout;
  std::string line;
  for (;;) {
    if ((*daemon)->stopped() || g_signalled.load()) break;  // trcstop elsewhere, or a signal
    std::fputs("-> ", prompt);
    std::fflush(prompt);
    // Waits for input without blocking signals or trcstop out: either may end the session.
    bool readable = std::cin.rdbuf()->in_avail() > 0;
    while (!readable && !(*daemon)->stopped() && !g_signalled.load()) {
      pollfd input{STDIN_FILENO, POLLIN, 0};
      readable = poll(&input, 1, 200) > 0;
    }
    if (!readable || !std::getline(std::cin, line)) break;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    if (line == "q" || line == "quit" || line == "stop" || line == "trcstop") break;
    if (line == "trcon" || line == "trcoff") {
      if (auto r = (*daemon)->SetTracing(line == "trcon"); !r) {
        std::fprintf(stderr, "trace: %s\n", r.error().message.c_str());
      }
    } else if (line[0] == '!') {
      if (std::system(line.c_str() + 1) == -1) std::perror("trace: !");
    } else {
      std::fprintf(stderr, "trace: unknown subcommand '%s' (trcon, trcoff, q, !command)\n",
                   line.c_str());
    }
  }
  return ReportStop((*daemon)->Stop());
}

}  // namespace

int RunAixTrace(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& arg : args) {
    if (arg == "-h" || arg == "--help" || arg == "-?") {
      std::printf(
          "usage: trace [-a] [-d] [-f | -l] [-s] [-c] [-n] [-g] [-o FILE|-] [-T SIZE] [-L SIZE]\n"
          "             [-j IDS] [-k IDS] [-C all|CPUS] [-x 'COMMAND ARGS']\n"
          "       trace on|off ...   (dynamic tracepoints)\n"
          "  -a  run in the background (stop with trcstop)   -d  start with tracing off (trcon)\n"
          "  -f  single mode   -l  circular mode   -s  stop when the log is full\n"
          "  -c  keep the previous log as FILE.old   -n  add loader (symbol) information\n"
          "  -g  take a generic channel 1-7 (printed)   -o  log file (- for standard output)\n"
          "  -T  buffer size per thread   -L  log size   -j/-k  hooks to record / not to record\n"
          "  -C  one buffer set and log per cpu   -x  trace COMMAND until it ends\n");
      return 0;
    }
  }
  auto config = session::ParseTraceArgs(args);
  if (!config) {
    std::fprintf(stderr, "%s\n", config.error().message.c_str());
    return 2;
  }
  if (geteuid() != 0 && config->kernel) {
    std::fprintf(stderr,
                 "trace: not running as root: kernel events are not recorded, only the hooks of "
                 "programs linked with librastrace\n");
    config->kernel = false;
  }
  if (!config->command.empty()) return RunCommand(*config);
  if (config->background) return RunBackground(*config);
  return RunInteractive(*config);
}

}  // namespace rastrace::cli
