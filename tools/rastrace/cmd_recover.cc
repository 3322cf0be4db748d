// `rastrace recover DIR -o LOG`: rebuilds the trace log of a process that was recording with
// --shm-path DIR and died (SIGKILL, a crash) before completing its log (docs/reliability.md).
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>

#include "buffer/recover.h"
#include "command.h"
#include "common/output_file.h"

namespace rastrace::cli {
namespace {

struct RecoverArgs {
  std::string dir;
  std::string output;
  bool force = false;
  bool remove = false;
  bool list = false;
  int64_t pid = -1;
};

int RunRecover(const RecoverArgs& args) {
  if (args.list) {
    auto pids = buffer::ListRecordedProcesses(args.dir);
    if (!pids) {
      fmt::print(stderr, "rastrace recover: {}\n", pids.error().message);
      return 1;
    }
    for (uint64_t pid : *pids) fmt::print("{}\n", pid);
    if (auto finished = FinishOutput(stdout); !finished) {
      fmt::print(stderr, "rastrace recover: {}\n", finished.error().message);
      return 1;
    }
    return 0;
  }
  if (args.output.empty()) {
    fmt::print(stderr, "rastrace recover: -o LOG is required\n");
    return 2;
  }
  buffer::RecoverOptions options;
  options.dir = args.dir;
  options.output = args.output;
  options.force = args.force;
  options.remove_files = args.remove;
  if (args.pid >= 0) options.pid = static_cast<uint64_t>(args.pid);
  auto summary = buffer::Recover(options);
  if (!summary) {
    fmt::print(stderr, "rastrace recover: {}\n", summary.error().message);
    return 1;
  }
  for (const std::string& warning : summary->warnings) {
    fmt::print(stderr, "rastrace recover: warning: {}\n", warning);
  }
  fmt::print(stderr,
             "rastrace recover: process {}: {} bytes of {}, {} events from {} rings, {} lost{}\n",
             summary->pid, summary->log_prefix_bytes, summary->log_path, summary->events_recovered,
             summary->rings, summary->events_lost,
             summary->completed_normally ? " (its log had been completed)" : "");
  return 0;
}

const CommandRegistration kRecover{Command{
    "recover", "Rebuild the trace log of a process killed while recording with --shm-path DIR",
    [](CLI::App& sub) -> std::function<int()> {
      auto a = std::make_shared<RecoverArgs>();
      sub.add_option("dir", a->dir, "The --shm-path directory")->required();
      sub.add_option("-o", a->output, "The trace log to write");
      sub.add_option("-p,--pid", a->pid, "The process to recover, when DIR holds several");
      sub.add_flag("-c,--force", a->force, "Replace LOG if it exists");
      sub.add_flag("--remove", a->remove, "Remove the process's files from DIR afterwards");
      sub.add_flag("-l,--list", a->list, "List the processes DIR holds files of");
      return [a] { return RunRecover(*a); };
    }}};

}  // namespace
}  // namespace rastrace::cli
