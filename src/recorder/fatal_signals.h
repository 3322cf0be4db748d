// Best-effort flush of the log when the process dies of a signal: the handler asks the writer to
// complete the log, then hands the signal to the handler that was installed before (or re-raises
// it with the default action).
#pragma once

namespace rastrace::recorder {

// Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, and for
// SIGTERM, SIGINT, SIGHUP, SIGQUIT only while they have their default (fatal) action. `flush` must
// only use async-signal-safe operations. Installs once per process.
void InstallFatalSignalHandlers(void (*flush)());

}  // namespace rastrace::recorder
