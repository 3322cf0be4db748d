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

// Field 22 of /proc/PID/stat; 0 when the process is gone. The command name (field 2) may hold
// blanks and parentheses, so the fields are counted after its last ')'.
uint64_t StartTime(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text;
  if (!std::getline(in, text)) return 0;
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && (fields >> field); ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

uint32_t LoginUid() {
  std::ifstream in("/proc/self/loginuid");
  uint64_t value = kNoLoginUid;
  if (!(in >> value) || value > kNoLoginUid) return kNoLoginUid;
  return static_cast<uint32_t>(value);
}

// The tracer still runs: the same pid with the same start time.
bool Alive(const SessionState& state) {
  if (state.tracer <= 0 || (kill(state.tracer, 0) != 0 && errno != EPERM)) return false;
  return state.tracer_start == 0 || StartTime(state.tracer) == state.tracer_start;
}

}  // namespace

SessionState NewSessionState(pid_t target, std::string engine, std::string output) {
  SessionState state;
  state.tracer = getpid();
  state.target = target;
  state.engine = std::move(engine);
  state.output = std::move(output);
  state.uid = getuid();
  state.login_uid = LoginUid();
  state.tracer_start = StartTime(state.tracer);
  return state;
}

bool StartedByCaller(const SessionState& state) {
  if (state.uid != getuid()) return false;
  uint32_t mine = LoginUid();
  return mine == kNoLoginUid || state.login_uid == kNoLoginUid || state.login_uid == mine;
}

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
  // The output path goes last: it may hold blanks.
  std::string text =
      fmt::format("v2 {} {} {} {} {} {} {}\n", state.tracer, state.target, state.engine, state.uid,
                  state.login_uid, state.tracer_start, state.output);
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
    std::string path = dir + "/" + std::string(name);
    std::ifstream in(path);
    SessionState state;
    std::string line;
    if (!std::getline(in, line)) continue;
    std::istringstream fields(line);
    if (line.rfind("v2 ", 0) == 0) {
      std::string version;
      fields >> version >> state.tracer >> state.target >> state.engine >> state.uid >>
          state.login_uid >> state.tracer_start;
    } else {
      // Written by an earlier version: the file's owner started it.
      struct stat info;
      fields >> state.tracer >> state.target >> state.engine;
      state.uid = stat(path.c_str(), &info) == 0 ? info.st_uid : 0;
      state.login_uid = kNoLoginUid;
    }
    if (fields.fail()) continue;  // not a state file of ours
    std::getline(fields >> std::ws, state.output);
    if (!Alive(state)) {
      unlink((dir + "/" + std::string(name)).c_str());
      continue;
    }
    states.push_back(std::move(state));
  }
  closedir(d);
  return states;
}

}  // namespace rastrace::dyntrace
