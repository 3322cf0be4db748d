#include "recorder/recorder.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>

#include "common/started_thread.h"
#include "recorder/checkpoints.h"
#include "recorder/clock.h"
#include "recorder/current_cpu.h"
#include "recorder/drain.h"
#include "recorder/fatal_signals.h"
#include "recorder/growth_preparer.h"
#include "recorder/log_sink.h"

extern "C" {
uint32_t rastrace_channel_mask = 0;
}

namespace rastrace::recorder {

bool g_filter_active = false;
bool g_fast_hooks = false;
std::bitset<65536> g_filter_allowed;

namespace {

using namespace std::chrono_literals;

constexpr auto kCalibration = 10ms;
// The writer polls: producers never wake it (that would be a system call on the hot path).
// While events flow it sleeps until a ring would be 1/kPollShare full at the rate it just saw
// (each round has a fixed cost, a few microseconds: 20 us rounds at 50 M events/s cost half the
// writer's CPU), at least kMinPoll and at most kMaxPoll; when idle it backs off to kMaxPoll.
// Longer sleeps (a quarter of a ring) left the disk idle between bursts and lost more events.
constexpr auto kMinPoll = 20us;
constexpr auto kMaxPoll = 1ms;
constexpr uint64_t kPollShare = 16;
// A round that drained this share of a ring means producers are outrunning the polls.
constexpr uint64_t kBusyRoundShare = 4;
// How long the final drain waits for hooks already past their channel test when tracing stops.
constexpr auto kStopGrace = 200us;
constexpr int kFatalFlushWaitMs = 2000;
// Threads the writer's vectors have room for from the start (they grow beyond, rarely).
constexpr size_t kReservedSlots = 64;
constexpr size_t kReservedScratchBytes = 4096;

pthread_key_t g_thread_key;

uint32_t ClearChannels() {
  return __atomic_exchange_n(&rastrace_channel_mask, 0, __ATOMIC_SEQ_CST);
}

void SetChannels(uint32_t channels) {
  __atomic_store_n(&rastrace_channel_mask, channels, __ATOMIC_SEQ_CST);
}

void OnThreadExit(void* slot) {
  Recorder::Get().ThreadExiting(static_cast<ThreadSlot*>(slot));
}

// LOG for the process that owns it, LOG.<pid> for any other (a forked child, a program run by the
// traced one): two processes never write one file.
// A ring for thread `tid` in the session's flight-recorder files; nullptr (after a message) when
// the file cannot be created, so the thread records into an ordinary ring.
std::unique_ptr<buffer::ShmRing> CreateShmRing(buffer::ShmProcess& shm, size_t bytes,
                                               buffer::Mode mode, uint64_t tid, const char* name) {
  auto ring = shm.CreateRing(bytes, mode, tid, name);
  if (ring) return std::move(*ring);
  std::fprintf(stderr, "rastrace: %s (thread %llu records in memory only)\n",
               ring.error().message.c_str(), static_cast<unsigned long long>(tid));
  return nullptr;
}

std::string LogPathForThisProcess(const std::string& path) {
  const std::string me = std::to_string(getpid());
  const char* owner = std::getenv(kEnvLogOwner);
  if (owner == nullptr || *owner == '\0') {
    setenv(kEnvLogOwner, me.c_str(), 1);
    return path;
  }
  if (path == "-" || me == owner) return path;
  return path + "." + me;
}

}  // namespace

struct Recorder::Session {
  RecorderOptions options;
  std::string log_path;
  SessionInfo info;
  std::optional<LogSink> sink;
  std::shared_ptr<buffer::ShmProcess> shm;  // --shm-path
  std::optional<Checkpoints> checkpoints;   // with shm
  std::thread writer;
  // Streaming modes: prepares the regions rings grow into, off the writer's rounds.
  std::optional<GrowthPreparer> preparer;
  std::mutex mutex;
  std::condition_variable wake;
  bool stop_requested = false;         // under mutex
  std::atomic<bool> stop_flag{false};  // the same, for polling
  std::atomic<bool> fatal_flush{false};
  std::atomic<bool> complete{false};  // the log has been closed
  std::atomic<pid_t> writer_tid{0};
  std::atomic<uint32_t> channels_at_end{0};  // the channels that were on when tracing ended
  std::optional<Error> error;
  bool log_cut = false;  // a full disk cut the log (event::LogWriter::cut)
  SessionTotals totals;
  uint64_t lost_in_freed_slots = 0;  // the 006 counts of the threads whose rings were freed
  // The writer's working memory, kept across rounds so that a round does not allocate.
  std::vector<ThreadSlot*> writer_slots;
  DrainScratch drain_scratch;

