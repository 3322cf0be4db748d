#include "dyntrace/session_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rastrace::dyntrace {
namespace {

constexpr std::string_view kPrefix = "dyntrace.";

std::string StatePath(pid_t target) {
  return fmt::format("{}/{}{}", StateDirectory(), kPrefix, target);
}

bool Alive(pid_t pid) {
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

}  // namespace

std::string StateDirectory() {
  if (const char* dir = std::getenv("RASTRACE_RUNTIME_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (geteuid() == 0) return "/run/rastrace";
  if (const char* dir = std::getenv("XDG_RUNTIME_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/rastrace";
  }
  return fmt::format("/tmp/rastrace-{}", geteuid());
}

Result<void> WriteState(const SessionState& state) {
  std::string dir = StateDirectory();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return MakeError("{}: cannot create: {}", dir, std::strerror(errno));
  }
  struct stat info;
  if (lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != geteuid()) {
    return MakeError("{}: not a directory owned by this user", dir);
  }
  std::string path = StatePath(state.target);
  std::string temp = path + ".tmp";
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return MakeError("{}: cannot create: {}", temp, std::strerror(errno));
  std::string text =
      fmt::format("{} {} {} {}\n", state.tracer, state.target, state.engine, state.output);
  bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!written || rename(temp.c_str(), path.c_str()) != 0) {
    unlink(temp.c_str());
    return MakeError("{}: cannot write the session state", path);
  }
  return Ok();
}

void RemoveState(pid_t target) {
  unlink(StatePath(target).c_str());
}

std::vector<SessionState> ListStates() {
  std::vector<SessionState> states;
  std::string dir = StateDirectory();
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return states;
  while (dirent* entry = readdir(d)) {
    std::string_view name = entry->d_name;
    if (name.substr(0, kPrefix.size()) != kPrefix || name.find(".tmp") != std::string_view::npos) {
      continue;
    }
    std::ifstream in(dir + "/" + std::string(name));
    SessionState state;
    std::string line;
    if (!std::getline(in, line)) continue;
    std::istringstream fields(line);
    fields >> state.tracer >> state.target >> state.engine;
    std::getline(fields >> std::ws, state.output);
    if (!Alive(state.tracer)) {
      unlink((dir + "/" + std::string(name)).c_str());
      continue;
    }
    states.push_back(std::move(state));
  }
  closedir(d);
  return states;
}

}  // namespace rastrace::dyntrace
