#include "session/process_recovery.h"

#include <dirent.h>
#include <fmt/format.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>

#include "buffer/recover.h"

namespace rastrace::session {

namespace {

std::vector<std::string> ShmDirectories(const std::string& procs_dir) {
  std::vector<std::string> out;
  DIR* d = opendir(procs_dir.c_str());
  if (d == nullptr) return out;
  while (dirent* entry = readdir(d)) {
    const std::string_view name = entry->d_name;
    if (name.size() > 5 && name.starts_with('p') && name.ends_with(".shm")) {
      out.push_back(procs_dir + "/" + std::string(name));
    }
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

RecoveryTotals RecoverEndedProcesses(const std::string& procs_dir,
                                     std::span<const uint64_t> finished) {
  RecoveryTotals totals;
  for (const std::string& dir : ShmDirectories(procs_dir)) {
    // A process that completed its log removed its files: what is left belongs to one that died.
    auto pids = buffer::ListRecordedProcesses(dir);
    if (!pids) {
      totals.messages.push_back("trace: " + pids.error().message);
      continue;
    }
    for (uint64_t pid : *pids) {
      if (std::find(finished.begin(), finished.end(), pid) == finished.end()) {
        // Still recording (it did not finish within trcstop's deadline): its rings are moving.
        continue;
      }
      buffer::RecoverOptions options;
      options.dir = dir;
      options.output = fmt::format("{}/recovered-{}.tmp", procs_dir, pid);
      options.force = true;
      options.pid = pid;
      options.remove_files = true;
      // Recovery checks every field of the files it reads; a failure of its own (memory) is still
      // one process's, and must not take the session's log down with it.
      Result<buffer::RecoverSummary> summary = MakeError("recovery failed");
      try {
        summary = buffer::Recover(options);
      } catch (const std::exception& e) {
        summary = MakeError("{}: {}", dir, e.what());
      }
      if (!summary) {
        totals.messages.push_back(fmt::format(
            "trace: process {} died without completing its log, which could not be recovered: {}",
            pid, summary.error().message));
        continue;
      }
      for (const std::string& warning : summary->warnings) {
        totals.messages.push_back("trace: " + warning);
      }
      // The log path comes from a file the process wrote: only a log of this session is replaced.
      const std::string& log = summary->log_path;
      if (!log.starts_with(procs_dir + "/") ||
          log.find('/', procs_dir.size() + 1) != std::string::npos) {
        totals.messages.push_back(fmt::format(
            "trace: process {}: its flight recorder names the log {}, not one of this session; "
            "left alone",
            pid, log));
        unlink(options.output.c_str());
        continue;
      }
      if (rename(options.output.c_str(), log.c_str()) != 0) {
        totals.messages.push_back(fmt::format(
            "trace: {}: cannot replace with the recovered log: {}", log, std::strerror(errno)));
        unlink(options.output.c_str());
        continue;
      }
      ++totals.processes;
      totals.events += summary->events_recovered;
      totals.lost += summary->events_lost;
      totals.messages.push_back(fmt::format(
          "trace: process {} ended without completing its log: {} events recovered from its "
          "buffers",
          pid, summary->events_recovered));
    }
  }
  return totals;
}

}  // namespace rastrace::session
