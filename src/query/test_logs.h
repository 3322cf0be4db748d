// Small logs of every family for the query tests and golden cases, built in code so that every
// byte order and layout is covered without committing binaries.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "event/log_builder.h"

namespace rastrace::query::testing {

// aix64 (little-endian, 64-bit: header, time conversion, process table, CPUs, hooks, a generic
// event, a loss), aix32be (big-endian, 32-bit), posix (a POSIX trace stream's log), dyntrace
// (OS/2 dynamic tracepoint hits, `trace on --log`), kernel (a system-wide session: the kernel's
// system calls, context switches, fork/exec/exit, mapped by the session's own code), merged (two
// sources in one log, as `rastrace merge` writes it), damaged (aix64 cut inside its last event).
std::vector<std::string> TestLogNames();
// The log called `name`; throws std::invalid_argument for an unknown name.
event::testing::LogBuilder TestLog(const std::string& name);

// The test inputs that are not logs: "savefile", a TRACEFMT save file (an STDA snapshot of OS/2
// tracepoint records, as tracefmt -s writes it).
std::vector<std::string> TestInputNames();
// The file name of test input or log `name` ("aix64.trc", "savefile.sav").
std::string TestInputFileName(const std::string& name);
// Writes test input or log `name` to `path`.
Result<void> WriteTestInput(const std::string& name, const std::string& path);

}  // namespace rastrace::query::testing
