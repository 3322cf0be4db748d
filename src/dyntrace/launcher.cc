#include "dyntrace/launcher.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/result.h"

namespace rastrace::dyntrace {
namespace {

constexpr long kOptions =
    PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC;

Result<uint64_t> EntryPoint(pid_t pid) {
  std::ifstream auxv(fmt::format("/proc/{}/auxv", pid), std::ios::binary);
  uint64_t pair[2];
  while (auxv.read(reinterpret_cast<char*>(pair), sizeof pair)) {
    if (pair[0] == AT_ENTRY) return pair[1];
    if (pair[0] == AT_NULL) break;
  }
  return MakeError("/proc/{}/auxv: no AT_ENTRY", pid);
}

Result<int> Wait(pid_t pid) {
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, __WALL) >= 0) break;
    if (errno != EINTR) return MakeError("waitpid {}: {}", pid, std::strerror(errno));
  }
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    return MakeError("the command ended before it reached its entry point (status 0x{:x})", status);
  }
  return status;
}

}  // namespace

Result<pid_t> LaunchStopped(const std::vector<std::string>& argv, int stdout_fd) {
  if (argv.empty()) return MakeError("no command given after --");
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) return MakeError("pipe: {}", std::strerror(errno));
  pid_t child = fork();
  if (child < 0) return MakeError("fork: {}", std::strerror(errno));
  if (child == 0) {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
    raise(SIGSTOP);  // the parent seizes us here
    execvp(args[0], args.data());
    int error = errno;
    (void)!write(error_pipe[1], &error, sizeof error);
    _exit(127);
  }
  close(error_pipe[1]);
  int status = 0;
  while (waitpid(child, &status, WUNTRACED) < 0 && errno == EINTR) {
  }
  if (ptrace(PTRACE_SEIZE, child, nullptr, reinterpret_cast<void*>(kOptions)) != 0) {
    kill(child, SIGKILL);
    close(error_pipe[0]);
    return MakeError("cannot trace the command: {} (ptrace)", std::strerror(errno));
  }
  kill(child, SIGCONT);
  // Run to the exec event, swallowing the stop/continue signals of the hand-over.
  for (;;) {
    auto waited = Wait(child);
    if (!waited) {
      int error = 0;
      if (read(error_pipe[0], &error, sizeof error) == sizeof error) {
        close(error_pipe[0]);
        return MakeError("{}: cannot run: {}", argv[0], std::strerror(error));
      }
      close(error_pipe[0]);
      return waited.error();
    }
    status = *waited;
    if ((status >> 16) == PTRACE_EVENT_EXEC) break;
    int signal = WSTOPSIG(status);
    bool handover = (status >> 16) == PTRACE_EVENT_STOP || signal == SIGSTOP || signal == SIGCONT;
    ptrace(PTRACE_CONT, child, nullptr,
           reinterpret_cast<void*>(static_cast<long>(handover ? 0 : signal)));
  }
  close(error_pipe[0]);

  auto entry = EntryPoint(child);
  if (!entry) {
    kill(child, SIGKILL);
    return entry.error();
  }
  std::string mem_path = fmt::format("/proc/{}/mem", child);
  int mem = open(mem_path.c_str(), O_RDWR | O_CLOEXEC);
  uint8_t original = 0;
  uint8_t int3 = 0xCC;
  if (mem < 0 || pread(mem, &original, 1, static_cast<off_t>(*entry)) != 1 ||
      pwrite(mem, &int3, 1, static_cast<off_t>(*entry)) != 1) {
    if (mem >= 0) close(mem);
    kill(child, SIGKILL);
    return MakeError("{}: cannot set the entry breakpoint", mem_path);
  }
  ptrace(PTRACE_CONT, child, nullptr, nullptr);
  for (;;) {
    auto waited = Wait(child);
    if (!waited) {
      close(mem);
      return waited.error();
    }
    status = *waited;
    user_regs_struct regs;
    if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0 &&
        ptrace(PTRACE_GETREGS, child, nullptr, &regs) == 0 && regs.rip == *entry + 1) {
      regs.rip = *entry;
      ptrace(PTRACE_SETREGS, child, nullptr, &regs);
      break;
    }
    int signal = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
    ptrace(PTRACE_CONT, child, nullptr, reinterpret_cast<void*>(static_cast<long>(signal)));
  }
  (void)!pwrite(mem, &original, 1, static_cast<off_t>(*entry));
  close(mem);
  return child;
}

}  // namespace rastrace::dyntrace
