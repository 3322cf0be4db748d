// `rastrace record [trace options] -- CMD ARGS`: runs CMD with the RASTRACE_* environment that
// makes librastrace (linked into CMD) record to the log, waits for it and exits with its status.
// The rings are recoverable by default: they live in files of a private directory, and a process
// that ends without completing its log (_exit, SIGKILL, a crash) has it rebuilt from them when
// CMD ends (docs/reliability.md).
#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "buffer/recover.h"
#include "command.h"
#include "common/exit_status.h"
#include "event/writer.h"
#include "recorder/options.h"

// This command links the recorder but must not trace itself when RASTRACE_LOG is set around it.
extern "C" const int rastrace_autostart_disabled = 1;

namespace rastrace::cli {
namespace {

struct RecordArgs {
  std::string log = "trcfile";
  bool circular = false;
  bool single = false;
  bool blocking = false;
  bool stop_when_full = false;
  bool keep_old = false;
  bool buffered_io = false;
  bool memory_only = false;
  std::string buffer_size, buffer_max, log_size, include, exclude, channels, clock, shm_path;
  std::vector<std::string> command;
};

// The same option words trcstart() takes, so both are parsed (and checked) by one function.
std::vector<std::string> TraceWords(const RecordArgs& a) {
  std::vector<std::string> words = {"-o", a.log};
  if (a.circular) words.push_back("-l");
  if (a.single) words.push_back("-f");
  if (a.blocking) words.push_back("--blocking");
  if (a.stop_when_full) words.push_back("-s");
  if (a.keep_old) words.push_back("-c");
  if (a.buffered_io) words.push_back("--buffered-io");
  auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) {
      words.push_back(flag);
      words.push_back(value);
    }
  };
  add("-T", a.buffer_size);
  add("--buffer-max", a.buffer_max);
  add("-L", a.log_size);
  add("-j", a.include);
  add("-k", a.exclude);
  add("--channels", a.channels);
  add("--clock", a.clock);
  add("--shm-path", a.shm_path);
  return words;
}

// A new private directory (0700) for the rings' files: in /dev/shm when it can be written (memory,
// as the rings were), else in $TMPDIR or /tmp. Empty, after a message, when none can be made.
std::string MakeRingDirectory() {
  std::vector<std::string> bases;
  if (access("/dev/shm", W_OK | X_OK) == 0) bases.emplace_back("/dev/shm");
  const char* tmp = getenv("TMPDIR");
  bases.emplace_back(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  int err = 0;
  for (const std::string& base : bases) {
    std::string pattern = base + "/rastrace-record-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) return pattern;
    err = errno;
  }
  fmt::print(stderr,
             "rastrace record: cannot create a directory for recoverable buffers in {}: {}; the "
             "buffers are in memory only\n",
             bases.back(), std::strerror(err));
  return {};
}

// Rebuilds the log of every process that left its ring files in `dir` (it ended without
// completing its log) and is gone, then removes the directory. Returns false when a log could
// not be rebuilt (its files stay in `dir`, which is named).
// `log` is the log of CMD (process `command`): the rebuilt logs are written beside it (the logs of
// other processes are LOG.<pid> in the same directory), then renamed over the process's own.
bool RecoverEndedProcesses(const std::string& dir, const std::string& log, pid_t command) {
  auto pids = buffer::ListRecordedProcesses(dir);
  if (!pids) {
    fmt::print(stderr, "rastrace record: {}\n", pids.error().message);
    return false;
  }
  bool ok = true;
  bool left = false;
  for (const uint64_t pid : *pids) {
    // A process CMD started that still runs keeps recording into its files.
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) {
      fmt::print(stderr,
                 "rastrace record: process {} still runs; its buffers stay in {} (`rastrace "
                 "recover {} -o LOG` once it is gone)\n",
                 pid, dir, dir);
      left = true;
      continue;
    }
    // A log the writer cut on a full disk ends with the count of what it could not write and
    // was reported by the process itself; rebuilding it on the same disk would only fail.
    const std::string own_log =
        pid == static_cast<uint64_t>(command) ? log : fmt::format("{}.{}", log, pid);
    if (const auto cut = event::CutLogLostCount(own_log)) {
      fmt::print(stderr,
                 "rastrace record: process {} ended after a full disk cut its log {} ({} events "
                 "not written); not rebuilt there: its buffers stay in {} (`rastrace recover {} "
                 "-o LOG` on a file system with room)\n",
                 pid, own_log, *cut, dir, dir);
      ok = false;
      left = true;
      continue;
    }
    buffer::RecoverOptions options;
    options.dir = dir;
    options.pid = pid;
    options.output = fmt::format("{}.rebuilding-{}", log, pid);
    options.force = true;
    options.remove_files = true;
    auto summary = buffer::Recover(options);
    if (!summary) {
      // A partial rebuild is no log: removed, and the buffers it came from kept.
      std::error_code ignored;
      std::filesystem::remove(options.output, ignored);
      fmt::print(stderr,
                 "rastrace record: process {} ended without completing its log, which could not "
                 "be rebuilt: {}; the partial rebuild was removed, and its buffers stay in {} "
                 "(`rastrace recover {} -o LOG` on a file system with room)\n",
                 pid, summary.error().message, dir, dir);
      ok = false;
      left = true;
      continue;
    }
    for (const std::string& warning : summary->warnings) {
      fmt::print(stderr, "rastrace record: warning: {}\n", warning);
    }
    std::error_code copied;
    if (std::rename(options.output.c_str(), summary->log_path.c_str()) != 0 &&
        (errno != EXDEV ||
         !std::filesystem::copy_file(options.output, summary->log_path,
                                     std::filesystem::copy_options::overwrite_existing, copied) ||
         !std::filesystem::remove(options.output, copied))) {
      fmt::print(stderr,
                 "rastrace record: cannot replace {} with its rebuilt log, left in {}: {}\n",
                 summary->log_path, options.output,
                 copied ? copied.message() : std::string(std::strerror(errno)));
      ok = false;
      left = true;
      continue;
    }
    fmt::print(stderr,
               "rastrace record: process {} ended without completing its log; rebuilt {} from its "
               "buffers: {} bytes it had written, {} events from {} buffers, {} lost\n",
               pid, summary->log_path, summary->log_prefix_bytes, summary->events_recovered,
               summary->rings, summary->events_lost);
  }
  if (!left) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  return ok;
}

