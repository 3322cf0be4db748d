// Sub-commands of the `rastrace` front end. Each cmd_*.cc file registers one with a
// static CommandRegistration; main.cc wires them into CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rastrace::cli {

struct Command {
  std::string name;
  std::string help;
  // Adds options to `sub` and returns the action run when the sub-command was chosen; the action
  // returns the process exit status.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& Commands();

struct CommandRegistration {
  explicit CommandRegistration(Command command) { Commands().push_back(std::move(command)); }
};

}  // namespace rastrace::cli