  void NoteChannelsAtEnd(uint32_t channels) {
    uint32_t none = 0;
    if (channels != 0) channels_at_end.compare_exchange_strong(none, channels);
  }
};

// Readable from a signal handler without locks.
static std::atomic<Recorder::Session*> g_active_session{nullptr};

Recorder& Recorder::Get() {
  // Never destroyed: other threads may still hook while the process exits.
  alignas(Recorder) static unsigned char storage[sizeof(Recorder)];
  static Recorder* instance = ::new (storage) Recorder();
  return *instance;
}

Recorder::Recorder() {
  pthread_key_create(&g_thread_key, OnThreadExit);
}

bool Recorder::recording() const {
  return recording_.load(std::memory_order_acquire);
}

std::string Recorder::log_path() const {
  std::lock_guard lock(control_mutex_);
  return session_ ? session_->log_path : last_log_path_;
}

Result<void> Recorder::Start(const RecorderOptions& options) {
  std::lock_guard lock(control_mutex_);
  FinishEndedSessionLocked();
  if (session_) return MakeError("rastrace: already recording to {}", session_->log_path);
  fork_restart_pending_.store(false);
  return StartLocked(options);
}

Result<void> Recorder::StartLocked(const RecorderOptions& options) {
  auto session = std::make_unique<Session>();
  session->options = options;
  // A session's per-process log has a name of its own: no owner to settle, and no setenv from
  // the attach thread while the program's threads may be reading the environment.
  session->log_path =
      options.log_path_is_unique ? options.log_path : LogPathForThisProcess(options.log_path);

  SelectClock(options.clock);
  SessionInfo& info = session->info;
  info = GatherSessionInfo();
  info.conversion = CalibrateClock(kCalibration);
  info.channels = options.channels;
  info.mode = options.mode;
  info.buffer_bytes = buffer::RingBuffer(options.buffer_bytes, options.mode, 0).capacity_bytes();
  info.log_bytes = options.log_bytes;
  info.start_timestamp = Now();
  info.start_wall_ns = RealtimeNanoseconds();
  info.wall_seconds = info.start_wall_ns / 1'000'000'000u;

  const SessionInfo header_info = info;
  auto sink = LogSink::Open(
      session->log_path, options,
      [header_info](std::vector<uint8_t>& out) { AppendHeaderEvents(header_info, out); },
      [](uint64_t count, std::vector<uint8_t>& out) {
        AppendLogWrapped(count, static_cast<uint64_t>(gettid()), Now(), out);
      });
  if (!sink) return sink.error();
  session->sink.emplace(std::move(*sink));
  if (!options.shm_path.empty()) {
    std::vector<uint8_t> header_events;
    AppendHeaderEvents(header_info, header_events);
    auto shm = buffer::ShmProcess::Create(options.shm_path, options.mode, header_events,
                                          session->log_path);
    if (!shm) return MakeError("rastrace: --shm-path {}", shm.error().message);
    session->shm = std::move(*shm);
    session->checkpoints.emplace(*session->shm);
  }

  g_filter_active = !options.include_hooks.empty() || !options.exclude_hooks.empty();
  if (!options.include_hooks.empty()) {
    g_filter_allowed.reset();
    for (uint16_t id : options.include_hooks) g_filter_allowed.set(id);
  } else {
    g_filter_allowed.set();
  }
  for (uint16_t id : options.exclude_hooks) g_filter_allowed.reset(id);
  // The trace's own hooks are never filtered out.
  g_filter_allowed.set(event::kHookTraceOn);
  g_filter_allowed.set(event::kHookTraceOff);
  // The fast path prefetches with PREFETCHW (every x86-64 CPU since 2014 has it; an older one
  // takes the slow path, which does not).
  g_fast_hooks = g_clock_is_tsc && !g_filter_active && HasPrefetchW();
  SetRseqOffset(__rseq_offset);

  {
    std::lock_guard lock(slots_mutex_);
    std::erase_if(slots_, [](const auto& slot) { return slot->retired.load(); });
    slot_bytes_ = options.buffer_bytes;
    slot_max_bytes_ = options.buffer_max_bytes;
    slot_mode_ = options.mode;
    slot_shm_ = session->shm;
    for (auto& slot : slots_) {
      std::unique_ptr<buffer::ShmRing> file;
      if (slot_shm_) {
        file = CreateShmRing(*slot_shm_, options.buffer_bytes, options.mode, slot->ring.thread_id(),
                             slot->name.data());
      }
      if (file) {
        slot->ring.Reset(file->placement(/*hold=*/true), options.mode);
      } else {
        slot->ring.Reset(options.buffer_bytes, options.mode);
      }
      slot->ring.set_growth_limit(options.buffer_max_bytes);
      slot->shm = std::move(file);
      slot->ResetWriterState();
    }
  }

  if (!process_hooks_installed_) {
    process_hooks_installed_ = true;
    pthread_atfork([] { Get().PrepareFork(); }, [] { Get().ParentAfterFork(); },
                   [] { Get().ChildAfterFork(); });
    std::atexit([] { Get().StopAtExit(); });
    InstallFatalSignalHandlers([] { Get().FlushForFatalSignal(); });
  }

  end_requested_.store(false);
  Session& s = *session;
  session_ = std::move(session);
  g_active_session.store(&s);
  recording_.store(true, std::memory_order_release);
  // Working memory for the writer's rounds, so that its first rounds do not allocate either.
  s.writer_slots.reserve(kReservedSlots);
  s.drain_scratch.cursors.reserve(kReservedSlots);
  s.drain_scratch.bytes.reserve(kReservedScratchBytes);
  if (s.options.mode == buffer::Mode::kAlternate || s.options.mode == buffer::Mode::kBlocking) {
    s.preparer.emplace();
  }
  // Returns once the writer runs, so that a program may fork right after trcstart.
  s.writer = StartThreadAndWait([this, &s] { WriterMain(s); });
  SetChannels(options.channels);
  return Ok();
}

void Recorder::SnapshotSlots(std::vector<ThreadSlot*>& slots) {
  std::lock_guard lock(slots_mutex_);
  slots.clear();
  for (auto& slot : slots_) slots.push_back(slot.get());
}

void Recorder::FreeDrainedRetiredSlots(Session& s, bool checkpoints_over) {
  std::lock_guard lock(slots_mutex_);
  std::erase_if(slots_, [&s, checkpoints_over](const auto& slot) {
    // A ring in a file is kept until a published checkpoint has all of it: its file says the
    // checkpoints after its release have it in the log (docs/reliability.md).
    const bool drained = slot->retired.load(std::memory_order_acquire) &&
                         !slot->ring.growth_being_prepared() &&
                         slot->ring.head() == slot->ring.tail() &&
                         slot->lost_reported == slot->ring.lost() + slot->lost_by_writer &&
                         (checkpoints_over || slot->Checkpointed());
    // Its losses are in the log's 006 events; the session's totals must keep them too.
    if (drained) s.lost_in_freed_slots += slot->lost_reported;
    return drained;
  });
}

void Recorder::TendRingGrowth(Session& s, bool offer) {
  for (ThreadSlot* slot : s.writer_slots) {
    buffer::RingBuffer& ring = slot->ring;
    const uint32_t growths = ring.growths();
    s.totals.ring_growths += growths - slot->growths_counted;
    slot->growths_counted = growths;
    s.totals.largest_ring_bytes =
        std::max<uint64_t>(s.totals.largest_ring_bytes, ring.read_capacity_bytes());
    // The next region is offered only to a thread that looks like it will move (its ring is a
    // quarter full, or it grew before): its memory is reserved and faulted in before it is
    // offered (a full file system must not fault the hooks, and the hooks should not take the
    // page faults), and a thread that never outruns the writer should not pay for a region it
    // never takes. The writer only maps it (no allocation: its rounds stay fork-safe); the
    // preparer thread does the slow part while the writer goes on draining.
    if (offer && !slot->retired.load(std::memory_order_relaxed) &&
        (ring.growths() > 0 || ring.unread_words() * 8 >= ring.read_capacity_bytes() / 4)) {
      const size_t entry = ring.BeginGrowth(s.options.buffer_max_bytes);
      if (entry != buffer::RingBuffer::kNoEntry &&
          (!s.preparer || !s.preparer->Submit(ring, entry))) {
        ring.PrepareGrowth(entry);
      }
    }
  }
}

void Recorder::WriterMain(Session& s) {
  s.writer_tid.store(gettid());
  prctl(PR_SET_NAME, "rastrace-writer");
  // Short sleeps must be short: the default 50 us timer slack would stretch every poll.
  prctl(PR_SET_TIMERSLACK, 1000UL);
  LogSink& sink = *s.sink;
  const bool streaming =
      s.options.mode == buffer::Mode::kAlternate || s.options.mode == buffer::Mode::kBlocking;
  std::chrono::microseconds poll = kMaxPoll;
  const uint64_t busy_round_bytes = s.options.buffer_bytes / kBusyRoundShare;
  auto last_round = std::chrono::steady_clock::now();
  auto should_end = [&] {
    return s.stop_flag.load() || s.fatal_flush.load() || end_requested_.load();
  };
  while (!should_end()) {
    if (streaming) {
      SnapshotSlots(s.writer_slots);
      // Before the drain as well as after: a thread that moved since the last round has the
      // next size on offer while this round drains (it may be held up by the disk).
      TendRingGrowth(s, /*offer=*/true);
      const DrainResult drained = DrainOnce(s.writer_slots, sink, Now(), s.drain_scratch);
      s.totals.events_written += drained.events;
      TendRingGrowth(s, /*offer=*/true);
      FreeDrainedRetiredSlots(s);
      // A log cut by a full disk keeps tracing: each round's events are counted, not written, so
      // that the log's last 006 counts every event the program committed and the log lacks.
      if (sink.stopped() && !sink.cut()) {
        // -s and the log is full (or it could not be written): tracing ends here.
        s.NoteChannelsAtEnd(ClearChannels());
        break;
      }
      (void)sink.Flush();
      const auto now = std::chrono::steady_clock::now();
      if (s.checkpoints) {
        // Every live ring, those registered since the drain's snapshot included.
        SnapshotSlots(s.writer_slots);
        s.checkpoints->AfterRound(s.writer_slots, sink, drained.events == 0, now);
      }
      const auto round = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_round);
      last_round = now;
      // A busy round: go straight to the next one.
      if (drained.bytes >= busy_round_bytes) continue;
      if (drained.events == 0) {
        poll = std::min<std::chrono::microseconds>(poll * 2, kMaxPoll);
      } else {
        // All rings' bytes against one ring's share: the estimate errs on the short side.
        const double ns = static_cast<double>(s.options.buffer_bytes / kPollShare) *
                          static_cast<double>(std::max<int64_t>(round.count(), 1)) /
                          static_cast<double>(drained.bytes);
        poll = std::clamp<std::chrono::microseconds>(
            std::chrono::microseconds(static_cast<int64_t>(ns / 1000)), kMinPoll, kMaxPoll);
      }
    }
    std::unique_lock lock(s.mutex);
    s.wake.wait_for(lock, poll, [&] { return s.stop_requested; });
  }

