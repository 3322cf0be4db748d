// The AIX form of `trace` (-a -f -l -o ...): a system-wide session (src/session).
#pragma once

namespace rastrace::cli {

// argv[0] is "trace". Returns the exit status.
int RunAixTrace(int argc, char** argv);

}  // namespace rastrace::cli
