// The state file through which `trace off` finds the tracer `trace on` left running: one file per
// traced process in /run/rastrace (root) or $XDG_RUNTIME_DIR/rastrace, mode 0600, in a directory
// of mode 0700.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace rastrace::dyntrace {

struct SessionState {
  pid_t tracer = 0;
  pid_t target = 0;
  std::string engine;  // "ptrace" or "bpf"
  std::string output;  // where the records go
  // Who started it: the real uid and the login uid (audit loginuid, kept across su and sudo;
  // kNoLoginUid when the system does not set one).
  uid_t uid = 0;
  uint32_t login_uid = 0;
  // The tracer's start time (clock ticks after boot, /proc/PID/stat): a pid reused by another
  // process is not taken for the tracer.
  uint64_t tracer_start = 0;
};

inline constexpr uint32_t kNoLoginUid = 0xFFFFFFFF;

// The state of a session this process is the tracer of, started by this user.
SessionState NewSessionState(pid_t target, std::string engine, std::string output);
// Whether `state` is a session the calling user started: the same uid, and the same login uid
// when both have one. `trace off` acts only on these.
bool StartedByCaller(const SessionState& state);

// The directory; RASTRACE_RUNTIME_DIR overrides it (tests).
std::string StateDirectory();
Result<void> WriteState(const SessionState& state);
void RemoveState(pid_t target);
// Every session whose tracer is still alive (the same process that wrote it); files of dead
// tracers are removed.
std::vector<SessionState> ListStates();

}  // namespace rastrace::dyntrace
