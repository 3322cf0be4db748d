// The state file through which `trace off` finds the tracer `trace on` left running: one file per
// traced process in /run/rastrace (root) or $XDG_RUNTIME_DIR/rastrace, mode 0600, in a directory
// of mode 0700.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::dyntrace {

struct SessionState {
  pid_t tracer = 0;
  pid_t target = 0;
  std::string engine;  // "ptrace" or "uprobe"
  std::string output;  // where the records go
};

// The directory; RASTRACE_RUNTIME_DIR overrides it (tests).
std::string StateDirectory();
Result<void> WriteState(const SessionState& state);
void RemoveState(pid_t target);
// Every session whose tracer is still alive; files of dead tracers are removed.
std::vector<SessionState> ListStates();

}  // namespace rastrace::dyntrace
