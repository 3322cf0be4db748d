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
  // Regions of an earlier placement's source stay that source's (its owner unmaps them).
  ForgetRegions();
  reading_ = Region();
  reading_.words = placement.capacity_words ? placement.words : nullptr;
  reading_.bytes = placement.capacity_words * 8;
  producer_.data = reading_.words;
  producer_.mask = placement.capacity_words - 1;
  producer_.control = placement.control;
  hold_ = placement.hold_until_handed_back;
  source_ = placement.regions;
  Empty(mode);
}

void RingBuffer::Reset(size_t capacity_bytes, Mode mode) {
  const size_t bytes = std::bit_ceil(std::clamp(capacity_bytes, kMinBytes, kMaxBytes));
  ForgetRegions();
  if (!reading_.memory || reading_.bytes != bytes) {
    reading_ = Region();  // the old region goes before the new one is mapped
    // Touched now, so that page faults stay off the hot path.
    reading_.memory = AnonymousMemory::Map(bytes, AnonymousMemory::Touch::kNow);
    reading_.words = reading_.memory.words();
    reading_.bytes = reading_.memory.bytes();
  }
  const size_t words = reading_.bytes / 8;
  producer_.data = reading_.words;
  producer_.mask = words ? words - 1 : 0;
  producer_.control = &own_control_;
  hold_ = false;
  source_ = nullptr;
  Empty(mode);
}

void RingBuffer::ForgetRegions() {
  for (Region& region : offered_) region = Region();
  for (Region& region : retired_) region = Region();
  retired_count_ = 0;
}

void RingBuffer::Free(Region& region) {
  if (!region.memory && region.words != nullptr && source_ != nullptr) {
    source_->ReleaseRegion(region.words, region.bytes);
  }
  region = Region();
}

void RingBuffer::Empty(Mode mode) {
  cold_.mode = mode;
  producer_.head = 0;
  producer_.events = 0;
  cold_.cached_tail = 0;
  cold_.tail_events = 0;
  cold_.next_block = CircularBlockWords(capacity_words());
  cold_.first_block = 0;
  cold_.block_count = 0;
  producer_.cpu = kSlowOnly;
  cold_.named_cpu = kNoCpu;
  cold_.take = 0;
  cold_.dropping = false;
  grows_ = (reading_.memory || source_ != nullptr) &&
           (mode == Mode::kAlternate || mode == Mode::kBlocking);
  reader_.words = producer_.data;
  reader_.mask = producer_.mask;
  reader_.growths = 0;
  reader_.follow = 0;
  outran_growth_.store(false, std::memory_order_relaxed);
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
  RefreshLimit();
}

bool RingBuffer::MakeRoom(size_t words) {
  const bool room = MakeRoomFor(words);
  RefreshLimit();
  return room;
}