  // No ring is being prepared from here on (what was is released), so that rings may be freed.
  if (s.preparer) s.preparer->Stop();
  // Final drain: every event published before the channels went off, then the closing events.
  s.NoteChannelsAtEnd(ClearChannels());
  if (!s.fatal_flush.load()) std::this_thread::sleep_for(kStopGrace);
  for (;;) {
    SnapshotSlots(s.writer_slots);
    const DrainResult drained = DrainOnce(s.writer_slots, sink, Now(), s.drain_scratch);
    s.totals.events_written += drained.events;
    if (drained.events == 0 && drained.discarded == 0) break;
  }
  TendRingGrowth(s, /*offer=*/false);
  std::vector<uint8_t> trailer;
  const uint64_t end_ts = Now();
  const uint64_t tid = static_cast<uint64_t>(gettid());
  // TRACE OFF comes from this thread: name it, with its pid, so the report can place it.
  AppendThreadName(tid, "rastrace-writer", static_cast<uint64_t>(getpid()), trailer);
  uint32_t channels = s.channels_at_end.load();
  if (channels == 0) channels = 1;
  for (uint32_t ch = 0; ch < 8; ++ch) {
    if (channels & (1u << ch)) AppendTraceOff(ch, tid, end_ts, trailer);
  }
  sink.AppendTrailer(trailer);
  {
    std::lock_guard lock(slots_mutex_);
    s.totals.events_lost = s.lost_in_freed_slots;
    for (auto& slot : slots_) s.totals.events_lost += slot->lost_reported;
  }
  s.totals.rotations = sink.rotations();
  if (s.checkpoints) s.totals.checkpoints = s.checkpoints->published();
  s.totals.log_path = s.log_path;
  if (auto closed = sink.Close(); !closed) s.error = closed.error();
  if (!s.error && sink.error()) s.error = *sink.error();
  s.log_cut = sink.cut();
  FreeDrainedRetiredSlots(s, /*checkpoints_over=*/true);
  // The log is complete: the flight recorder's files have nothing left to recover. A log a full
  // disk cut is complete too: it ends with the count of what was not written, and rebuilding it
  // on the same full disk would only cut it again.
  if (s.shm && (!s.error || s.log_cut)) s.shm->RemoveFiles();
  recording_.store(false, std::memory_order_release);
  s.complete.store(true, std::memory_order_release);
}