// Where the log goes must be a file the traced program can create: checked before it runs, so a
// mistyped directory is not found out after the whole program ran.
bool CheckLogPath(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    fmt::print(stderr, "rastrace record: -o {}: is a directory\n", path);
    return false;
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const std::string where = dir.empty() ? "." : dir;
  if (stat(where.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    fmt::print(stderr, "rastrace record: -o {}: cannot create: {}\n", path,
               stat(where.c_str(), &st) != 0 ? std::strerror(errno) : "Not a directory");
    return false;
  }
  if (access(where.c_str(), W_OK | X_OK) != 0) {
    fmt::print(stderr, "rastrace record: -o {}: cannot create: {}\n", path, std::strerror(errno));
    return false;
  }
  return true;
}

int RunRecord(const RecordArgs& args) {
  if (args.circular && args.single) {
    fmt::print(stderr, "rastrace record: -l (circular) and -f (single) exclude each other\n");
    return 2;
  }
  if (args.blocking && (args.circular || args.single)) {
    fmt::print(stderr, "rastrace record: --blocking excludes -l (circular) and -f (single)\n");
    return 2;
  }
  auto options = recorder::ParseTraceArgs(TraceWords(args));
  if (!options) {
    fmt::print(stderr, "rastrace record: {}\n", options.error().message);
    return 2;
  }
  if (!CheckLogPath(options->log_path)) return kExitFailure;
  // A log left by an earlier run must not pass for this one's (with -c the library keeps it).
  std::error_code ignored;
  if (!options->keep_old) std::filesystem::remove(options->log_path, ignored);
  // Absolute, so that a rebuilt log goes where CMD wrote it even if CMD changed directory.
  if (options->log_path != "-") {
    options->log_path = std::filesystem::absolute(options->log_path, ignored).string();
  }
  std::string ring_dir;
  // A log written to standard output cannot be re-read, so there is nothing to rebuild it from.
  if (options->shm_path.empty() && !args.memory_only && options->log_path != "-") {
    ring_dir = MakeRingDirectory();
    options->shm_path = ring_dir;
  }

  std::vector<char*> argv;
  for (const std::string& word : args.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const auto environment = recorder::OptionsToEnvironment(*options);

  // Like time(1): keyboard signals go to the traced command, which flushes its log and dies.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);

  const pid_t child = fork();
  if (child < 0) {
    fmt::print(stderr, "rastrace record: fork: {}\n", std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    // The command itself writes LOG; processes it starts write LOG.<pid>.
    setenv(recorder::kEnvLogOwner, std::to_string(getpid()).c_str(), 1);
    setenv(recorder::kEnvRecordCommand, "1", 1);
    execvp(argv[0], argv.data());
    fmt::print(stderr, "rastrace record: cannot run {}: {}\n", args.command[0],
               std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      fmt::print(stderr, "rastrace record: waitpid: {}\n", std::strerror(errno));
      return 1;
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);

  const bool recovered =
      ring_dir.empty() || RecoverEndedProcesses(ring_dir, options->log_path, child);
  // The command's own status, unless it succeeded and its log did not: then the log's failure.
  bool log_ok = recovered;
  if (options->log_path != "-" && !std::filesystem::exists(options->log_path, ignored)) {
    fmt::print(stderr,
               "rastrace record: {} wrote no log {} (is it linked with librastrace, and did it "
               "get as far as loading it?)\n",
               args.command[0], options->log_path);
    log_ok = false;
  }
  // A log a full disk cut ends with the writer's 006 count of what was not written; the
  // recorder in CMD said so on stderr ("rastrace record: LOG: no space left on device ...").
  if (options->log_path != "-" && event::CutLogLostCount(options->log_path)) log_ok = false;
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status) != 0 || log_ok ? WEXITSTATUS(status) : kExitFailure;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitFailure;
}

const CommandRegistration kRecord{Command{
    "record", "Run a command linked with librastrace and record its hooks to a trace log",
    [](CLI::App& sub) -> std::function<int()> {
      auto a = std::make_shared<RecordArgs>();
      sub.add_option("-o", a->log, "Trace log file (default trcfile)");
      sub.add_flag("-l", a->circular,
                   "Circular mode: keep the newest events in memory, write them at the end");
      sub.add_flag("-f", a->single, "Single mode: stop tracing when a buffer is full");
      sub.add_flag("--blocking", a->blocking,
                   "Blocking mode: a hook whose buffer is full waits for the writer (nothing is "
                   "lost while the writer runs)");
      sub.add_option("-T", a->buffer_size,
                     "Buffer size per thread (bytes, K, M, G; default 4M, which may grow up to "
                     "--buffer-max while the writer falls behind; a size given here stays fixed)");
      sub.add_option("--buffer-max", a->buffer_max,
                     "How far a thread's buffer may grow (default 64M, or -T when -T is given)");
      sub.add_option("-L", a->log_size, "Log size limit (default none); a full log rotates");
      sub.add_flag("-s", a->stop_when_full, "Stop tracing when the log is full (no rotation)");
      sub.add_flag("-c", a->keep_old, "Keep an existing log as LOG.old");
      sub.add_option("-j", a->include, "Record only these hook ids (hhh or hhhh, comma separated)");
      sub.add_option("-k", a->exclude, "Do not record these hook ids");
      sub.add_option("--channels", a->channels,
                     "Channels to record: 0,3 or 0-7 or all (default 0)");
      sub.add_option("--clock", a->clock, "auto (TSC when invariant), tsc or monotonic");
      sub.add_option("--shm-path", a->shm_path,
                     "Keep the buffers in files under DIR so that `rastrace recover DIR` can "
                     "rebuild the log if CMD is killed (default: a private directory in "
                     "/dev/shm, from which rastrace record rebuilds the log itself)");
      sub.add_flag("--memory-only", a->memory_only,
                   "Keep the buffers in process memory only: a process that ends without "
                   "completing its log (_exit, SIGKILL, a crash) loses what they held");
      sub.add_flag("--buffered-io", a->buffered_io,
                   "Write the log through the page cache instead of with O_DIRECT");
      sub.add_option("command", a->command, "The command to run, after --")->required();
      sub.positionals_at_end();
      return [a] { return RunRecord(*a); };
    }}};

}  // namespace
}  // namespace rastrace::cli
