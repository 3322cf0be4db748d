#include "buffer/ring_buffer.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <thread>

namespace rastrace::buffer {

RingBuffer::RingBuffer(size_t capacity_bytes, Mode mode, uint64_t thread_id) {
  producer_.thread_id = thread_id;
  Reset(capacity_bytes, mode);
}

RingBuffer::RingBuffer(const RingPlacement& placement, Mode mode, uint64_t thread_id) {
  producer_.thread_id = thread_id;
  Reset(placement, mode);
}

void RingBuffer::Reset(const RingPlacement& placement, Mode mode) {
  storage_.reset();
  producer_.data = placement.words;
  producer_.capacity_words = placement.capacity_words;
  producer_.mask = placement.capacity_words - 1;
  producer_.control = placement.control;
  hold_ = placement.hold_until_handed_back;
  Empty(mode);
}

void RingBuffer::Reset(size_t capacity_bytes, Mode mode) {
  const size_t bytes = std::bit_ceil(std::clamp(capacity_bytes, kMinBytes, kMaxBytes));
  const size_t words = bytes / 8;
  if (!storage_ || words != producer_.capacity_words) {
    // Value-initialised on purpose: touching every page now keeps page faults off the hot path.
    storage_ = std::make_unique<uint64_t[]>(words);
  }
  producer_.data = storage_.get();
  producer_.capacity_words = words;
  producer_.mask = words - 1;
  producer_.control = &own_control_;
  hold_ = false;
  Empty(mode);
}

void RingBuffer::Empty(Mode mode) {
  producer_.mode = mode;
  producer_.head = 0;
  producer_.cached_tail = 0;
  producer_.cpu = kNoCpu;
  RingControl& control = *producer_.control;
  control.shared.head.store(0, std::memory_order_relaxed);
  control.shared.lost.store(0, std::memory_order_relaxed);
  control.shared.full.store(false, std::memory_order_relaxed);
  control.consumer.read.store(0, std::memory_order_relaxed);
  control.consumer.tail.store(0, std::memory_order_release);
}

bool RingBuffer::MakeRoom(size_t words) {
  const uint64_t head = producer_.head;
  const uint64_t capacity = producer_.capacity_words;
  RingControl& control = *producer_.control;
  producer_.cached_tail = control.consumer.tail.load(std::memory_order_acquire);
  if (head + words - producer_.cached_tail <= capacity) return true;
  if (words > capacity) {
    CountLost();
    return false;
  }
  switch (producer_.mode) {
    case Mode::kAlternate:
      CountLost();
      return false;
    case Mode::kBlocking: {
      // Wait for the writer; give up only when it has made no progress for a long time (it
      // stopped, or the process is stopping), so the wait is bounded and the loss still counted.
      auto last_progress = std::chrono::steady_clock::now();
      for (uint64_t seen = producer_.cached_tail;;) {
        std::this_thread::yield();
        producer_.cached_tail = control.consumer.tail.load(std::memory_order_acquire);
        if (head + words - producer_.cached_tail <= capacity) return true;
        const auto now = std::chrono::steady_clock::now();
        if (producer_.cached_tail != seen) {
          seen = producer_.cached_tail;
          last_progress = now;
        } else if (now - last_progress > kBlockingPatience) {
          CountLost();
          return false;
        }
      }
    }
    case Mode::kSingle:
      CountLost();
      control.shared.full.store(true, std::memory_order_relaxed);
      return false;
    case Mode::kCircular: {
      // Overwrite the oldest whole events; each one overwritten is lost.
      uint64_t tail = producer_.cached_tail;
      uint64_t overwritten = 0;
      while (head + words - tail > capacity) {
        const uint64_t hookword = WordAt(tail);
        tail += EventWords(hookword);
        if (hookword != kCpuMarkerHookword) ++overwritten;
      }
      // A corrupt size cannot carry the tail past the head: clamp, so the ring stays usable.
      if (tail > head) tail = head;
      control.shared.lost.store(control.shared.lost.load(std::memory_order_relaxed) + overwritten,
                                std::memory_order_relaxed);
      producer_.cached_tail = tail;
      // Both positions move before any word is overwritten, so a reader (or a recovery after a
      // crash) never takes an event that is being overwritten.
      control.consumer.read.store(tail, std::memory_order_release);
      control.consumer.tail.store(tail, std::memory_order_release);
      return true;
    }
  }
  return false;
}

bool RingBuffer::ReserveIfRoom(size_t words, uint64_t* position) {
  if (!FitsCached(words)) {
    producer_.cached_tail = producer_.control->consumer.tail.load(std::memory_order_acquire);
    if (!FitsCached(words) && (producer_.mode != Mode::kCircular || !MakeRoom(words))) {
      return false;
    }
  }
  *position = producer_.head;
  return true;
}

void RingBuffer::PutBytes(uint64_t position, const void* bytes, size_t length) {
  const auto* source = static_cast<const uint8_t*>(bytes);
  const size_t whole = length / 8;
  const size_t index = position & producer_.mask;
  const size_t first = std::min<size_t>(whole, producer_.capacity_words - index);
  if (first != 0) std::memcpy(producer_.data + index, source, first * 8);
  if (whole > first) std::memcpy(producer_.data, source + first * 8, (whole - first) * 8);
  if (const size_t rest = length % 8; rest != 0) {
    uint64_t last = 0;
    std::memcpy(&last, source + whole * 8, rest);
    Put(position + whole, last);
  }
}

void RingBuffer::CopyOut(uint64_t position, size_t words, void* out) const {
  auto* target = static_cast<uint8_t*>(out);
  const size_t index = position & producer_.mask;
  const size_t first = std::min<size_t>(words, producer_.capacity_words - index);
  std::memcpy(target, producer_.data + index, first * 8);
  if (words > first) std::memcpy(target + first * 8, producer_.data, (words - first) * 8);
}

}  // namespace rastrace::buffer
