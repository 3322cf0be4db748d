// Commands that parse with CLI11 map its errors to the usage status of common/exit_status.h, so
// that its own codes (105-109 for validation, required or extra arguments) never reach the user.
// Header-only: only those commands need CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "common/exit_status.h"

namespace rastrace {

// Prints CLI11's message (or the help) as app.exit does, and returns 0 or kExitUsage.
inline int UsageExit(const CLI::App& app, const CLI::ParseError& error) {
  return app.exit(error) == 0 ? 0 : kExitUsage;
}

}  // namespace rastrace
