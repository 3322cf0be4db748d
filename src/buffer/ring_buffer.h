// A per-thread single-producer single-consumer ring of encoded 64-bit-layout events, held as native
// 8-byte words exactly as they go to the log, so draining only copies bytes.
//
// The producer (the owning thread) never locks, allocates or calls the kernel: it compares its
// position with a cached copy of the consumer's, stores the words and publishes its position with
// a release store. The consumer (the writer thread) acquires that position, copies the events and
// hands the space back with a release store of its own position.
//
// What happens when an event does not fit depends on the mode (as AIX trace):
//  - alternate: the event is dropped and counted; the writer drains the ring while tracing runs;
//  - circular:  the oldest whole events are overwritten and counted, a block (an eighth of the
//               ring, at most 1 MiB) at a time; the ring is drained once, after the producer
//               has stopped;
//  - single:    the event is dropped and counted and the ring reports itself full, which ends
//               tracing; the ring is drained once, after the producer has stopped;
//  - blocking:  alternate, except that the producer waits (yielding) for the writer to make room;
//               only a writer that makes no progress for kBlockingPatience drops (and counts) it,
//               so a stopped writer can never hang the program.
// Every event that is dropped or overwritten is counted in lost(): nothing is lost silently.
//
// Growth (alternate and blocking modes, own storage only, up to set_growth_limit): a producer that
// finds the ring full moves, between two events, to a region twice the size instead of dropping
// or waiting. The consumer offers that region ahead of time (OfferGrowth); when none is offered
// (the consumer is held up) the producer maps it itself, a system call on the overload path only.
// Positions keep counting, so the events before the move stay where they are and the consumer
// reads them first, then follows the producer and frees the old region. A region takes memory
// only as the producer writes to it. A writer held off its CPU, or held up by the disk, thus
// costs memory instead of events, up to the limit.
//
// Placement: the words and the published positions (RingControl) live in the ring object's own
// memory, or in a file-backed shared mapping (buffer/shm_ring.h) so that what a crashed process
// committed can be recovered from the file. A placed ring may hold released space until the
// writer says the log has it (HandBack), so a crash never loses events that were drained but not
// yet written.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "buffer/anonymous_memory.h"
#include "buffer/event_words.h"

namespace rastrace::buffer {

enum class Mode : uint8_t { kAlternate = 0, kCircular = 1, kSingle = 2, kBlocking = 3 };

inline constexpr size_t kCacheLine = 64;

// The positions the two sides publish, as laid out in memory (and in a shared mapping).
struct RingControl {
  // Written by the producer, read by the consumer: kept off the producer's private line so a
  // consumer read does not take that line away from the producer.
  struct alignas(kCacheLine) Shared {
    std::atomic<uint64_t> head{0};  // every word before head is a committed event
    std::atomic<uint64_t> lost{0};
    std::atomic<bool> full{false};
  };
  struct alignas(kCacheLine) Consumer {
    // Space before tail is free for the producer. In circular mode the producer moves it while
    // overwriting.
    std::atomic<uint64_t> tail{0};
    // Where the consumer reads next: tail, or ahead of it while released space is held.
    std::atomic<uint64_t> read{0};
  };
  Shared shared;
  Consumer consumer;
};

// Where a placed ring's grown regions come from (a flight-recorder file, buffer/shm_ring.h), so
// that they are recoverable too. Called from either side, on cold paths only: the side that
// claimed a growth entry maps its region; the producer says where it moved; the consumer releases
// a region once it has handed back every position in it.
class RegionSource {
 public:
  // `bytes` of zeroed memory, twice the size of the last region; nullptr when it cannot be had.
  virtual uint64_t* MapRegion(size_t bytes) = 0;
  // The same, with its memory reserved later, piece by piece, by ReserveRegion (off the writer's
  // drain: RingBuffer::PrepareGrowth); nothing is stored there before. A source that cannot defer
  // reserves it now.
  virtual uint64_t* MapRegionToReserve(size_t bytes) { return MapRegion(bytes); }
  // Reserves bytes [offset, offset + bytes) of a region MapRegionToReserve supplied; false when
  // they cannot be had (the region is then released, never offered).
  virtual bool ReserveRegion(uint64_t* /*words*/, size_t /*offset*/, size_t /*bytes*/) {
    return true;
  }
  // The producer moves into `words` at position `start`, before it publishes any event there.
  virtual void RegionTaken(const uint64_t* words, uint64_t start) = 0;
  // Nothing in the region (the placement's own words, or a grown one) is needed any more.
  virtual void ReleaseRegion(uint64_t* words, size_t bytes) = 0;

