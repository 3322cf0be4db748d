// One recording thread: its ring and what the writer remembers about it between drains.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "buffer/ring_buffer.h"
#include "buffer/shm_ring.h"

namespace rastrace::recorder {

struct ThreadSlot {
  ThreadSlot(size_t buffer_bytes, buffer::Mode mode, uint64_t thread_id)
      : ring(buffer_bytes, mode, thread_id) {}
  // A ring in a flight-recorder file (--shm-path): it holds drained space until a checkpoint and
  // grows through the file (buffer::ShmRing is its RegionSource).
  ThreadSlot(std::unique_ptr<buffer::ShmRing> file, buffer::Mode mode, uint64_t thread_id)
      : ring(file->placement(/*hold=*/true), mode, thread_id), shm(std::move(file)) {}

  buffer::RingBuffer ring;
  std::unique_ptr<buffer::ShmRing> shm;  // the file `ring` lives in, with --shm-path
  // The thread has exited: once drained, the writer frees the slot.
  std::atomic<bool> retired{false};
  std::array<char, 17> name{};  // as prctl(PR_GET_NAME) gave it when the thread registered

  // Writer side only.
  uint64_t lost_reported = 0;    // ring.lost() + lost_by_writer already written as 006 events
  uint64_t lost_by_writer = 0;   // events discarded because the log was full (-s)
  uint64_t last_timestamp = 0;   // of the last timestamped event drained; orders untimestamped ones
  uint32_t growths_counted = 0;  // ring.growths() already added to the session's totals
  bool name_written = false;

  // Writer side, rings in flight-recorder files (recorder/checkpoints.h): where each checkpoint
  // noted and not yet published found this ring (by the checkpoint's tag, modulo the number
  // kept), and what the last published one says.
  struct CheckpointMark {
    uint64_t tag = UINT64_MAX;
    uint64_t read = 0;
    uint64_t lost_reported = 0;
    uint64_t lost_by_writer = 0;
  };
  static constexpr size_t kCheckpointMarks = 4;
  std::array<CheckpointMark, kCheckpointMarks> marks{};
  uint64_t checkpointed_read = 0;
  uint64_t checkpointed_lost = 0;  // lost_reported

  void ResetWriterState() {
    lost_reported = lost_by_writer = last_timestamp = 0;
    growths_counted = 0;
    name_written = false;
    marks = {};
    checkpointed_read = checkpointed_lost = 0;
  }
  // Everything the ring's thread committed and lost is in a published checkpoint (or the ring is
  // not in a file): a retired slot may be freed without a recovery missing its last events.
  bool Checkpointed() const {
    return !shm || (checkpointed_read == ring.published_head() &&
                    checkpointed_lost == ring.lost() + lost_by_writer);
  }
};

}  // namespace rastrace::recorder
