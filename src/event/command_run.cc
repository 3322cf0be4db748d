#include "event/command_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rastrace::event::testing {

std::string BuiltCommand(const std::string& name, std::string& why) {
  const char* bin = std::getenv("RASTRACE_BIN");
  if (bin == nullptr) {
    why = "RASTRACE_BIN is not set (run through ctest)";
    return {};
  }
  std::string path = std::string(bin) + "/" + name;
  if (access(path.c_str(), X_OK) != 0) {
    why = path + " was not built";
    return {};
  }
  return path;
}

CommandRun RunCommand(const std::string& command, const TempDir& dir,
                      const std::string& input_path) {
  const std::string out = dir.File("command.out");
  const std::string err = dir.File("command.err");
  const std::string line = command + " <'" + input_path + "' >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(line.c_str());
  CommandRun run;
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = ReadTextFile(out);
  run.err = ReadTextFile(err);
  return run;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace rastrace::event::testing
