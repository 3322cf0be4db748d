// The in-process recorder: one per process. It owns the registry of per-thread rings, the writer
// thread that drains them into the log, and the session life cycle (start, channels, stop, fork,
// exit, fatal signals). Hooks reach it only on their slow path (a thread's first hook).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "recorder/header_events.h"
#include "recorder/options.h"
#include "recorder/thread_slot.h"

extern "C" {
// Bit n set: channel n is recorded (declared for C in <rastrace/trchk.h>).
extern uint32_t rastrace_channel_mask;
}

namespace rastrace::recorder {

// -j/-k: when active, only hooks whose 16-bit id is allowed are recorded. Set before channels
// are turned on; read by every hook.
extern bool g_filter_active;
extern std::bitset<65536> g_filter_allowed;
// The TSC is the clock and no filter is active: hooks may take their fast path.
extern bool g_fast_hooks;

// Sets the calling thread's ring (the initial-exec TLS pointer the hooks use). In hooks.cc.
void SetThreadRing(buffer::RingBuffer* ring);
// Records TRACE ON / TRACE OFF (`hook`) for `channel` from the calling thread, whatever the
// channel's state. In hooks.cc.
void RecordControlEvent(uint16_t hook, uint64_t channel);
// The calling thread's ring, registered if it has none yet; nullptr when not recording. In
// hooks.cc (benchmarks and tests use it to play the consumer).
buffer::RingBuffer* CurrentThreadRing();

// Counters a session ends with, for tests and `rastrace record` messages.
struct SessionTotals {
  uint64_t events_written = 0;  // thread events copied to the log (not the utility events)
  uint64_t events_lost = 0;     // sum of the 006 events written
  uint64_t rotations = 0;
  uint64_t ring_growths = 0;        // times a thread's ring doubled (see --buffer-max)
  uint64_t largest_ring_bytes = 0;  // the largest ring any thread reached
  uint64_t checkpoints = 0;         // flight-recorder checkpoints published (--shm-path)
  std::string log_path;
};

class Recorder {
 public:
  static Recorder& Get();

  // Starts recording to options.log_path (LOG.<pid> when another process owns LOG, see
  // kEnvLogOwner). Fails when a session is running or the log cannot be created.
  Result<void> Start(const RecorderOptions& options);
  // Turns every channel off, drains all rings, writes the closing events and closes the log.
  Result<SessionTotals> Stop();
  bool recording() const;
  // The log being written, or the last one written.
  std::string log_path() const;

  // Turns a channel on or off and records TRACE ON / TRACE OFF for it from the calling thread.
  Result<void> SetChannel(unsigned channel, bool on);

  // Slow path of hooks: the calling thread's ring, created and registered on its first hook;
  // nullptr when no session is recording.
  buffer::RingBuffer* RegisterThread();
  // A hook found its single-mode ring full: tracing ends (no locks; safe on any thread).
  void RequestEnd();
  // From a fatal-signal handler: asks the writer to complete the log and waits (bounded).
  void FlushForFatalSignal();

  // Process life cycle (pthread_atfork and the pthread key destructor).
  void PrepareFork();
  void ParentAfterFork();
  void ChildAfterFork();
  void ThreadExiting(ThreadSlot* slot);
  void StopAtExit();

  struct Session;

 private:
  Recorder();
  Result<void> StartLocked(const RecorderOptions& options);
  void FinishEndedSessionLocked();
  void WriterMain(Session& session);
  // Fills `slots` (the writer's own vector, reused: a drain round does not allocate).
  void SnapshotSlots(std::vector<ThreadSlot*>& slots);
  // Frees the slots of exited threads that are drained and whose losses are in the log; those
  // losses go on counting in the session's totals. A ring in a file only once a published
  // checkpoint has all of it, unless `checkpoints_over` (the log is closed).
  void FreeDrainedRetiredSlots(Session& session, bool checkpoints_over = false);
  // Counts the rings that grew and, with `offer`, offers each live thread a larger one
  // (docs/recorder.md).
  void TendRingGrowth(Session& session, bool offer);

  mutable std::mutex control_mutex_;  // Start / Stop / SetChannel / fork
  std::mutex slots_mutex_;            // slots_, slot_bytes_, slot_max_bytes_, slot_mode_, slot_shm_
  std::vector<std::unique_ptr<ThreadSlot>> slots_;
  size_t slot_bytes_ = kDefaultBufferBytes;
  size_t slot_max_bytes_ = kDefaultBufferMaxBytes;
  buffer::Mode slot_mode_ = buffer::Mode::kAlternate;
  std::shared_ptr<buffer::ShmProcess> slot_shm_;  // --shm-path: where new rings are placed
  std::unique_ptr<Session> session_;
  std::atomic<bool> recording_{false};
  std::atomic<bool> end_requested_{false};
  std::atomic<bool> fork_restart_pending_{false};
  RecorderOptions fork_options_;
  std::string last_log_path_;
  bool last_log_cut_ = false;  // the last session's log was cut by a full disk
  bool process_hooks_installed_ = false;
};

}  // namespace rastrace::recorder