void Recorder::FinishEndedSessionLocked() {
  if (session_ && session_->complete.load()) {
    if (session_->writer.joinable()) session_->writer.join();
    last_log_path_ = session_->log_path;
    last_log_cut_ = session_->log_cut;
    g_active_session.store(nullptr);
    session_.reset();
  }
}

Result<SessionTotals> Recorder::Stop() {
  std::lock_guard lock(control_mutex_);
  if (!session_) return MakeError("rastrace: not recording");
  Session& s = *session_;
  s.NoteChannelsAtEnd(ClearChannels());
  {
    std::lock_guard wake_lock(s.mutex);
    s.stop_requested = true;
    s.stop_flag.store(true);
  }
  s.wake.notify_all();
  if (s.writer.joinable()) s.writer.join();
  SessionTotals totals = s.totals;
  std::optional<Error> error = s.error;
  last_log_path_ = s.log_path;
  last_log_cut_ = s.log_cut;
  g_active_session.store(nullptr);
  session_.reset();
  if (error) return *error;
  return totals;
}

Result<void> Recorder::SetChannel(unsigned channel, bool on) {
  if (channel >= 8) return MakeError("rastrace: channel {} is not 0-7", channel);
  std::lock_guard lock(control_mutex_);
  FinishEndedSessionLocked();
  if (!session_) return MakeError("rastrace: not recording");
  const uint32_t bit = 1u << channel;
  if (on) __atomic_fetch_or(&rastrace_channel_mask, bit, __ATOMIC_SEQ_CST);
  RecordControlEvent(on ? event::kHookTraceOn : event::kHookTraceOff, channel);
  if (!on) __atomic_fetch_and(&rastrace_channel_mask, ~bit, __ATOMIC_SEQ_CST);
  return Ok();
}

