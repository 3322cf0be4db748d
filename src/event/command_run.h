// Running the real commands in end-to-end tests: a command line through the shell, its exit
// status and what it printed.
#pragma once

#include <string>

#include "event/temp_dir.h"

namespace rastrace::event::testing {

struct CommandRun {
  int status = -1;  // the exit status; -1 when killed by a signal
  std::string out;
  std::string err;
};

// $RASTRACE_BIN/`name`; empty, with the reason in `why`, when RASTRACE_BIN is not set (the test
// was not run through ctest) or the command was not built.
std::string BuiltCommand(const std::string& name, std::string& why);

// Runs `command` with `sh -c`, standard input from `input_path`, its outputs captured in files of
// `dir`.
CommandRun RunCommand(const std::string& command, const TempDir& dir,
                      const std::string& input_path = "/dev/null");

// A whole file ("" when it cannot be read).
std::string ReadTextFile(const std::string& path);

}  // namespace rastrace::event::testing
