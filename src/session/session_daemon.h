// The session daemon: owns one channel's control page, socket and process logs, collects kernel
// events, and at trcstop drains every attached process and writes the session's log.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "event/timebase.h"
#include "event/writer.h"
#include "recorder/options.h"
#include "recorder/session_page.h"
#include "session/control_protocol.h"
#include "session/kernel_collector.h"
#include "session/process_reaper.h"
#include "session/process_recovery.h"
#include "session/session_config.h"

namespace rastrace::session {

struct StopTotals {
  std::string log_path;
  uint64_t events = 0;
  uint64_t lost_events = 0;
  uint64_t dropped_by_log = 0;
  uint64_t processes = 0;
  uint64_t recovered_events = 0;  // taken from the rings of processes that died (SIGKILL)
  std::vector<std::string> warnings;
  std::vector<std::string> failed_logs;  // per-cpu logs (-C) that could not be written
};

class SessionDaemon {
 public:
  // Claims the channel (channel 0, or with config.generic the lowest free one of 1-7) under
  // `base_dir`: refused with a clear message when a session already holds it.
  static Result<std::unique_ptr<SessionDaemon>> Create(const SessionConfig& config,
                                                       const std::string& base_dir);
  ~SessionDaemon();

  // Writes the process table, starts kernel events and opens the page to processes. `notice`
  // receives messages for the user (for example why kernel events are not recorded). With
  // `serve_thread` a thread of the daemon answers control requests (Serve) until the session has
  // stopped. Every thread of this process is then excluded from the kernel's events before
  // tracing starts: the daemon starts no thread later while tracing runs.
  Result<void> Start(std::vector<std::string>& notices, bool serve_thread = false);
  // Answers control requests until a stop request has been served or `quit` is set.
  void Serve(const std::atomic<bool>& quit);
  // trcon / trcoff.
  Result<void> SetTracing(bool on);
  // Drains everything and writes the log (once; later calls return the same totals).
  Result<StopTotals> Stop();

  unsigned channel() const { return channel_; }
  const std::string& channel_dir() const { return dir_; }
  bool stopped() const { return stopped_.load(); }

 private:
  SessionDaemon(SessionConfig config, unsigned channel, std::string dir, int lock_fd);
  void Publish();  // bumps the page's generation and wakes every attached process
  Reply Handle(Command command);
  void Answer(int client);  // reads one request from `client`, replies and closes it
  void AnswerPending();     // answers every client waiting in the listen backlog
  // Waits for every attached process to release its lock; `finished` gets the pids that did.
  std::vector<std::string> WaitForProcesses(uint64_t& processes, std::vector<uint64_t>& finished);
  void Cleanup();
  // The reaper's call: recovers at once the log of a process that died without completing it.
  void ProcessEnded(uint64_t pid);
  void StopReaper();

  SessionConfig config_;
  unsigned channel_;
  std::string dir_;
  int lock_fd_ = -1;
  int listen_fd_ = -1;
  recorder::SessionPage* page_ = nullptr;
  std::unique_ptr<KernelCollector> kernel_;
  std::optional<event::LogWriter> own_events_;  // procs/daemon.trc: trace on/off
  std::vector<uint8_t> process_table_;          // 00A/100 events of the processes at start
  recorder::ClockChoice clock_ = recorder::ClockChoice::kMonotonic;
  event::TimeConversion conversion_;
  uint64_t start_timestamp_ = 0;
  uint64_t start_wall_ns_ = 0;  // CLOCK_REALTIME beside start_timestamp_ (00A/0x10B)
  std::mutex mutex_;
  bool on_ = false;
  std::atomic<bool> stopped_{false};
  std::optional<Result<StopTotals>> stop_result_;
  std::mutex reaper_mutex_;  // reaper_ is stopped by whichever Stop comes first
  std::unique_ptr<ProcessReaper> reaper_;
  std::atomic<bool> server_quit_{false};
  std::thread server_;             // Start(..., serve_thread = true)
  RecoveryTotals early_recovery_;  // logs recovered while the session ran (under mutex_)
};

// Sends one request to the session of `channel` under `base_dir` and returns its reply.
Result<Reply> SendRequest(const std::string& base_dir, unsigned channel, Command command);

}  // namespace rastrace::session
