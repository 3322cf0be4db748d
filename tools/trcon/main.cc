// trcon [-N]: turns tracing on (docs/session.md).
#include "session/control_command.h"

// The command itself is never traced.
extern "C" const int rastrace_autostart_disabled = 1;

int main(int argc, char** argv) {
  return rastrace::session::RunControlCommand("trcon", rastrace::session::Command::kOn, argc, argv);
}
