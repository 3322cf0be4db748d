#include "session/cpu_order.h"

#include <algorithm>

namespace rastrace::session {

void CpuOrder::Add(uint32_t cpu, std::span<const RawRecord> records) {
  for (const RawRecord& record : records) held_.push_back({record, cpu});
}

void CpuOrder::Release(uint64_t complete_up_to, const Consume& consume) {
  // Held events come first and each cpu's events are in its order: a stable sort keeps both.
  std::stable_sort(held_.begin(), held_.end(), [](const Entry& a, const Entry& b) {
    return a.record.timestamp < b.record.timestamp;
  });
  size_t keep_bytes = 0;
  size_t first_kept = held_.size();
  for (size_t i = held_.size(); i > 0; --i) {
    const Entry& entry = held_[i - 1];
    if (entry.record.timestamp <= complete_up_to) break;
    if (keep_bytes + entry.record.payload.size() > max_held_bytes_) break;
    keep_bytes += entry.record.payload.size();
    first_kept = i - 1;
  }
  for (size_t i = 0; i < first_kept; ++i) consume(held_[i].record, held_[i].cpu);
  // The kept payloads move to an arena of their own: the round's pages are reused.
  next_arena_.clear();
  next_arena_.reserve(keep_bytes);
  for (size_t i = first_kept; i < held_.size(); ++i) {
    const auto payload = held_[i].record.payload;
    next_arena_.insert(next_arena_.end(), payload.begin(), payload.end());
  }
  size_t at = 0;
  for (size_t i = first_kept; i < held_.size(); ++i) {
    const size_t size = held_[i].record.payload.size();
    held_[i].record.payload = std::span<const uint8_t>(next_arena_.data() + at, size);
    at += size;
  }
  held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(first_kept));
  arena_.swap(next_arena_);
}

void CpuOrder::ReleaseAll(const Consume& consume) {
  Release(UINT64_MAX, consume);
}

}  // namespace rastrace::session