 protected:
  ~RegionSource() = default;
};

// Storage supplied by the caller: `words` (a power of two, at least kMinBytes / 8) and a control
// block, both outliving the ring.
struct RingPlacement {
  uint64_t* words = nullptr;
  size_t capacity_words = 0;
  RingControl* control = nullptr;
  // Release keeps the space until HandBack (the log has the events).
  bool hold_until_handed_back = false;
  // Where the ring grows (alternate and blocking modes); nullptr: it keeps its size. Regions it
  // supplied stay its own: the ring never unmaps them except through ReleaseRegion.
  RegionSource* regions = nullptr;
};

// The consumer's view of the words it reads: word p of the ring is words[p & mask].
struct RingRegion {
  const uint64_t* words = nullptr;
  uint64_t mask = 0;
  size_t capacity_words() const { return words ? mask + 1 : 0; }
};

class RingBuffer {
 public:
  static constexpr size_t kMinBytes = 4096;
  static constexpr size_t kMaxBytes = size_t{1} << 34;
  // Blocking mode: how long a producer waits for a writer that makes no progress.
  static constexpr std::chrono::milliseconds kBlockingPatience{500};
  // Circular mode overwrites the oldest events a block at a time: an eighth of the ring (so that at
  // stop it still holds at least seven eighths of its size of the newest events), at most
  // kCircularBlockMaxBytes. The hook that crosses a block boundary takes the slow path (it notes
  // the block start and overwrites the oldest block): with 64 KiB blocks that was one 64-byte hook
  // in 1024, much of the p99.9 of single hooks (docs/performance.md, "The hook end to end");
  // with a 4 MiB ring's 512 KiB blocks it is one in 8192, with 1 MiB blocks one in 16384.
  static constexpr size_t kCircularBlockMaxBytes = size_t{1} << 20;
  static constexpr size_t CircularBlockWords(size_t capacity_words) {
    return std::min<size_t>(capacity_words / 8, kCircularBlockMaxBytes / 8);
  }

  // `capacity_bytes` is clamped to [kMinBytes, kMaxBytes] and rounded up to a power of two. The
  // memory is allocated and touched here, so the first events do not take page faults. Should the
  // kernel refuse the memory, the ring has no room and every event is counted lost.
  RingBuffer(size_t capacity_bytes, Mode mode, uint64_t thread_id);
  // A ring in caller-supplied storage (a shared mapping), emptied.
  RingBuffer(const RingPlacement& placement, Mode mode, uint64_t thread_id);
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  // ---- Producer side: the owning thread only.

