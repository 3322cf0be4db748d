// Why a background session daemon died: it has no terminal, so its standard error goes to
// <channel dir>/daemon.err, a fatal signal leaves a line there before it kills the daemon, and a
// client that finds the daemon gone quotes the end of that file (issue #7).
#pragma once

#include <string>

#include "common/result.h"

namespace rastrace::session {

// The file, truncated: a daemon.err only ever holds the story of the last daemon of the channel.
std::string DaemonErrPath(const std::string& channel_dir);
// Opens <channel_dir>/daemon.err (0600, never through a symlink, truncated) as standard error.
Result<void> RedirectStderrToDaemonErr(const std::string& channel_dir);
// SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL: writes "fatal signal N (NAME)" to standard error, then
// lets the signal do what it did before (a sanitizer's report, or the default: the daemon dies).
void InstallFatalSignalReport();
// The last `max_lines` lines of daemon.err (at most its last 4 KiB) and
// any fatal-signal line before them; empty when there are none.
std::string DaemonErrTail(const std::string& channel_dir, size_t max_lines = 10);

}  // namespace rastrace::session
