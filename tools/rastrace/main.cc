// `rastrace`: the umbrella command (record, dump, and the other sub-commands in cmd_*.cc).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "command.h"
#include "common/usage_exit.h"

namespace rastrace::cli {
std::vector<Command>& Commands() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace rastrace::cli

int main(int argc, char** argv) {
  using rastrace::cli::Commands;
  CLI::App app{"rastrace: system trace facility (AIX, POSIX and OS/2 trace on Linux)"};
  app.require_subcommand(1);
  std::sort(Commands().begin(), Commands().end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::function<int()> action;
  for (auto& command : Commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rastrace::UsageExit(app, e);
  }
  return action ? action() : 2;
}
