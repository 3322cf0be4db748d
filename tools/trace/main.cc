// trace: `trace on ...` / `trace off ...` attach and detach OS/2-style dynamic tracepoints
// (dyntrace_cmd.cc); every other form is the AIX system trace command.
#include <cstdio>
#include <cstring>

#include "aix_trace_cmd.h"
#include "dyntrace_cmd.h"

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "on") == 0 || std::strcmp(argv[1], "off") == 0)) {
    return rastrace::cli::RunDyntrace(argc, argv);
  }
  return rastrace::cli::RunAixTrace(argc, argv);
}
