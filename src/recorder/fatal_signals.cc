#include "recorder/fatal_signals.h"

#include <signal.h>

#include <array>
#include <atomic>

namespace rastrace::recorder {
namespace {

constexpr std::array kAlwaysFatal = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
constexpr std::array kFatalByDefault = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

struct sigaction g_previous[NSIG];
void (*g_flush)() = nullptr;
std::atomic<bool> g_flushing{false};

void OnFatalSignal(int signal, siginfo_t* info, void* context) {
  // Only the first fatal signal flushes; a second one (say, a crash while flushing) goes straight
  // to the previous handler.
  if (!g_flushing.exchange(true) && g_flush != nullptr) g_flush();
  const struct sigaction& previous = g_previous[signal];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler != SIG_DFL) {
    previous.sa_handler(signal);
    return;
  }
  // Default action: put it back and raise again. The signal is blocked while this handler runs,
  // so it is delivered (and kills the process) as soon as the handler returns; a fault re-executes
  // the faulting instruction and ends the same way.
  sigaction(signal, &previous, nullptr);
  raise(signal);
}

void Install(int signal, bool only_if_default) {
  struct sigaction previous {};
  if (sigaction(signal, nullptr, &previous) != 0) return;
  if (only_if_default && ((previous.sa_flags & SA_SIGINFO) || previous.sa_handler != SIG_DFL)) {
    return;
  }
  g_previous[signal] = previous;
  struct sigaction action {};
  action.sa_sigaction = OnFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
}

}  // namespace

void InstallFatalSignalHandlers(void (*flush)()) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  g_flush = flush;
  for (int signal : kAlwaysFatal) Install(signal, false);
  for (int signal : kFatalByDefault) Install(signal, true);
}

}  // namespace rastrace::recorder
