// Used when the dyntrace part is not built.
#include <cstdio>

#include "dyntrace_cmd.h"

namespace rastrace::cli {

int RunDyntrace(int, char**) {
  std::fputs("trace: dynamic tracepoints (trace on/off) are not in this build\n", stderr);
  return 2;
}

}  // namespace rastrace::cli