bool RingBuffer::MakeRoomFor(size_t words) {
  const uint64_t head = producer_.head;
  const uint64_t capacity = capacity_words();
  RingControl& control = *producer_.control;
  cold_.cached_tail = control.consumer.tail.load(std::memory_order_acquire);
  if (head + words - cold_.cached_tail <= capacity) return true;
  if (words > capacity) {
    CountLost();
    return false;
  }
  switch (cold_.mode) {
    case Mode::kAlternate:
      if (TakeGrowth(words)) return true;
      CountLost();
      // Nothing to grow into (at the limit, or refused) and nothing on offer: until the consumer
      // frees room or offers a region, the next events drop inline.
      cold_.dropping = NothingToTake();
      return false;
    case Mode::kBlocking: {
      if (TakeGrowth(words)) return true;
      // Wait for the writer; give up only when it has made no progress for a long time (it
      // stopped, or the process is stopping), so the wait is bounded and the loss still counted.
      auto last_progress = std::chrono::steady_clock::now();
      for (uint64_t seen = cold_.cached_tail;;) {
        std::this_thread::yield();
        cold_.cached_tail = control.consumer.tail.load(std::memory_order_acquire);
        if (head + words - cold_.cached_tail <= capacity) return true;
        const auto now = std::chrono::steady_clock::now();
        if (cold_.cached_tail != seen) {
          seen = cold_.cached_tail;
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
    case Mode::kCircular:
      OverwriteOldest(words);
      return true;
  }
  return false;
}

void RingBuffer::NoteBlockStart() {
  const uint64_t block = CircularBlockWords(capacity_words());
  if (block == 0) {  // no storage
    cold_.next_block = UINT64_MAX;
    return;
  }
  if (cold_.block_count == kBlockStarts) {  // cannot happen with 8 blocks a ring; keep the newest
    cold_.first_block = static_cast<uint8_t>((cold_.first_block + 1) % kBlockStarts);
    --cold_.block_count;
  }
  cold_.blocks[(cold_.first_block + cold_.block_count) % kBlockStarts] = {producer_.head,
                                                                          producer_.events};
  ++cold_.block_count;
  cold_.next_block = (producer_.head / block + 1) * block;
}

void RingBuffer::OverwriteOldest(size_t words) {
  // Overwrite the oldest block of whole events at once (a sub-buffer, as LTTng's overwrite mode
  // discards), not just enough for this event: the hooks that follow then find room on their
  // fast path again. The block starts the producer noted say where an event begins and how many
  // traced events came before it, so the number overwritten is exact without reading the old
  // events (a walk over their sizes was a fifth of a hook's time in this mode).
  const uint64_t head = producer_.head;
  const uint64_t need = head + words - capacity_words();  // the tail must reach it
  uint64_t tail = cold_.cached_tail;
  uint64_t tail_events = cold_.tail_events;
  while (cold_.block_count != 0 && tail < need) {
    const BlockStart start = cold_.blocks[cold_.first_block];
    cold_.first_block = static_cast<uint8_t>((cold_.first_block + 1) % kBlockStarts);
    --cold_.block_count;
    if (start.position <= tail) continue;
    tail = start.position;
    tail_events = start.events;
  }
  if (tail < need) {
    // No block start far enough (an event longer than a block): walk the old events' sizes.
    const uint64_t* const data = producer_.data;
    const uint64_t mask = producer_.mask;
    while (tail < need) {
      const uint64_t hookword = data[tail & mask];
      tail += EventWords(hookword);
      if (hookword != kCpuMarkerHookword) ++tail_events;
    }
    // A corrupt size cannot carry the tail past the head: clamp, so the ring stays usable.
    if (tail > head) tail = head;
  }
  RingControl& control = *producer_.control;
  control.shared.lost.store(
      control.shared.lost.load(std::memory_order_relaxed) + (tail_events - cold_.tail_events),
      std::memory_order_relaxed);
  cold_.cached_tail = tail;
  cold_.tail_events = tail_events;
  // Both positions move before any word is overwritten, so a reader (or a recovery after a
  // crash) never takes an event that is being overwritten.
  control.consumer.read.store(tail, std::memory_order_release);
  control.consumer.tail.store(tail, std::memory_order_release);
}

bool RingBuffer::TakeGrowth(size_t words) {
  if (!grows_) return false;
  const size_t entry = cold_.take;
  Growth& growth = growth_[entry];
  uint8_t state = growth.state.load(std::memory_order_acquire);
  if (state == kGrowthNone) state = GrowItself(entry);
  if (state == kGrowthClaimed || state == kGrowthPreparing) {
    state = AwaitGrowth(growth, words);
    if (state == kGrowthRoom) return true;
    // A preparation that could not have its memory: try once more here (said once, counted).
    if (state == kGrowthNone) state = GrowItself(entry);
  }
  if (state != kGrowthOffered) return false;
  growth.start = producer_.head;
  if (source_ != nullptr) source_->RegionTaken(growth.words, growth.start);
  producer_.data = growth.words;
  producer_.mask = growth.capacity_words - 1;
  cold_.take = static_cast<uint8_t>((entry + 1) % kGrowthEntries);
  // The consumer learns of the move before it can see any event past it: this store comes
  // before the release store of the head that publishes one.
  growth.state.store(kGrowthTaken, std::memory_order_release);
  // Unread words before the move count against the new capacity: they are at most the old
  // capacity, so any event that fit the old region fits now.
  RefreshLimit();
  return FitsCached(words);
}

uint8_t RingBuffer::GrowItself(size_t entry) {
  const size_t bytes = capacity_words() * 8 * 2;
  if (bytes > growth_limit_ || bytes > kMaxBytes) return kGrowthNone;
  Growth& growth = growth_[entry];
  uint8_t state = kGrowthNone;
  if (!growth.state.compare_exchange_strong(state, kGrowthClaimed, std::memory_order_acq_rel)) {
    return state;  // the consumer got there first
  }
  // Nothing was on offer when the producer needed it: it outruns the consumer's offers.
  outran_growth_.store(true, std::memory_order_relaxed);
  // Offered to itself: TakeGrowth publishes it as taken. Its pages are faulted in here, at once:
  // left to the stores, each of the hooks that first touch one of them would take a page fault
  // (2-3 us here), a couple of thousand hooks for an 8 MiB region, which is the p99.9 of single
  // hooks; here it is one hook that waits (docs/performance.md, "Ring growth: the next size, the
  // wait, the drop").
  if (!MapClaimed(entry, bytes)) return kGrowthNone;
  PopulateForWriting(offered_[entry].words, bytes);
  return kGrowthOffered;
}

uint8_t RingBuffer::AwaitGrowth(Growth& growth, size_t words) {
  // The other side is in system calls for this region (mapping it, or reserving and populating
  // its memory a piece at a time): wait while it gets on, or until the writer hands back enough
  // room here. Only a wait without either for kClaimPatience costs the event.
  outran_growth_.store(true, std::memory_order_relaxed);
  const RingControl::Consumer& consumer = producer_.control->consumer;
  uint64_t seen_prepared = growth.prepared.load(std::memory_order_relaxed);
  uint64_t seen_tail = cold_.cached_tail;
  const auto began = std::chrono::steady_clock::now();
  auto deadline = began + kClaimPatience;
  for (auto now = began;;) {
    // Yields while the wait is short (the writer handing back room, a region being mapped: a
    // sleep would stretch those to the timer's granularity, and the p99.9 of single hooks with
    // it); past kAwaitSpin it sleeps, so that on a machine with few CPUs the waiting thread
    // leaves its CPU to the preparer and the writer, whose page work is what it waits for.
    if (now - began < kAwaitSpin) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kAwaitSleep);
    }
    const uint8_t state = growth.state.load(std::memory_order_acquire);
    if (state != kGrowthClaimed && state != kGrowthPreparing) return state;
    cold_.cached_tail = consumer.tail.load(std::memory_order_acquire);
    if (FitsCached(words)) return kGrowthRoom;
    const uint64_t prepared = growth.prepared.load(std::memory_order_relaxed);
    now = std::chrono::steady_clock::now();
    if (prepared != seen_prepared || cold_.cached_tail != seen_tail) {
      seen_prepared = prepared;
      seen_tail = cold_.cached_tail;
      deadline = now + kClaimPatience;
    } else if (now >= deadline) {
      return state;
    }
  }
}

std::pair<size_t, size_t> RingBuffer::ClaimNextGrowth(size_t max_bytes) {
  // Circular and single rings keep their size; so does a placed ring without a RegionSource.
  if (!grows_) return {kNoEntry, 0};
  // Moves are taken, and followed, in entry order: the producer takes the first entry from
  // reader_.follow on that is not taken yet, and writes the region of the last one taken.
  size_t entry = reader_.follow;
  size_t current_bytes = read_capacity_bytes();
  for (size_t i = 0;; ++i) {
    if (i == kGrowthEntries) return {kNoEntry, 0};  // every entry holds a move not yet followed
    if (growth_[entry].state.load(std::memory_order_acquire) != kGrowthTaken) break;
    current_bytes = growth_[entry].capacity_words * 8;
    entry = (entry + 1) % kGrowthEntries;
  }
  size_t bytes = current_bytes * 2;
  if (bytes > max_bytes || bytes > kMaxBytes) return {kNoEntry, 0};
  const bool outran = outran_growth_.load(std::memory_order_relaxed);
  if (outran) {
    while (bytes * 2 <= max_bytes && bytes * 2 <= kMaxBytes) bytes *= 2;
  }
  // Free (never used, or its move followed); one offer not yet taken (or being prepared) at a
  // time, and the producer may be mapping it itself.
  uint8_t state = kGrowthNone;
  if (!growth_[entry].state.compare_exchange_strong(state, kGrowthClaimed,
                                                    std::memory_order_acq_rel)) {
    return {kNoEntry, 0};
  }
  if (outran) outran_growth_.store(false, std::memory_order_relaxed);
  return {entry, bytes};
}

size_t RingBuffer::BeginGrowth(size_t max_bytes) {
  const auto [entry, bytes] = ClaimNextGrowth(max_bytes);
  if (entry == kNoEntry || !MapClaimed(entry, bytes, /*reserve_later=*/true)) return kNoEntry;
  Growth& growth = growth_[entry];
  growth.prepared.store(0, std::memory_order_relaxed);
  growth.state.store(kGrowthPreparing, std::memory_order_release);
  return entry;
}

void RingBuffer::PrepareGrowth(size_t entry, const std::atomic<bool>* cancel) {
  // While the entry is being prepared only this thread touches offered_[entry]: the consumer
  // passes over it and the producer waits.
  Growth& growth = growth_[entry];
  Region& region = offered_[entry];
  for (size_t done = 0; done < region.bytes; done += kPrepareStepBytes) {
    const size_t step = std::min(kPrepareStepBytes, region.bytes - done);
    if ((cancel != nullptr && cancel->load(std::memory_order_relaxed)) ||
        (source_ != nullptr && !source_->ReserveRegion(region.words, done, step))) {
      CancelGrowth(entry);
      return;
    }
    PopulateForWriting(reinterpret_cast<uint8_t*>(region.words) + done, step);
    growth.prepared.store(done + step, std::memory_order_relaxed);
  }
  growth.state.store(kGrowthOffered, std::memory_order_release);
}

void RingBuffer::CancelGrowth(size_t entry) {
  Free(offered_[entry]);
  growth_[entry].words = nullptr;
  growth_[entry].capacity_words = 0;
  growth_[entry].state.store(kGrowthNone, std::memory_order_release);
}

bool RingBuffer::growth_being_prepared() const {
  return std::any_of(growth_.begin(), growth_.end(), [](const Growth& growth) {
    return growth.state.load(std::memory_order_acquire) == kGrowthPreparing;
  });
}

bool RingBuffer::OfferGrowth(size_t max_bytes) {
  const auto [entry, bytes] = ClaimNextGrowth(max_bytes);
  if (entry == kNoEntry || !MapClaimed(entry, bytes)) return false;
  growth_[entry].state.store(kGrowthOffered, std::memory_order_release);
  return true;
}

bool RingBuffer::MapClaimed(size_t entry, size_t bytes, bool reserve_later) {
  Growth& growth = growth_[entry];
  Region& region = offered_[entry];
  region = Region();
  if (source_ != nullptr) {
    region.words = reserve_later ? source_->MapRegionToReserve(bytes) : source_->MapRegion(bytes);
  } else {
    region.memory = AnonymousMemory::Map(bytes, AnonymousMemory::Touch::kOnUse);
    region.words = region.memory.words();
  }
  if (region.words == nullptr) {
    growth.state.store(kGrowthNone, std::memory_order_release);  // free again
    return false;
  }
  region.bytes = bytes;
  growth.words = region.words;
  growth.capacity_words = bytes / 8;
  return true;
}

uint64_t RingBuffer::FollowGrowth(uint64_t end) {
  for (;;) {
    Growth& growth = growth_[reader_.follow];
    if (growth.state.load(std::memory_order_acquire) != kGrowthTaken) return end;
    RingControl::Consumer& consumer = producer_.control->consumer;
    // Every position before the move is published (the producer moves between events): the
    // consumer may read up to it, and no further until it has.
    if (consumer.read.load(std::memory_order_relaxed) < growth.start) return growth.start;
    // Everything before the move is read: the old region is the consumer's to free, at once, or
    // (while released space is held) once every position in it is handed back.
    if (hold_ && consumer.tail.load(std::memory_order_relaxed) < growth.start) {
      if (retired_count_ == kRetiredRegions) return growth.start;  // waits for a HandBack
      reading_.end = growth.start;
      retired_[retired_count_++] = std::move(reading_);
    } else {
      Free(reading_);
    }
    reading_ = std::move(offered_[reader_.follow]);
    reader_.words = growth.words;
    reader_.mask = growth.capacity_words - 1;
    ++reader_.growths;
    growth.state.store(kGrowthNone, std::memory_order_release);
    reader_.follow = static_cast<uint8_t>((reader_.follow + 1) % kGrowthEntries);
  }
}

void RingBuffer::HandBack(uint64_t position) {
  producer_.control->consumer.tail.store(position, std::memory_order_release);
  size_t freed = 0;
  while (freed < retired_count_ && retired_[freed].end <= position) Free(retired_[freed++]);
  if (freed == 0) return;
  std::move(retired_.begin() + static_cast<ptrdiff_t>(freed),
            retired_.begin() + static_cast<ptrdiff_t>(retired_count_), retired_.begin());
  retired_count_ -= freed;
}

bool RingBuffer::ReserveIfRoom(size_t words, uint64_t* position) {
  if (!FitsCached(words)) {
    cold_.cached_tail = producer_.control->consumer.tail.load(std::memory_order_acquire);
    RefreshLimit();
    if (!FitsCached(words) && (cold_.mode != Mode::kCircular || !MakeRoom(words))) {
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
  const size_t first = std::min<size_t>(whole, capacity_words() - index);
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