buffer::RingBuffer* Recorder::RegisterThread() {
  if (fork_restart_pending_.load()) {
    std::lock_guard lock(control_mutex_);
    if (fork_restart_pending_.exchange(false)) {
      if (auto started = StartLocked(fork_options_); !started) {
        ClearChannels();
        std::fprintf(stderr, "rastrace: %s\n", started.error().message.c_str());
      }
    }
  }
  if (!recording() || end_requested_.load()) return nullptr;
  size_t bytes = 0;
  size_t max_bytes = 0;
  buffer::Mode mode = buffer::Mode::kAlternate;
  std::shared_ptr<buffer::ShmProcess> shm;
  {
    std::lock_guard lock(slots_mutex_);
    bytes = slot_bytes_;
    max_bytes = slot_max_bytes_;
    mode = slot_mode_;
    shm = slot_shm_;
  }
  // Allocated (and its pages touched) outside the lock: the other threads keep recording.
  const auto tid = static_cast<uint64_t>(gettid());
  std::array<char, 17> name{};
  prctl(PR_GET_NAME, name.data());
  std::unique_ptr<buffer::ShmRing> file;
  if (shm) file = CreateShmRing(*shm, bytes, mode, tid, name.data());
  auto slot = file ? std::make_unique<ThreadSlot>(std::move(file), mode, tid)
                   : std::make_unique<ThreadSlot>(bytes, mode, tid);
  slot->name = name;
  // The thread maps a larger ring itself when it finds its ring full and the writer has offered
  // none (the writer offers one, prepared, when the ring fills: TendRingGrowth).
  slot->ring.set_growth_limit(max_bytes);
  ThreadSlot* raw = slot.get();
  {
    std::lock_guard lock(slots_mutex_);
    slots_.push_back(std::move(slot));
  }
  pthread_setspecific(g_thread_key, raw);
  SetThreadRing(&raw->ring);
  return &raw->ring;
}

