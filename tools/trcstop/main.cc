// trcstop [-N]: stops the session: every buffer is drained and the log written before it returns
// (docs/session.md).
#include "session/control_command.h"

// The command itself is never traced.
extern "C" const int rastrace_autostart_disabled = 1;

int main(int argc, char** argv) {
  return rastrace::session::RunControlCommand("trcstop", rastrace::session::Command::kStop, argc,
                                              argv);
}
