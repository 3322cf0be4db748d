// The logs of the trcrpt golden tests (tests/golden/trcrpt), built in code so that every byte
// order and layout is covered without committing binaries.
#pragma once

#include <string>
#include <vector>

#include "event/log_builder.h"

namespace rastrace::report {

// Names understood by GoldenLog: example64le, example64be, example32le, example32be,
// rastrace_events, second, truncated, big (many events, for --jobs), recorder_order,
// kernel_events, syscalls, cpu_migration, cpu_other.
std::vector<std::string> GoldenLogNames();
// The log called `name`; an empty log (magic only) for unknown names.
event::testing::LogBuilder GoldenLog(const std::string& name);

}  // namespace rastrace::report