void Recorder::ThreadExiting(ThreadSlot* slot) {
  SetThreadRing(nullptr);
  std::lock_guard lock(slots_mutex_);
  if (recording()) {
    // The writer drains what the thread left and then frees the slot.
    slot->retired.store(true, std::memory_order_release);
    return;
  }
  std::erase_if(slots_, [slot](const auto& s) { return s.get() == slot; });
}

void Recorder::RequestEnd() {
  const uint32_t channels = ClearChannels();
  if (Session* s = g_active_session.load()) s->NoteChannelsAtEnd(channels);
  end_requested_.store(true);
}

void Recorder::FlushForFatalSignal() {
  Session* s = g_active_session.load();
  if (s == nullptr || s->complete.load() || s->writer_tid.load() == gettid()) return;
  s->NoteChannelsAtEnd(ClearChannels());
  s->fatal_flush.store(true);
  for (int waited = 0; waited < kFatalFlushWaitMs && !s->complete.load(); ++waited) {
    timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  }
}

void Recorder::PrepareFork() {
  control_mutex_.lock();
  slots_mutex_.lock();
}

void Recorder::ParentAfterFork() {
  slots_mutex_.unlock();
  control_mutex_.unlock();
}

void Recorder::ChildAfterFork() {
  // Only the forking thread exists in the child. The parent's rings, writer thread and log belong
  // to the parent: the child drops its copies of the rings and starts its own session, with fresh
  // rings and LOG.<pid>, when it first hooks.
  SetThreadRing(nullptr);
  pthread_setspecific(g_thread_key, nullptr);
  slots_.clear();
  slot_shm_.reset();
  if (session_) {
    if (!session_->complete.load()) {
      fork_options_ = session_->options;
      // The parent's own log name stays the parent's: the child writes LOG.<pid>.
      if (fork_options_.log_path_is_unique) {
        fork_options_.log_path += "." + std::to_string(getpid());
      }
      fork_restart_pending_.store(true);
    }
    // Not destroyed: its std::thread is the parent's writer (destroying a joinable thread
    // terminates) and its log writer would write the parent's buffered bytes a second time.
    // Kept reachable from a global so leak checkers do not report it.
    static Session* abandoned_in_child = nullptr;
    abandoned_in_child = session_.release();
    (void)abandoned_in_child;
    g_active_session.store(nullptr);
  }
  recording_.store(false);
  end_requested_.store(false);
  slots_mutex_.unlock();
  control_mutex_.unlock();
}

void Recorder::StopAtExit() {
  {
    std::lock_guard lock(control_mutex_);
    fork_restart_pending_.store(false);
    if (!session_) return;
  }
  if (auto stopped = Stop(); !stopped) {
    // "LOG: no space left on device after N bytes; M events not written", under `rastrace
    // record` in that command's name (it exits 1 for it).
    const char* prefix = !last_log_cut_                              ? ""
                         : std::getenv(kEnvRecordCommand) != nullptr ? "rastrace record: "
                                                                     : "rastrace: ";
    std::fprintf(stderr, "%s%s\n", prefix, stopped.error().message.c_str());
  }
}

}  // namespace rastrace::recorder
