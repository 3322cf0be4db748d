// Puts the events of the kernel's per-cpu buffers in one timestamp order across read rounds.
//
// A round reads the cpus one after another, and each only up to its page limit, so an event a
// cpu committed after its turn (or beyond the limit) comes in a later round, behind newer events
// of other cpus. Written as read, the kernel log would then have, say, a FORK after the child's
// EXEC, and the report would name the exec'd process by its parent's executable from there on.
// So an event is handed on only once every cpu is known complete up to its timestamp; newer ones
// wait for the next round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include "session/raw_events.h"

namespace rastrace::session {

class CpuOrder {
 public:
  using Consume = std::function<void(const RawRecord& record, uint32_t cpu)>;

  // Events held back beyond `max_held_bytes` of payload are handed on anyway, oldest first, so a
  // cpu that never catches up cannot make the daemon grow without bound.
  explicit CpuOrder(size_t max_held_bytes = size_t{64} << 20) : max_held_bytes_(max_held_bytes) {}

  // One cpu's events of this round, in that cpu's order. The payloads need to live only until
  // the next Release (the ones held longer are copied).
  void Add(uint32_t cpu, std::span<const RawRecord> records);

  // Hands on, in timestamp order (ties in the order added), every event at or before
  // `complete_up_to` (no cpu can still produce an earlier one) and holds back the others.
  void Release(uint64_t complete_up_to, const Consume& consume);
  // Hands on everything (the buffers have been read to their end).
  void ReleaseAll(const Consume& consume);

  size_t held() const { return held_.size() - first_; }

 private:
  static constexpr uint64_t kInPages = UINT64_MAX;  // not copied yet: in the round's pages
  struct Entry {
    uint64_t timestamp;
    const uint8_t* data;
    uint32_t size;
    uint32_t cpu;
    uint64_t chunk;  // the copy's chunk, or kInPages
  };
  struct Chunk {
    std::vector<uint8_t> bytes;
    size_t live = 0;  // entries still held in it
  };
  void Emit(const Entry& entry, const Consume& consume);

  // Sorted by timestamp (ties in the order added) from index first_; what is before is released.
  // Each round's events are merged in, and the ones held longer copied once, so a round costs
  // what it adds, not what is held.
  std::vector<Entry> held_;
  size_t first_ = 0;
  std::vector<Entry> round_;
  std::deque<Chunk> chunks_;
  uint64_t first_chunk_ = 0;  // the number of chunks_.front()
  size_t held_bytes_ = 0;
  size_t max_held_bytes_;
};

}  // namespace rastrace::session
