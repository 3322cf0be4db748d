#include "buffer/ring_buffer.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

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
  storage_ = AnonymousMemory();
  offered_ = {};
  producer_.data = placement.words;
  producer_.capacity_words = placement.capacity_words;
  producer_.mask = placement.capacity_words - 1;
  producer_.control = placement.control;
  hold_ = placement.hold_until_handed_back;
  Empty(mode);
}

void RingBuffer::Reset(size_t capacity_bytes, Mode mode) {
  const size_t bytes = std::bit_ceil(std::clamp(capacity_bytes, kMinBytes, kMaxBytes));
  offered_ = {};
  if (storage_.bytes() != bytes) {
    storage_ = AnonymousMemory();  // the old region goes before the new one is mapped
    // Touched now, so that page faults stay off the hot path.
    storage_ = AnonymousMemory::Map(bytes, AnonymousMemory::Touch::kNow);
  }
  const size_t words = storage_.bytes() / 8;
  producer_.data = storage_.words();
  producer_.capacity_words = words;
  producer_.mask = words ? words - 1 : 0;
  producer_.control = &own_control_;
  hold_ = false;
  Empty(mode);
}

void RingBuffer::Empty(Mode mode) {
  producer_.mode = mode;
  producer_.head = 0;
  producer_.cached_tail = 0;
  producer_.cpu = kNoCpu;
  producer_.take = 0;
  grows_ = storage_ && (mode == Mode::kAlternate || mode == Mode::kBlocking);
  reader_.words = producer_.data;
  reader_.mask = producer_.mask;
  reader_.growths = 0;
  reader_.follow = 0;
  for (Growth& growth : growth_) {
    growth.state.store(kGrowthNone, std::memory_order_relaxed);
    growth.words = nullptr;
    growth.capacity_words = 0;
    growth.start = 0;
  }
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
      if (TakeGrowth(words)) return true;
      CountLost();
      return false;
    case Mode::kBlocking: {
      if (TakeGrowth(words)) return true;
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
        const uint64_t hookword = producer_.data[tail & producer_.mask];
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

bool RingBuffer::TakeGrowth(size_t words) {
  if (!grows_) return false;
  const size_t entry = producer_.take;
  Growth& growth = growth_[entry];
  uint8_t state = growth.state.load(std::memory_order_acquire);
  if (state == kGrowthNone) state = GrowItself(entry);
  if (state == kGrowthClaimed) {
    // The consumer is mapping this region right now (a system call): wait for it, boundedly.
    const auto deadline = std::chrono::steady_clock::now() + kClaimPatience;
    while ((state = growth.state.load(std::memory_order_acquire)) == kGrowthClaimed &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  if (state != kGrowthOffered) return false;
  growth.start = producer_.head;
  producer_.data = growth.words;
  producer_.capacity_words = growth.capacity_words;
  producer_.mask = growth.capacity_words - 1;
  producer_.take = static_cast<uint8_t>((entry + 1) % kGrowthEntries);
  // The consumer learns of the move before it can see any event past it: this store comes
  // before the release store of the head that publishes one.
  growth.state.store(kGrowthTaken, std::memory_order_release);
  // Unread words before the move count against the new capacity: they are at most the old
  // capacity, so any event that fit the old region fits now.
  return producer_.head + words - producer_.cached_tail <= producer_.capacity_words;
}

uint8_t RingBuffer::GrowItself(size_t entry) {
  const size_t bytes = producer_.capacity_words * 8 * 2;
  if (bytes > growth_limit_ || bytes > kMaxBytes) return kGrowthNone;
  Growth& growth = growth_[entry];
  uint8_t state = kGrowthNone;
  if (!growth.state.compare_exchange_strong(state, kGrowthClaimed, std::memory_order_acq_rel)) {
    return state;  // the consumer got there first
  }
  // Offered to itself: TakeGrowth publishes it as taken.
  return MapClaimed(entry, bytes) ? kGrowthOffered : kGrowthNone;
}

bool RingBuffer::OfferGrowth(size_t max_bytes) {
  // A placed ring (storage_ empty) stays where its owner put it.
  if (!storage_ || (producer_.mode != Mode::kAlternate && producer_.mode != Mode::kBlocking)) {
    return false;
  }
  // Moves are taken, and followed, in entry order: the producer takes the first entry from
  // reader_.follow on that is not taken yet, and writes the region of the last one taken.
  size_t entry = reader_.follow;
  size_t current_bytes = read_capacity_bytes();
  for (size_t i = 0;; ++i) {
    if (i == kGrowthEntries) return false;  // every entry holds a move not yet followed
    if (growth_[entry].state.load(std::memory_order_acquire) != kGrowthTaken) break;
    current_bytes = growth_[entry].capacity_words * 8;
    entry = (entry + 1) % kGrowthEntries;
  }
  const size_t bytes = current_bytes * 2;
  if (bytes > max_bytes || bytes > kMaxBytes) return false;
  Growth& growth = growth_[entry];
  // Free (never used, or its move followed); one offer not yet taken at a time.
  uint8_t state = kGrowthNone;
  if (!growth.state.compare_exchange_strong(state, kGrowthClaimed, std::memory_order_acq_rel)) {
    return false;
  }
  if (!MapClaimed(entry, bytes)) return false;
  growth.state.store(kGrowthOffered, std::memory_order_release);
  return true;
}

bool RingBuffer::MapClaimed(size_t entry, size_t bytes) {
  Growth& growth = growth_[entry];
  offered_[entry] = AnonymousMemory::Map(bytes, AnonymousMemory::Touch::kOnUse);
  if (!offered_[entry]) {
    growth.state.store(kGrowthNone, std::memory_order_release);  // free again
    return false;
  }
  growth.words = offered_[entry].words();
  growth.capacity_words = bytes / 8;
  return true;
}

uint64_t RingBuffer::FollowGrowth(uint64_t end) {
  for (;;) {
    Growth& growth = growth_[reader_.follow];
    if (growth.state.load(std::memory_order_acquire) != kGrowthTaken) return end;
    // Every position before the move is published (the producer moves between events): the
    // consumer may read up to it, and no further until it has.
    if (producer_.control->consumer.read.load(std::memory_order_relaxed) < growth.start) {
      return growth.start;
    }
    // Everything before the move is read: the old region is the consumer's to free.
    reader_.words = growth.words;
    reader_.mask = growth.capacity_words - 1;
    ++reader_.growths;
    storage_ = std::move(offered_[reader_.follow]);
    growth.state.store(kGrowthNone, std::memory_order_release);
    reader_.follow = static_cast<uint8_t>((reader_.follow + 1) % kGrowthEntries);
  }
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
  const size_t index = position & reader_.mask;
  const size_t first = std::min<size_t>(words, reader_.mask + 1 - index);
  std::memcpy(target, reader_.words + index, first * 8);
  if (words > first) std::memcpy(target + first * 8, reader_.words, (words - first) * 8);
}

}  // namespace rastrace::buffer
