// `trace on` / `trace off`: the dynamic tracepoint front end of the `trace` command.
#pragma once

namespace rastrace::cli {

// argv[0] is "trace", argv[1] is "on" or "off". Returns the exit status.
int RunDyntrace(int argc, char** argv);

}  // namespace rastrace::cli