  // Reserves `words` words for one event at *position. False when the event does not fit in this
  // mode; the event is then counted as lost.
  bool Reserve(size_t words, uint64_t* position) {
    if (!FitsContiguous(words)) [[unlikely]] {
      if (cold_.dropping && DropsAgain(words)) return false;
      RefreshLimit();
      if (!FitsCached(words) && !MakeRoom(words)) return false;
    }
    *position = producer_.head;
    return true;
  }
  // True when `words` fit before the consumer position last seen (across the wrap).
  bool FitsCached(size_t words) const {
    return producer_.head + words - cold_.cached_tail <= capacity_words();
  }
  // The hooks' fast path: true when `words` fit before the consumer position last seen AND before
  // the end of the storage, so the event's words are data()[position() & mask()] onwards, without
  // a wrap. One compare against a bound the cold paths keep (RefreshLimit): when it says no, the
  // caller takes the slow path (Reserve, masked stores, RefreshLimit).
  bool FitsContiguous(size_t words) const { return producer_.head + words <= producer_.limit; }
  // Recomputes the bound FitsContiguous compares with, after the head, the cached consumer
  // position or the storage changed on a slow path (a stale bound is only ever too low). In
  // circular mode the bound also stops at the next block boundary, so that the slow path notes
  // where the first event after it starts (the block starts the overwrite moves the tail to).
  void RefreshLimit() {
    const uint64_t capacity = capacity_words();
    producer_.limit =
        std::min(cold_.cached_tail + capacity, (producer_.head & ~producer_.mask) + capacity);
    if (cold_.mode == Mode::kCircular) [[unlikely]] {
      if (producer_.head >= cold_.next_block) NoteBlockStart();
      producer_.limit = std::min(producer_.limit, cold_.next_block);
    }
  }
  // Cold path of Reserve: refresh the cached tail, then drop, stop or overwrite as the mode says.
  bool MakeRoom(size_t words);
  // While the producer outruns the consumer in alternate mode with no region to grow into, each
  // event is dropped here, inline: one load of the consumer's position and of the next growth
  // entry, and the count. A drop through MakeRoom costs a chain of calls, and at a rate the log
  // cannot take most events go this way (docs/performance.md, "Ring growth: the next size, the
  // wait, the drop"). False (and the streak over) when there is room again or a region on offer:
  // Reserve then goes on as usual.
  bool dropping() const { return cold_.dropping; }
  bool DropsAgain(size_t words) {
    cold_.cached_tail = producer_.control->consumer.tail.load(std::memory_order_acquire);
    if (FitsCached(words) || !NothingToTake()) {
      cold_.dropping = false;
      return false;
    }
    CountLost();
    return true;
  }
  // Reserve for an event that may wait (a CPU marker): where Reserve would drop, stop or block,
  // this returns false and counts nothing; in circular mode it overwrites as Reserve does.
  bool ReserveIfRoom(size_t words, uint64_t* position);
  // Where the next event starts, and the producer's storage: for hot paths that store words
  // themselves (word i of the event at data()[(position + i) & mask]) and then Publish.
  uint64_t position() const { return producer_.head; }
  uint64_t* data() const { return producer_.data; }
  uint64_t mask() const { return producer_.mask; }
  void Put(uint64_t position, uint64_t word) { producer_.data[position & producer_.mask] = word; }
  // Stores `length` bytes from `position` on, the last word zero-padded.
  void PutBytes(uint64_t position, const void* bytes, size_t length);
  // Makes every word before `end` visible to the consumer: one traced event ends there.
  void Publish(uint64_t end) {
    producer_.head = end;
    ++producer_.events;
    producer_.control->shared.head.store(end, std::memory_order_release);
  }
  // The same for a CPU marker (00A/108), which is not a traced event: not counted.
  void PublishMarker(uint64_t end) {
    producer_.head = end;
    producer_.control->shared.head.store(end, std::memory_order_release);
  }
  // Counts one event the caller could not even try to store (for example longer than the ring).
  void CountLost() {
    std::atomic<uint64_t>& lost = producer_.control->shared.lost;
    lost.store(lost.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // ---- Consumer side.

  // Every word before it is a committed event the consumer may read. After the producer moved to
  // a grown region, this stops at the move until the consumer has released everything before it;
  // from then on it follows the producer (and frees the old region).
  uint64_t head() {
    const uint64_t end = producer_.control->shared.head.load(std::memory_order_acquire);
    if (growth_[reader_.follow].state.load(std::memory_order_acquire) == kGrowthTaken)
        [[unlikely]] {
      return FollowGrowth(end);
    }
    return end;
  }
  // The producer's published head, past a move into a grown region that head() stops at.
  uint64_t published_head() const {
    return producer_.control->shared.head.load(std::memory_order_acquire);
  }
  // Where the consumer reads next.
  uint64_t tail() const { return producer_.control->consumer.read.load(std::memory_order_acquire); }
  // The words the consumer reads, for positions from tail() to head().
  RingRegion read_region() const { return {reader_.words, reader_.mask}; }
  uint64_t WordAt(uint64_t position) const { return reader_.words[position & reader_.mask]; }
  // Copies `words` words from `position` to `out` (8 * words bytes), across the wrap.
  void CopyOut(uint64_t position, size_t words, void* out) const;
  // The consumer is done with the words before `position`: they go back to the producer, or, in
  // a ring that holds released space, at the next HandBack.
  void Release(uint64_t position) {
    producer_.control->consumer.read.store(position, std::memory_order_release);
    if (!hold_) producer_.control->consumer.tail.store(position, std::memory_order_release);
  }
  // Hands every released word back to the producer (the log now holds those events).
  void HandBack() { HandBack(producer_.control->consumer.read.load(std::memory_order_relaxed)); }
  // The same up to `position` (at most the consumer's position): the log holds the events before
  // it. Regions the consumer has left whose positions are all handed back are released.
  void HandBack(uint64_t position);
  bool holds_released_space() const { return hold_; }

  // Offers the producer a region twice the size of the one it writes (as large as `max_bytes`
  // allows, when the producer had to wait for the last region offered: a burst that outruns
  // the preparation of each doubling would otherwise pay for the pages of every size on the
  // way, 120 MiB from 4 to 64 MiB instead of 72), unless one is already
  // offered and not taken, kGrowthEntries moves are not yet followed, the doubled size would pass
  // `max_bytes`, the mode does not grow (circular, single) or the ring lives in caller-supplied
  // storage. True when it offered one. The next size may be offered as soon as the producer took
  // the last one, before the consumer has followed it.
  bool OfferGrowth(size_t max_bytes);
  // OfferGrowth in two steps, so that the slow part (the region's memory reserved and its pages
  // faulted in: 3 us per 4 KiB page of tmpfs here) runs on a thread of its own instead of in the
  // writer's rounds, which then keep draining while a burst fills the ring (docs/recorder.md,
  // "Ring growth"). BeginGrowth (consumer) maps the next region and marks it being prepared;
  // it returns the entry, or kNoEntry when OfferGrowth would not offer one (or one is being
  // prepared already). PrepareGrowth (any one thread, once per entry BeginGrowth returned)
  // reserves and populates it a piece at a time and then offers it; should its memory not be
  // had, the region is released and nothing is offered. A producer that needs the region
  // meanwhile waits while the preparation gets on (or the writer frees room): it drops an event
  // only when neither happens for kClaimPatience. The ring must outlive the preparation:
  // growth_being_prepared() says whether one is under way.
  static constexpr size_t kNoEntry = ~size_t{0};
  size_t BeginGrowth(size_t max_bytes);
  // `cancel` (optional) is read between the steps: when set, the region is released instead.
  void PrepareGrowth(size_t entry, const std::atomic<bool>* cancel = nullptr);
  bool growth_being_prepared() const;
  // Ends a preparation BeginGrowth started without doing it (its preparer is stopping): the
  // region is released and nothing is offered.
  void CancelGrowth(size_t entry);
  // How much of a region PrepareGrowth reserves and populates at a time (the progress a waiting
  // producer sees).
  static constexpr size_t kPrepareStepBytes = size_t{1} << 20;
  // Words between the consumer's position and the producer's published head.
  uint64_t unread_words() const {
    return producer_.control->shared.head.load(std::memory_order_acquire) -
           producer_.control->consumer.read.load(std::memory_order_relaxed);
  }
  // How many times the producer moved to a larger region and the consumer followed.
  uint32_t growths() const { return reader_.growths; }
  // The size of the region the consumer reads.
  size_t read_capacity_bytes() const { return read_region().capacity_words() * 8; }

  // Everything the hooks' fast path reads, in one line the consumer never touches. Public: the
  // inline fast path of <rastrace/trchk.h> (struct rastrace_producer_v1) is this layout, which
  // recorder/hooks.cc checks field by field; control's first word is the published head.
  struct alignas(kCacheLine) Producer {
    uint64_t head = 0;         // next word to write; published in control->shared.head
    uint64_t limit = 0;        // FitsContiguous's bound (RefreshLimit)
    uint64_t* data = nullptr;  // nullptr: the kernel refused the memory, nothing fits
    uint64_t mask = 0;         // capacity in words - 1
    uint64_t thread_id = 0;
    RingControl* control = nullptr;  // own_control_ or a placement's
    uint64_t events = 0;             // traced events published (CPU markers are not)
    uint32_t cpu = kSlowOnly;        // fast_cpu(); fits in the same line as the rest
  };
  static_assert(sizeof(Producer) == kCacheLine);
  // The producer's line, for the hooks' inline fast path (recorder/hooks.cc hands it out).
  Producer* producer_line() { return &producer_; }

  // ---- Either side.

  uint64_t lost() const { return producer_.control->shared.lost.load(std::memory_order_relaxed); }
  // Single mode: an event did not fit, so tracing should end.
  bool full() const { return producer_.control->shared.full.load(std::memory_order_relaxed); }
  // The producer's capacity: on the producer's side, or while neither side is using the ring.
  size_t capacity_bytes() const { return capacity_words() * 8; }
  Mode mode() const { return cold_.mode; }
  uint64_t thread_id() const { return producer_.thread_id; }

  // The CPU the producer last named in this ring with a 00A/108 event (kNoCpu: none yet).
  static constexpr uint32_t kNoCpu = 0xFFFFFFF0;
  uint32_t producer_cpu() const { return cold_.named_cpu; }
  // The value the hooks' fast path compares the thread's current CPU with: the CPU last named
  // when the fast path may be taken, otherwise kSlowOnly, which no CPU (and no rseq marker)
  // equals, so that one compare also sends every hook to the slow path (filters, no TSC).
  static constexpr uint32_t kSlowOnly = 0xFFFFFFF8;
  uint32_t fast_cpu() const { return producer_.cpu; }
  void set_producer_cpu(uint32_t cpu, bool fast) {
    cold_.named_cpu = cpu;
    producer_.cpu = fast ? cpu : kSlowOnly;
  }

  // How far the producer may grow the ring itself when nothing is offered (0, the default: it
  // does not). Only while neither side is using the ring, or from the producer.
  void set_growth_limit(size_t bytes) { growth_limit_ = bytes; }

  // Empties the ring and clears its counts, with a new capacity and mode. Only while neither side
  // is using it (between tracing sessions).
  void Reset(size_t capacity_bytes, Mode mode);
  // The same, moving the ring into caller-supplied storage.
  void Reset(const RingPlacement& placement, Mode mode);

 private:
  // Where an event starts that circular mode may move the tail to, and how many traced events
  // come before it: the first event at or after each block boundary the head crossed.
  struct BlockStart {
    uint64_t position = 0;
    uint64_t events = 0;
  };
  static constexpr size_t kBlockStarts = 16;  // more than the ring's blocks (8) and one
  // The producer's state that only its slow paths use.
  struct alignas(kCacheLine) ProducerCold {
    uint64_t cached_tail = 0;  // last consumer position seen
    uint64_t tail_events = 0;  // circular: traced events before cached_tail
    uint64_t next_block = 0;   // circular: the block boundary the head crosses next
    uint32_t named_cpu = kNoCpu;
    Mode mode = Mode::kAlternate;
    uint8_t take = 0;  // the growth_ entry the producer takes next
    uint8_t first_block = 0;
    uint8_t block_count = 0;
    // Alternate mode: the last event was dropped with no region to grow into (DropsAgain).
    bool dropping = false;
    std::array<BlockStart, kBlockStarts> blocks;  // blocks[first_block], ... in position order
  };
  uint64_t capacity_words() const { return producer_.data ? producer_.mask + 1 : 0; }

  // The consumer's own view, so that it never reads the producer's line.
  struct alignas(kCacheLine) Reader {
    const uint64_t* words = nullptr;
    uint64_t mask = 0;
    uint32_t growths = 0;
    uint8_t follow = 0;  // the growth_ entry whose move the consumer follows next
  };
  // The hand-over of a grown region. Whoever maps it (the consumer ahead of time, or the producer
  // when nothing was offered) claims the entry first, so that the two never fill one entry; the
  // producer records where it moved (`start`), then says it took the region. The entries are
  // used in turn (taken in order, followed in the same order), so that the ring can grow again,
  // up to kGrowthEntries times, before the consumer has followed the last move.
  static constexpr uint8_t kGrowthNone = 0;
  static constexpr uint8_t kGrowthOffered = 1;
  static constexpr uint8_t kGrowthTaken = 2;
  static constexpr uint8_t kGrowthClaimed = 3;    // being mapped and filled
  static constexpr uint8_t kGrowthPreparing = 4;  // mapped; PrepareGrowth is reserving it
  static constexpr size_t kGrowthEntries = 4;
  // How long a producer waits for a consumer that is mapping or preparing the region it needs
  // and makes no progress. Not short: the preparer's next step may wait behind the writer
  // punching a left region out of the same file (10 ms were exceeded now and then, one event
  // lost each time: docs/performance.md, "Ring growth off the writer").
  static constexpr std::chrono::milliseconds kClaimPatience{100};
  // How AwaitGrowth waits: yields for kAwaitSpin, then sleeps of kAwaitSleep.
  static constexpr std::chrono::microseconds kAwaitSpin{1000};
  static constexpr std::chrono::microseconds kAwaitSleep{20};
  struct alignas(kCacheLine) Growth {
    std::atomic<uint8_t> state{kGrowthNone};
    uint64_t* words = nullptr;
    uint64_t capacity_words = 0;
    uint64_t start = 0;  // the first position in the grown region
    // Bytes PrepareGrowth has reserved and populated: a waiting producer sees it move.
    std::atomic<uint64_t> prepared{0};
  };

  // A region of words: the ring's own memory, or one its placement's RegionSource supplied.
  struct Region {
    uint64_t* words = nullptr;
    size_t bytes = 0;
    AnonymousMemory memory;  // empty for a source's region
    uint64_t end = 0;        // a retired region: the first position after it

    Region() = default;
    Region(Region&& other) noexcept { *this = std::move(other); }
    Region& operator=(Region&& other) noexcept {
      words = std::exchange(other.words, nullptr);
      bytes = std::exchange(other.bytes, 0);
      memory = std::move(other.memory);
      end = std::exchange(other.end, 0);
      return *this;
    }
  };
  // Regions the consumer left while the positions in them were not all handed back yet.
  static constexpr size_t kRetiredRegions = 8;

  void Empty(Mode mode);
  // Drops `region`: its memory, or its source's (which releases it).
  void Free(Region& region);
  // Drops the regions of growth and retirement without releasing a source's (between sessions).
  void ForgetRegions();
  // MakeRoom without refreshing FitsContiguous's bound.
  bool MakeRoomFor(size_t words);
  // Circular mode: the head is past cold_.next_block; remember it as a block start.
  void NoteBlockStart();
  // Circular mode: moves the tail past the oldest events, whole blocks at a time, so that `words`
  // fit, counting the traced events overwritten.
  void OverwriteOldest(size_t words);
  // Producer: moves to the offered region, or to one it maps (up to growth_limit_), and says
  // whether `words` now fit.
  bool TakeGrowth(size_t words);
  // Producer: the entry it would take next holds nothing (no region offered, mapped or being
  // prepared), so a full ring has nothing to move to until the consumer acts.
  bool NothingToTake() const {
    return growth_[cold_.take].state.load(std::memory_order_relaxed) == kGrowthNone;
  }
  // Producer: claims the next entry and maps a region twice its own size into it; the state the
  // entry is then in (kGrowthOffered when the producer filled it).
  uint8_t GrowItself(size_t entry);
  // Either side, holding the claim on `entry`: maps `bytes` for it and fills it in; when the
  // kernel refuses, frees the entry again and returns false. `reserve_later`: a source's region
  // is reserved by PrepareGrowth, not now.
  bool MapClaimed(size_t entry, size_t bytes, bool reserve_later = false);
  // Consumer: claims the entry the next region goes to (kGrowthClaimed); it and the region's
  // size, or kNoEntry when there is none to offer.
  std::pair<size_t, size_t> ClaimNextGrowth(size_t max_bytes);
  // Producer: the region of `growth` is being mapped or prepared by another thread. Waits while
  // that gets on or the consumer frees room; the state it ends in, or kGrowthRoom when `words`
  // now fit where the producer is.
  static constexpr uint8_t kGrowthRoom = 0xFF;
  uint8_t AwaitGrowth(Growth& growth, size_t words);
  // Consumer: the producer moved at growth_[reader_.follow].start (and perhaps again after it);
  // `end` is its published head.
  uint64_t FollowGrowth(uint64_t end);

  Producer producer_;
  ProducerCold cold_;
  Reader reader_;
  std::array<Growth, kGrowthEntries> growth_;
  // Set by the producer when it had to wait for a region being mapped or prepared: it outruns
  // doubling, so the next growth goes straight to the limit (ClaimNextGrowth).
  std::atomic<bool> outran_growth_{false};
  RingControl own_control_;
  bool hold_ = false;
  bool grows_ = false;  // the mode grows and the storage may grow (set while idle)
  size_t growth_limit_ = 0;
  RegionSource* source_ = nullptr;  // a placed ring's, when it may grow
  Region reading_;                  // the region the consumer reads
  // The regions of growth_, while offered or taken.
  std::array<Region, kGrowthEntries> offered_;
  std::array<Region, kRetiredRegions> retired_;  // retired_[0..retired_count_) in position order
  size_t retired_count_ = 0;
};

}  // namespace rastrace::buffer
