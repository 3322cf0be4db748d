#include "recorder/checkpoints.h"

#include <algorithm>

namespace rastrace::recorder {

void Checkpoints::Note(std::span<ThreadSlot* const> slots, const LogSink& sink,
                       Clock::time_point now) {
  const uint64_t log_bytes = sink.bytes();
  const uint64_t rotations = sink.rotations();
  Noted* noted = nullptr;
  if (count_ != 0 && (count_ == kNoted || (noted_[count_ - 1].log_bytes == log_bytes &&
                                           noted_[count_ - 1].rotations == rotations))) {
    // All taken, or nothing written since the last: this round replaces the last noted one, under
    // its tag and with its time (the age of the oldest bytes waiting).
    noted = &noted_[count_ - 1];
  } else {
    noted = &noted_[count_++];
    noted->tag = next_tag_++;
    noted->when = now;
  }
  noted->log_bytes = log_bytes;
  noted->rotations = rotations;
  for (ThreadSlot* slot : slots) {
    if (!slot->shm) continue;
    slot->marks[noted->tag % kNoted] = {noted->tag, slot->ring.tail(), slot->lost_reported,
                                        slot->lost_by_writer};
  }
}

void Checkpoints::Publish(std::span<ThreadSlot* const> slots, const Noted& noted) {
  const uint64_t seq = process_.next_checkpoint();
  for (ThreadSlot* slot : slots) {
    const ThreadSlot::CheckpointMark& mark = slot->marks[noted.tag % kNoted];
    if (!slot->shm || mark.tag != noted.tag) continue;
    slot->shm->WriteCheckpoint({seq, mark.read, mark.lost_reported, mark.lost_by_writer});
  }
  process_.PublishCheckpoint(seq, noted.log_bytes);
  // Only now may the producers reuse the space: a recovery from this checkpoint reads each ring
  // from its mark on.
  for (ThreadSlot* slot : slots) {
    const ThreadSlot::CheckpointMark& mark = slot->marks[noted.tag % kNoted];
    if (!slot->shm || mark.tag != noted.tag) continue;
    slot->ring.HandBack(mark.read);
    slot->checkpointed_read = mark.read;
    slot->checkpointed_lost = mark.lost_reported;
  }
  ++published_;
}

void Checkpoints::AfterRound(std::span<ThreadSlot* const> slots, LogSink& sink, bool idle,
                             Clock::time_point now) {
  if (sink.stopped() || sink.error()) return;
  Note(slots, sink, now);
  // Rounds of an older file (the log rotated since) can no longer be published.
  const uint64_t rotations = sink.rotations();
  size_t first = 0;
  while (first < count_ && noted_[first].rotations != rotations) ++first;
  // The newest round's bytes wait in the chunk being filled: write them out when nothing more is
  // coming to fill it, or when they have waited long enough.
  const Noted& newest = noted_[count_ - 1];
  if (first < count_ && newest.log_bytes > sink.bytes_on_the_way() &&
      (idle || now - noted_[first].when >= kMaxWait) && newest.log_bytes > sink.bytes_in_file()) {
    if (!sink.FlushToFile()) return;
  }
  const uint64_t in_file = sink.bytes_in_file();
  size_t last = count_;  // the newest round the file holds
  for (size_t i = first; i < count_; ++i) {
    if (noted_[i].log_bytes <= in_file) last = i;
  }
  if (last != count_) {
    Publish(slots, noted_[last]);
    first = last + 1;
  }
  std::move(noted_.begin() + static_cast<ptrdiff_t>(first),
            noted_.begin() + static_cast<ptrdiff_t>(count_), noted_.begin());
  count_ -= first;
}

}  // namespace rastrace::recorder
