#include "session/cpu_order.h"

#include <algorithm>
#include <cstring>

namespace rastrace::session {

void CpuOrder::Add(uint32_t cpu, std::span<const RawRecord> records) {
  for (const RawRecord& record : records) {
    round_.push_back({record.timestamp, record.payload.data(),
                      static_cast<uint32_t>(record.payload.size()), cpu, kInPages});
    held_bytes_ += record.payload.size();
  }
}

void CpuOrder::Emit(const Entry& entry, const Consume& consume) {
  consume(RawRecord{entry.timestamp, std::span<const uint8_t>(entry.data, entry.size)}, entry.cpu);
  held_bytes_ -= entry.size;
  if (entry.chunk == kInPages) return;
  --chunks_[entry.chunk - first_chunk_].live;
  while (!chunks_.empty() && chunks_.front().live == 0) {
    chunks_.pop_front();
    ++first_chunk_;
  }
}

void CpuOrder::Release(uint64_t complete_up_to, const Consume& consume) {
  // Each cpu's events are in its order: a stable sort of the round interleaves them.
  std::stable_sort(round_.begin(), round_.end(),
                   [](const Entry& a, const Entry& b) { return a.timestamp < b.timestamp; });
  // Merge the round in behind what is held; usually it is all newer and is only appended. Held
  // events go first on ties: they were read first.
  size_t merged_from = held_.size();
  if (!round_.empty()) {
    const auto from = std::upper_bound(held_.begin() + static_cast<std::ptrdiff_t>(first_),
                                       held_.end(), round_.front().timestamp,
                                       [](uint64_t t, const Entry& e) { return t < e.timestamp; });
    merged_from = static_cast<size_t>(from - held_.begin());
    const size_t middle = held_.size();
    held_.insert(held_.end(), round_.begin(), round_.end());
    std::inplace_merge(held_.begin() + static_cast<std::ptrdiff_t>(merged_from),
                       held_.begin() + static_cast<std::ptrdiff_t>(middle), held_.end(),
                       [](const Entry& a, const Entry& b) { return a.timestamp < b.timestamp; });
    round_.clear();
  }
  while (first_ < held_.size() &&
         (held_[first_].timestamp <= complete_up_to || held_bytes_ > max_held_bytes_)) {
    Emit(held_[first_++], consume);
  }
  // What stays from this round is copied once: the round's pages are reused.
  size_t copy_bytes = 0;
  for (size_t i = std::max(first_, merged_from); i < held_.size(); ++i) {
    if (held_[i].chunk == kInPages) copy_bytes += held_[i].size;
  }
  if (copy_bytes != 0) {
    Chunk& chunk = chunks_.emplace_back();
    chunk.bytes.resize(copy_bytes);
    const uint64_t number = first_chunk_ + chunks_.size() - 1;
    size_t at = 0;
    for (size_t i = std::max(first_, merged_from); i < held_.size(); ++i) {
      Entry& entry = held_[i];
      if (entry.chunk != kInPages) continue;
      if (entry.size != 0) std::memcpy(chunk.bytes.data() + at, entry.data, entry.size);
      entry.data = chunk.bytes.data() + at;
      entry.chunk = number;
      at += entry.size;
      ++chunk.live;
    }
  }
  // Drop the released prefix once it is half the vector: each entry is moved O(1) times.
  if (first_ > held_.size() / 2) {
    held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
}

void CpuOrder::ReleaseAll(const Consume& consume) {
  Release(UINT64_MAX, consume);
}

}  // namespace rastrace::session
