#include "session/daemon_diagnostics.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "recorder/session_page.h"

namespace rastrace::session {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
constexpr size_t kTailBytes = 4096;
constexpr std::string_view kSignalMark = "): fatal signal ";

// The handlers in place before ours: restored before the signal goes on, so a sanitizer still
// prints its report. Written once before any handler can run, read only by handlers.
struct sigaction g_previous[sizeof kFatalSignals / sizeof kFatalSignals[0]];

const char* SignalName(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGABRT:
      return "SIGABRT";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
  }
  return "?";
}

// Async-signal-safe: no allocation, no stdio, only write(2).
char* AppendText(char* at, char* end, const char* text) {
  while (*text != '\0' && at < end) *at++ = *text++;
  return at;
}

char* AppendNumber(char* at, char* end, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0 && at < end) *at++ = digits[--n];
  return at;
}

void OnFatalSignal(int signal, siginfo_t* info, void*) {
  const int saved_errno = errno;
  char line[160];
  char* end = line + sizeof line;
  char* at = AppendText(line, end, "trace daemon (pid ");
  at = AppendNumber(at, end, static_cast<unsigned long>(getpid()));
  at = AppendText(at, end, "): fatal signal ");
  at = AppendNumber(at, end, static_cast<unsigned long>(signal));
  at = AppendText(at, end, " (");
  at = AppendText(at, end, SignalName(signal));
  at = AppendText(at, end, ")");
  if (info != nullptr && info->si_code <= 0) {
    // Sent by a process (kill, abort's raise): say which, a SIGABRT from abort names the daemon.
    at = AppendText(at, end, " sent by pid ");
    at = AppendNumber(at, end, static_cast<unsigned long>(info->si_pid));
  } else if (info != nullptr) {
    at = AppendText(at, end, " at address 0x");
    char hex[20];
    int n = 0;
    auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    do {
      hex[n++] = "0123456789abcdef"[address % 16];
      address /= 16;
    } while (address != 0);
    while (n > 0 && at < end) *at++ = hex[--n];
  }
  at = AppendText(at, end, "\n");
  (void)!write(STDERR_FILENO, line, static_cast<size_t>(at - line));
  for (size_t i = 0; i < sizeof kFatalSignals / sizeof kFatalSignals[0]; ++i) {
    if (kFatalSignals[i] == signal) sigaction(signal, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  // A fault returns to the faulting instruction, which faults again into the previous handler;
  // a sent signal is sent again (blocked until this handler returns).
  if (info == nullptr || info->si_code <= 0) raise(signal);
}

}  // namespace

std::string DaemonErrPath(const std::string& channel_dir) {
  return channel_dir + "/daemon.err";
}

Result<void> RedirectStderrToDaemonErr(const std::string& channel_dir) {
  const std::string path = DaemonErrPath(channel_dir);
  auto opened = recorder::OpenPrivateFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
  if (!opened) return opened.error();
  const int fd = *opened;
  const bool moved = dup2(fd, STDERR_FILENO) == STDERR_FILENO;
  const int error = errno;
  close(fd);
  if (!moved) return MakeError("{}: dup2: {}", path, std::strerror(error));
  return Ok();
}

void InstallFatalSignalReport() {
  // Its own stack: a stack overflow still gets its line.
  static char alternate_stack[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  for (size_t i = 0; i < sizeof kFatalSignals / sizeof kFatalSignals[0]; ++i) {
    struct sigaction action {};
    action.sa_sigaction = OnFatalSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(kFatalSignals[i], &action, &g_previous[i]);
  }
}

std::string DaemonErrTail(const std::string& channel_dir, size_t max_lines) {
  const int fd = open(DaemonErrPath(channel_dir).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st;
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t size = st.st_size;
    const off_t from = size > static_cast<off_t>(kTailBytes) ? size - kTailBytes : 0;
    text.resize(static_cast<size_t>(size - from));
    const ssize_t n = pread(fd, text.data(), text.size(), from);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  close(fd);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t start = text.size();
  for (size_t lines = 0; lines < max_lines && start != std::string::npos && start > 0;) {
    start = text.rfind('\n', start - 1);
    if (start != std::string::npos) ++lines;
  }
  if (start == std::string::npos || start >= text.size()) return text;
  // A sanitizer's report after the signal line may push it out of the last lines: keep it.
  std::string kept;
  for (size_t at = 0; at < start;) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos || end > start) end = start;
    const std::string_view line(text.data() + at, end - at);
    if (line.find(kSignalMark) != std::string_view::npos) kept.append(line).push_back('\n');
    at = end + 1;
  }
  return kept + text.substr(start + 1);
}

}  // namespace rastrace::session
