// The flight recorder's checkpoints (docs/reliability.md, "Checkpoints"), kept by the writer
// thread without waiting for the disk.
//
// A checkpoint says: the log's first N bytes are whole events and in the file, and each ring's
// events from its checkpointed position on are the committed events not in them. It used to be
// taken after every round by writing the log out (waiting for every O_DIRECT write in flight,
// then writing the partial chunk synchronously), so each round waited for the disk while the
// rings filled, and the disk idled while the next round merged. Now each round's end is noted
// (the log's size then, and each ring's drained position and reported losses) and published
// once the file holds that many bytes, which the log's I/O threads get to on their own; only
// then is the drained space handed back to the producers. Recovery stays exact: a ring keeps
// every event after its published position until a later checkpoint has it in the file.
//
// The log is written out (LogSink::FlushToFile) only when the noted round's bytes are still in
// the chunk being filled and nothing more is coming (an idle round) or they have waited
// kMaxWait: at a trickle a chunk takes seconds to fill, and the drained space would stay held.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>

#include "buffer/shm_ring.h"
#include "recorder/log_sink.h"
#include "recorder/thread_slot.h"

namespace rastrace::recorder {

class Checkpoints {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a noted round's bytes may wait in the chunk being filled before the log is written
  // out for them. At more than a chunk (1 MiB) per kMaxWait the chunks fill sooner.
  static constexpr auto kMaxWait = std::chrono::milliseconds(5);
  // Rounds noted and not yet published (the newest replaces the last when all are taken).
  static constexpr size_t kNoted = ThreadSlot::kCheckpointMarks;

  explicit Checkpoints(buffer::ShmProcess& process) : process_(process) {}

  // After a round, once `sink` has been flushed (LogSink::Flush): notes the round's end for the
  // rings in `slots` (every live slot), writes the log out if needed (above), then publishes the
  // newest noted round the file holds and hands the rings' space back up to it. `idle`: the round
  // drained nothing. Stops for good once the log has an error or stopped. Allocates nothing.
  void AfterRound(std::span<ThreadSlot* const> slots, LogSink& sink, bool idle,
                  Clock::time_point now);

  // Published checkpoints (tests, benchmarks).
  uint64_t published() const { return published_; }

 private:
  struct Noted {
    uint64_t tag;
    uint64_t log_bytes;
    uint64_t rotations;  // the file the size is of: a rotation starts a new one
    Clock::time_point when;
  };
  void Note(std::span<ThreadSlot* const> slots, const LogSink& sink, Clock::time_point now);
  void Publish(std::span<ThreadSlot* const> slots, const Noted& noted);

  buffer::ShmProcess& process_;
  std::array<Noted, kNoted> noted_{};  // noted_[0, count_), oldest first
  size_t count_ = 0;
  uint64_t next_tag_ = 0;
  uint64_t published_ = 0;
};

}  // namespace rastrace::recorder
