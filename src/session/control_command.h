// trcon, trcoff and trcstop: one request to a running session.
#pragma once

#include "session/control_protocol.h"

namespace rastrace::session {

// argv: [-N] where N is the channel (0, the system trace, by default). Prints the daemon's
// answer or the reason for failing; returns the exit status.
int RunControlCommand(const char* name, Command command, int argc, char** argv);

}  // namespace rastrace::session
