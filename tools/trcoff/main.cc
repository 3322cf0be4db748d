// trcoff [-N]: turns tracing off (docs/session.md).
#include "session/control_command.h"

// The command itself is never traced.
extern "C" const int rastrace_autostart_disabled = 1;

int main(int argc, char** argv) {
  return rastrace::session::RunControlCommand("trcoff", rastrace::session::Command::kOff, argc,
                                              argv);
}
