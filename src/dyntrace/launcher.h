// Starts a command for tracing: forked, seized with ptrace, and run up to its ELF entry point so
// the dynamic loader has mapped every shared object it needs before tracepoints are resolved.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::dyntrace {

// On success the child's only thread is in a ptrace stop at its entry point, seized with the
// options PtraceEngine uses; the caller either adopts it or detaches it. `stdout_fd`, when not
// -1, becomes the command's standard output.
Result<pid_t> LaunchStopped(const std::vector<std::string>& argv, int stdout_fd = -1);

}  // namespace rastrace::dyntrace
