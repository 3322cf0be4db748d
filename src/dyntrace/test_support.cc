#include "dyntrace/test_support.h"

#include <cpuid.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "dyntrace/bpf_engine.h"
#include "dyntrace/process_maps.h"

namespace rastrace::dyntrace::testing {

std::string TestProgram(const std::string& name) {
  return std::string(RASTRACE_BINARY_DIR) + "/tests/dyntrace/" + name;
}

std::string TestSource(const std::string& name) {
  return std::string(RASTRACE_SOURCE_DIR) + "/src/dyntrace/testdata/" + name;
}

int MarkerLine(const std::string& file, const std::string& marker) {
  std::ifstream in(TestSource(file));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find("LINE:" + marker) != std::string::npos) return number;
  }
  ADD_FAILURE() << "no LINE:" << marker << " in " << file;
  return 0;
}

std::string StripWithDebugLink(const std::string& name, const std::string& dir,
                               std::string& reason) {
  for (const char* tool : {"/usr/bin/objcopy", "/usr/bin/strip"}) {
    if (::access(tool, X_OK) != 0) {
      reason = std::string(tool) + " is not installed (binutils)";
      return {};
    }
  }
  std::string copy = dir + "/" + name;
  // The link names the debug file by its base name: objcopy runs in `dir`.
  std::string script = fmt::format(
      "cd '{0}' && cp '{1}' '{2}' && /usr/bin/objcopy --only-keep-debug '{2}' '{2}.debug' && "
      "/usr/bin/strip --strip-all '{2}' && /usr/bin/objcopy --add-gnu-debuglink='{2}.debug' "
      "'{2}'",
      dir, TestProgram(name), name);
  if (std::system(script.c_str()) != 0) {
    reason = "objcopy/strip failed: " + script;
    return {};
  }
  return copy;
}

tsf::Module ParseModule(const std::string& text) {
  tsf::ParseOutput parsed = tsf::ParseTsf(text, "test.tsf");
  for (const tsf::Diagnostic& diagnostic : parsed.diagnostics) {
    if (diagnostic.is_error()) ADD_FAILURE() << diagnostic.ToString();
  }
  if (!parsed.module) return {};
  return std::move(*parsed.module);
}

void CollectingSink::OnHit(const CompiledTracepoint& tracepoint, const Hit& hit) {
  hits.push_back({tracepoint.minor, hit.pid, hit.tid,
                  std::vector<uint8_t>(hit.data.begin(), hit.data.end()), hit.built});
}

std::vector<CollectedHit> CollectingSink::OfMinor(uint16_t minor) const {
  std::vector<CollectedHit> out;
  for (const CollectedHit& hit : hits) {
    if (hit.minor == minor) out.push_back(hit);
  }
  return out;
}

Result<std::vector<CompiledTracepoint>> ResolveInProcess(const tsf::Module& module, pid_t pid,
                                                         const Selection& selection,
                                                         const std::string& default_module) {
  auto selected = SelectTracepoints(module, selection);
  if (!selected) return selected.error();
  auto maps = ReadMaps(pid);
  if (!maps) return maps.error();
  return ResolveTracepoints(module, *selected, pid, *maps, default_module);
}

std::string PtraceUnavailableReason() {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  std::string reason;
  if (ptrace(PTRACE_SEIZE, child, nullptr, nullptr) != 0) {
    reason = std::string("ptrace is not permitted here: ") + std::strerror(errno);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return reason;
}

std::string BpfUnavailableReason() {
  auto available = BpfAvailable();
  if (!available) return available.error().message;
  return {};
}

void CommandTest::SetUp() {
  std::string reason = PtraceUnavailableReason();
  if (!reason.empty()) GTEST_SKIP() << reason;
  for (const char* tool : {"trace", "trcust", "tracefmt"}) {
    if (!std::filesystem::exists(Bin(tool))) GTEST_SKIP() << Bin(tool) << " is not built";
  }
  dir_ = std::filesystem::temp_directory_path() /
         fmt::format("dyntrace-cmd-{}-{}", getpid(),
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "run");
  setenv("RASTRACE_RUNTIME_DIR", (dir_ / "run").c_str(), 1);
}

void CommandTest::TearDown() {
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

std::string Bin(const std::string& name) {
  const char* dir = std::getenv("RASTRACE_BIN");
  return std::string(dir != nullptr ? dir : RASTRACE_BINARY_DIR "/bin") + "/" + name;
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& cwd,
                         uid_t run_as) {
  int out_pipe[2], err_pipe[2];
  CommandResult result;
  if (pipe(out_pipe) != 0) return result;
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  pid_t child = fork();
  if (child == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(126);
    if (run_as != 0 && (setgid(run_as) != 0 || setuid(run_as) != 0)) _exit(126);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  // stderr is small; read stdout first, then stderr.
  result.out = ReadAll(out_pipe[0]);
  result.err = ReadAll(err_pipe[0]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(child, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

uint64_t LoadLe(const std::vector<uint8_t>& bytes, size_t at, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size && at + i < bytes.size(); ++i) {
    value |= uint64_t{bytes[at + i]} << (8 * i);
  }
  return value;
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

bool AmdCpu() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return ebx == 0x68747541 && edx == 0x69746E65 && ecx == 0x444D4163;  // "AuthenticAMD"
}

}  // namespace rastrace::dyntrace::testing
