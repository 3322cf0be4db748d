// Built without the session part: the AIX form of `trace` says so.
#include <cstdio>

#include "aix_trace_cmd.h"

namespace rastrace::cli {

int RunAixTrace(int, char**) {
  std::fputs("trace: this build has no system-wide sessions (the session part was not built)\n",
             stderr);
  return 2;
}

}  // namespace rastrace::cli
