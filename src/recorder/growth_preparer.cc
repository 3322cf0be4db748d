#include "recorder/growth_preparer.h"

#include <sys/prctl.h>

#include "common/started_thread.h"

namespace rastrace::recorder {

GrowthPreparer::GrowthPreparer() : thread_(StartThreadAndWait([this] { Main(); })) {}

GrowthPreparer::~GrowthPreparer() {
  Stop();
}

bool GrowthPreparer::Submit(buffer::RingBuffer& ring, size_t entry) {
  {
    std::lock_guard lock(mutex_);
    if (cancel_.load(std::memory_order_relaxed) || count_ == kQueue) return false;
    queue_[(first_ + count_) % kQueue] = {&ring, entry};
    ++count_;
  }
  wake_.notify_one();
  return true;
}

void GrowthPreparer::Stop() {
  {
    std::lock_guard lock(mutex_);
    cancel_.store(true, std::memory_order_relaxed);
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void GrowthPreparer::Main() {
  prctl(PR_SET_NAME, "rastrace-grow");
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return cancel_.load(std::memory_order_relaxed) || count_ != 0; });
    if (count_ == 0) return;  // stopping, nothing left
    const Job job = queue_[first_];
    first_ = (first_ + 1) % kQueue;
    --count_;
    lock.unlock();
    // Stopping: what is queued is released without its memory being prepared.
    if (cancel_.load(std::memory_order_relaxed)) {
      job.ring->CancelGrowth(job.entry);
    } else {
      job.ring->PrepareGrowth(job.entry, &cancel_);
    }
    lock.lock();
  }
}

}  // namespace rastrace::recorder
