// The thread that prepares the regions rings grow into (buffer::RingBuffer::PrepareGrowth: a
// ring file's pages reserved in tmpfs and faulted in, about 3 us per 4 KiB page here, so 50 ms
// for a 64 MiB region). Done by the writer, that time was taken from its drain exactly while a
// burst filled the rings, and a flat-out burst could end with nothing drained (docs/recorder.md,
// "Ring growth"); done by the hooks, it is their page faults. On its own thread it runs while
// the writer waits for the disk.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "buffer/ring_buffer.h"

namespace rastrace::recorder {

class GrowthPreparer {
 public:
  // Starts the thread (returns once it runs, so that a fork right after is safe).
  GrowthPreparer();
  GrowthPreparer(const GrowthPreparer&) = delete;
  GrowthPreparer& operator=(const GrowthPreparer&) = delete;
  ~GrowthPreparer();

  // Writer: prepares `entry` of `ring` (what RingBuffer::BeginGrowth returned). False when it
  // cannot be queued (the queue is full, or the preparer stopped): the caller prepares it.
  bool Submit(buffer::RingBuffer& ring, size_t entry);
  // Cancels what is queued or under way (those regions are released, not offered) and ends the
  // thread. Afterwards no ring is being prepared by it.
  void Stop();

 private:
  struct Job {
    buffer::RingBuffer* ring = nullptr;
    size_t entry = 0;
  };
  // More than the rings that can be preparing at once would need only with more threads than
  // this; a full queue falls back to the writer.
  static constexpr size_t kQueue = 64;

  void Main();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::array<Job, kQueue> queue_{};  // queue_[first_ .. first_ + count_), modulo kQueue
  size_t first_ = 0;
  size_t count_ = 0;
  // Set (under mutex_) when stopping: no job is taken any more, and the preparation under way
  // reads it between its steps.
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace rastrace::recorder
