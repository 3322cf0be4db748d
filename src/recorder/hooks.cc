// The hook entry points of <rastrace/trchk.h>, the trace control functions, and the start of
// recording from RASTRACE_* environment variables when a traced program loads.
//
// Hot path of a hook (channel on, thread already registered): the CPU compare (which also closes
// the path while -j/-k filters are on or the clock is not the TSC), a capacity test against the
// cached consumer position, the stores, one clock read for T hooks, one release store. No lock,
// no system call (with the TSC), no allocation. Programs built against <rastrace/trchk.h> run it
// inline (<rastrace/trchk_inline.h>) and call rastrace_hookN[t]_slow only when it cannot take the
// event; Record below is the same path for rastrace_hookN[t] (RASTRACE_OUT_OF_LINE_HOOKS, older
// programs). The producer line both write is checked field by field below.
#include <rastrace/trchk.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "buffer/event_words.h"
#include "recorder/clock.h"
#include "recorder/current_cpu.h"
#include "recorder/recorder.h"
#include "recorder/session_page.h"

namespace rastrace::recorder {

ptrdiff_t g_rseq_offset = 0;

// The inline fast path of <rastrace/trchk_inline.h> writes the ring's producer line through its
// own declaration of it: the two must agree, field by field.
using ProducerLine = buffer::RingBuffer::Producer;
static_assert(offsetof(rastrace_producer_v1, head) == offsetof(ProducerLine, head));
static_assert(offsetof(rastrace_producer_v1, limit) == offsetof(ProducerLine, limit));
static_assert(offsetof(rastrace_producer_v1, data) == offsetof(ProducerLine, data));
static_assert(offsetof(rastrace_producer_v1, mask) == offsetof(ProducerLine, mask));
static_assert(offsetof(rastrace_producer_v1, thread_id) == offsetof(ProducerLine, thread_id));
static_assert(offsetof(rastrace_producer_v1, published) == offsetof(ProducerLine, control));
static_assert(offsetof(rastrace_producer_v1, events) == offsetof(ProducerLine, events));
static_assert(offsetof(rastrace_producer_v1, cpu) == offsetof(ProducerLine, cpu));
static_assert(sizeof(rastrace_producer_v1) <= sizeof(ProducerLine));
// `published` is control's first word, the atomic head, which must be a plain word to the program.
static_assert(offsetof(buffer::RingControl, shared) == 0);
static_assert(offsetof(buffer::RingControl::Shared, head) == 0);
static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t) &&
              std::atomic<uint64_t>::is_always_lock_free);

// What rastrace_thread_producer_v1 points at while the thread has no ring: no room, and a CPU no
// CPU has, so the inline fast path always calls the library. Never written (the fast path writes
// only after both compares pass).
constinit rastrace_producer_v1 g_closed_producer_line = {.head = 0,
                                                         .limit = 0,
                                                         .data = nullptr,
                                                         .mask = 0,
                                                         .thread_id = 0,
                                                         .published = nullptr,
                                                         .events = 0,
                                                         .cpu = buffer::RingBuffer::kSlowOnly};

namespace {

// Initial-exec: a hook reaches its ring with one %fs-relative load, no __tls_get_addr call.
[[gnu::tls_model("initial-exec")]] thread_local buffer::RingBuffer* t_ring = nullptr;

// How far ahead of an event the fast path prefetches for writing (docs/performance.md, "The hook
// end to end": 1 KiB measured best of 512 B, 1 KiB and 2 KiB in alternate mode).
constexpr size_t kPrefetchAhead = 1024;

[[gnu::noinline, gnu::cold]] buffer::RingBuffer* RegisterSlow() {
  return Recorder::Get().RegisterThread();
}

[[gnu::noinline, gnu::cold]] void EndWhenFull() {
  Recorder::Get().RequestEnd();
}

// The event did not fit: in single mode the ring is now full and tracing ends. Inline: in
// alternate mode at a rate the log cannot take, most events end here.
[[gnu::always_inline]] inline void Dropped(buffer::RingBuffer* ring) {
  if (ring->full()) [[unlikely]]
    EndWhenFull();
}

[[gnu::always_inline]] inline buffer::RingBuffer* CurrentRing() {
  buffer::RingBuffer* ring = t_ring;
  if (ring == nullptr) [[unlikely]]
    ring = RegisterSlow();
  return ring;
}

[[gnu::always_inline]] inline bool Filtered(uint32_t hkwd) {
  return g_filter_active && !g_filter_allowed.test(hkwd >> 16);
}

// A thread that moved to another CPU says so before its next event: 00A/108 with the CPU, no
// timestamp (it takes that of the event before it). It is not a traced event: a ring without room
// for it does not count it lost, and the next hook tries again (in circular mode it overwrites the
// oldest events, which are counted, and an overwritten marker is not). Without rseq the CPU is
// unknown and nothing is written.
[[gnu::noinline, gnu::cold]] void NoteCpu(buffer::RingBuffer* ring, uint32_t cpu) {
  if (cpu >= kFirstInvalidCpu) {
    ring->set_producer_cpu(cpu, g_fast_hooks);
    return;
  }
  uint64_t at = 0;
  if (!ring->ReserveIfRoom(3, &at)) return;  // the next hook tries again; nothing is lost
  ring->Put(at, buffer::kCpuMarkerHookword);
  ring->Put(at + 1, cpu);
  ring->Put(at + 2, ring->thread_id());
  ring->PublishMarker(at + 3);
  ring->set_producer_cpu(cpu, g_fast_hooks);
}

[[gnu::always_inline]] inline void FollowCpu(buffer::RingBuffer* ring) {
  const uint32_t cpu = CurrentCpu();
  if (cpu != ring->producer_cpu()) [[unlikely]]
    NoteCpu(ring, cpu);
}

// Stores the words of a TRCHKLn(T) event at `at` (room is known to be there) and publishes it.
// The storage, mask and thread id are copied to locals first so that the stores, which the
// compiler must assume may alias the ring object, do not force them to be reloaded.
template <bool kTimestamp, class... Words>
[[gnu::always_inline]] inline void StoreWords(buffer::RingBuffer* ring, uint64_t at,
                                              uint64_t timestamp, uint32_t hkwd, Words... words) {
  constexpr size_t kData = sizeof...(Words);
  uint64_t* const data = ring->data();
  const uint64_t mask = ring->mask();
  const uint64_t thread_id = ring->thread_id();
  data[at & mask] = buffer::MakeHookword(kTimestamp ? event::kFlagTimestamp : 0,
                                         static_cast<uint16_t>(kData * 8), hkwd);
  uint64_t slot = at + 1;
  ((data[slot++ & mask] = static_cast<uint64_t>(words)), ...);
  data[(at + 1 + kData) & mask] = thread_id;
  if constexpr (kTimestamp) data[(at + 2 + kData) & mask] = timestamp;
  ring->Publish(at + 2 + kData + (kTimestamp ? 1 : 0));
}

// Everything the fast path leaves out: filters, the monotonic clock, registering the thread, a
// ring that looks full, an event that wraps around the end of the ring.
template <bool kTimestamp, class... Words>
[[gnu::noinline]] void RecordSlow(uint32_t hkwd, Words... words) {
  if (Filtered(hkwd)) return;
  buffer::RingBuffer* ring = CurrentRing();
  if (ring == nullptr) return;
  FollowCpu(ring);
  constexpr size_t kTotal = 2 + sizeof...(Words) + (kTimestamp ? 1 : 0);
  uint64_t at = 0;
  // The clock is read only once there is room: an event dropped because the ring is full (the
  // program outruns the log) costs no timestamp.
  if (!ring->Reserve(kTotal, &at)) return Dropped(ring);
  StoreWords<kTimestamp>(ring, at, kTimestamp ? Now() : 0, hkwd, words...);
  ring->RefreshLimit();
}

// While the thread outruns the log with nothing to grow into (alternate mode), most hooks drop
// (a rate the log cannot take: `-T 4M` and a 3.7 GB/s burst drop three events in four). They drop
// here, before the slow path's work: inline in the caller, with no registers to save and no CPU
// marker (a dropped event needs none). Filtered events are not counted.
template <bool kTimestamp, class... Words>
[[gnu::always_inline]] inline void DropOrRecordSlow(uint32_t hkwd, Words... words) {
  constexpr size_t kTotal = 2 + sizeof...(Words) + (kTimestamp ? 1 : 0);
  buffer::RingBuffer* const ring = t_ring;
  if (ring != nullptr && ring->dropping() && !Filtered(hkwd) && ring->DropsAgain(kTotal)) return;
  return RecordSlow<kTimestamp>(hkwd, words...);
}

// The fast path: TLS load, one compare of the thread's CPU with the ring's (which also sends
// every hook to the slow path while filters are on or the clock is not the TSC: fast_cpu), one
// compare against the ring's bound (room before the consumer and before the end of the storage,
// so the words go to consecutive addresses without masking), the stores, rdtsc last (fewer
// values live across it), the release store of the head. It has no calls but tail calls. On AMD
// rdtsc is microcoded and the instructions around it are not free, so every one counts
// (docs/performance.md, "The hook end to end").
// The twin of the header's inline path (rastrace_fast_hook_), for the out-of-line hooks. Kept
// apart on purpose: the exported hooks calling the header's path instead measured 0.1-0.9 ns
// slower where events fit and 2.5 ns where they drop (a push and pop, a GOT load of the rseq
// offset, the drop through the PLT; docs/performance.md, session 12). InlineHooksTest's
// EveryFormWritesWhatTheLibraryWrites keeps the two in step.
template <bool kTimestamp, class... Words>
[[gnu::always_inline]] inline void Record(uint32_t hkwd, Words... words) {
  buffer::RingBuffer* ring = t_ring;
  if (ring == nullptr || CurrentCpu() != ring->fast_cpu()) [[unlikely]] {
    return RecordSlow<kTimestamp>(hkwd, words...);
  }
  constexpr size_t kData = sizeof...(Words);
  constexpr size_t kTotal = 2 + kData + (kTimestamp ? 1 : 0);
  if (!ring->FitsContiguous(kTotal)) [[unlikely]]
    return DropOrRecordSlow<kTimestamp>(hkwd, words...);
  const uint64_t at = ring->position();
  uint64_t* const event = ring->data() + (at & ring->mask());
  // The line 1 KiB ahead is asked for now, for writing: in alternate mode the writer has read
  // that line (a ring earlier) and holds a copy, and taking it back costs a round trip to the
  // other core, which the store buffer cannot hide. Past the ring's end the address may lie
  // outside it: a prefetch never faults. (fast_cpu is kSlowOnly on CPUs without PREFETCHW.)
  asm volatile("prefetchw %0" : : "m"(*(reinterpret_cast<const char*>(event) + kPrefetchAhead)));
  // The hookword as two 4-byte stores, the upper half an immediate: no register for a 64-bit
  // constant (a register more here costs a push and a pop).
  constexpr uint32_t kUpper =
      static_cast<uint32_t>(buffer::MakeHookword(kTimestamp ? event::kFlagTimestamp : 0,
                                                 static_cast<uint16_t>(kData * 8), 0) >>
                            32);
  std::memcpy(event, &hkwd, 4);
  std::memcpy(reinterpret_cast<char*>(event) + 4, &kUpper, 4);
  size_t slot = 1;
  ((event[slot++] = static_cast<uint64_t>(words)), ...);
  // Loaded after the data words are stored, when their registers are free again.
  event[1 + kData] = ring->thread_id();
  if constexpr (kTimestamp) event[2 + kData] = __rdtsc();
  // The head is read again rather than kept in a register across the stores.
  ring->Publish(ring->position() + kTotal);
}

template <bool kTimestamp>
[[gnu::noinline]] void RecordGenericSlow(uint32_t hkwd, uint64_t word, size_t length,
                                         const void* bytes) {
  if (Filtered(hkwd)) [[unlikely]]
    return;
  buffer::RingBuffer* ring = CurrentRing();
  if (ring == nullptr) [[unlikely]]
    return;
  FollowCpu(ring);
  const size_t total = buffer::GenericEventWords(length, kTimestamp);
  uint64_t at = 0;
  if (!ring->Reserve(total, &at)) [[unlikely]] {
    Dropped(ring);
    return;
  }
  ring->Put(
      at, buffer::MakeHookword(
              static_cast<uint16_t>(event::kFlagGeneric | (kTimestamp ? event::kFlagTimestamp : 0)),
              static_cast<uint16_t>(length), hkwd));
  ring->Put(at + 1, word);
  ring->PutBytes(at + 2, bytes, length);
  const uint64_t after = at + 2 + (length + 7) / 8;
  ring->Put(after, ring->thread_id());
  if constexpr (kTimestamp) ring->Put(after + 1, Now());
  ring->Publish(at + total);
  ring->RefreshLimit();
}

// TRCGEN(T): the same fast path as Record, the buffer copied in one piece.
template <bool kTimestamp>
[[gnu::always_inline]] inline void RecordGeneric(uint32_t hkwd, uint64_t word, size_t length,
                                                 const void* bytes) {
  // The length field has 16 bits: a longer buffer is cut to its first 65535 bytes.
  if (bytes == nullptr) length = 0;
  length = std::min<size_t>(length, 0xFFFF);
  const size_t total = buffer::GenericEventWords(length, kTimestamp);
  buffer::RingBuffer* ring = t_ring;
  if (ring == nullptr || CurrentCpu() != ring->fast_cpu() || !ring->FitsContiguous(total))
      [[unlikely]] {
    return RecordGenericSlow<kTimestamp>(hkwd, word, length, bytes);
  }
  uint64_t* const event = ring->data() + (ring->position() & ring->mask());
  asm volatile("prefetchw %0" : : "m"(*(reinterpret_cast<const char*>(event) + kPrefetchAhead)));
  event[0] = buffer::MakeHookword(
      static_cast<uint16_t>(event::kFlagGeneric | (kTimestamp ? event::kFlagTimestamp : 0)),
      static_cast<uint16_t>(length), hkwd);
  event[1] = word;
  const size_t buffer_words = (length + 7) / 8;
  if (buffer_words != 0) event[1 + buffer_words] = 0;  // the padding of the last word
  std::memcpy(event + 2, bytes, length);
  event[2 + buffer_words] = ring->thread_id();
  if constexpr (kTimestamp) event[3 + buffer_words] = __rdtsc();
  ring->Publish(ring->position() + total);
}

}  // namespace

void SetRseqOffset(ptrdiff_t offset) {
  g_rseq_offset = offset;
  rastrace_rseq_offset = offset;
}

void SetThreadRing(buffer::RingBuffer* ring) {
  t_ring = ring;
  rastrace_thread_producer_v1 =
      ring == nullptr ? &g_closed_producer_line
                      : reinterpret_cast<rastrace_producer_v1*>(ring->producer_line());
}

buffer::RingBuffer* CurrentThreadRing() {
  return CurrentRing();
}

void RecordControlEvent(uint16_t hook, uint64_t channel) {
  buffer::RingBuffer* ring = CurrentRing();
  if (ring == nullptr) return;
  FollowCpu(ring);
  uint64_t at = 0;
  if (!ring->Reserve(4, &at)) return Dropped(ring);
  ring->Put(at, buffer::MakeHookword(event::kFlagTimestamp, 8, uint32_t{hook} << 16));
  ring->Put(at + 1, channel);
  ring->Put(at + 2, ring->thread_id());
  ring->Put(at + 3, Now());
  ring->Publish(at + 4);
}

}  // namespace rastrace::recorder

using rastrace::recorder::DropOrRecordSlow;
using rastrace::recorder::Record;
using rastrace::recorder::Recorder;
using rastrace::recorder::RecordGeneric;

extern "C" {

__thread rastrace_producer_v1* rastrace_thread_producer_v1
    __attribute__((tls_model("initial-exec"))) = &rastrace::recorder::g_closed_producer_line;
ptrdiff_t rastrace_rseq_offset = 0;

void rastrace_hook0(uint32_t hkwd) {
  Record<false>(hkwd);
}
void rastrace_hook1(uint32_t hkwd, uint64_t d1) {
  Record<false>(hkwd, d1);
}
void rastrace_hook2(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  Record<false>(hkwd, d1, d2);
}
void rastrace_hook3(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  Record<false>(hkwd, d1, d2, d3);
}
void rastrace_hook4(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4) {
  Record<false>(hkwd, d1, d2, d3, d4);
}
void rastrace_hook5(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                    uint64_t d5) {
  Record<false>(hkwd, d1, d2, d3, d4, d5);
}
void rastrace_hook0t(uint32_t hkwd) {
  Record<true>(hkwd);
}
void rastrace_hook1t(uint32_t hkwd, uint64_t d1) {
  Record<true>(hkwd, d1);
}
void rastrace_hook2t(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  Record<true>(hkwd, d1, d2);
}
void rastrace_hook3t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  Record<true>(hkwd, d1, d2, d3);
}
void rastrace_hook4t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4) {
  Record<true>(hkwd, d1, d2, d3, d4);
}
void rastrace_hook5t(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                     uint64_t d5) {
  Record<true>(hkwd, d1, d2, d3, d4, d5);
}
// Called by the inline fast path (<rastrace/trchk_inline.h>) when it could not take the event.
void rastrace_hook0_slow(uint32_t hkwd) {
  DropOrRecordSlow<false>(hkwd);
}
void rastrace_hook1_slow(uint32_t hkwd, uint64_t d1) {
  DropOrRecordSlow<false>(hkwd, d1);
}
void rastrace_hook2_slow(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  DropOrRecordSlow<false>(hkwd, d1, d2);
}
void rastrace_hook3_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  DropOrRecordSlow<false>(hkwd, d1, d2, d3);
}
void rastrace_hook4_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4) {
  DropOrRecordSlow<false>(hkwd, d1, d2, d3, d4);
}
void rastrace_hook5_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                         uint64_t d5) {
  DropOrRecordSlow<false>(hkwd, d1, d2, d3, d4, d5);
}
void rastrace_hook0t_slow(uint32_t hkwd) {
  DropOrRecordSlow<true>(hkwd);
}
void rastrace_hook1t_slow(uint32_t hkwd, uint64_t d1) {
  DropOrRecordSlow<true>(hkwd, d1);
}
void rastrace_hook2t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2) {
  DropOrRecordSlow<true>(hkwd, d1, d2);
}
void rastrace_hook3t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3) {
  DropOrRecordSlow<true>(hkwd, d1, d2, d3);
}
void rastrace_hook4t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4) {
  DropOrRecordSlow<true>(hkwd, d1, d2, d3, d4);
}
void rastrace_hook5t_slow(uint32_t hkwd, uint64_t d1, uint64_t d2, uint64_t d3, uint64_t d4,
                          uint64_t d5) {
  DropOrRecordSlow<true>(hkwd, d1, d2, d3, d4, d5);
}
void rastrace_gen(uint32_t hkwd, uint64_t d1, size_t len, const void* buf) {
  RecordGeneric<false>(hkwd, d1, len, buf);
}
void rastrace_gent(uint32_t hkwd, uint64_t d1, size_t len, const void* buf) {
  RecordGeneric<true>(hkwd, d1, len, buf);
}

int trcstart(const char* args) {
  Recorder& recorder = Recorder::Get();
  if (recorder.recording()) {
    // Already recording: start the lowest channel that is off, as AIX hands out generic channels.
    const uint32_t mask = __atomic_load_n(&rastrace_channel_mask, __ATOMIC_RELAXED);
    for (int ch = 1; ch < RASTRACE_CHANNELS; ++ch) {
      if (!(mask & (1u << ch))) return recorder.SetChannel(ch, true) ? ch : -1;
    }
    std::fprintf(stderr, "rastrace: trcstart: every channel is already on\n");
    return -1;
  }
  auto base = rastrace::recorder::OptionsFromEnvironment(std::getenv);
  if (!base) {
    std::fprintf(stderr, "%s\n", base.error().message.c_str());
    return -1;
  }
  auto options = rastrace::recorder::ParseTraceString(args ? args : "", std::move(*base));
  if (!options) {
    std::fprintf(stderr, "rastrace: trcstart: %s\n", options.error().message.c_str());
    return -1;
  }
  if (auto started = recorder.Start(*options); !started) {
    std::fprintf(stderr, "%s\n", started.error().message.c_str());
    return -1;
  }
  for (int ch = 0; ch < RASTRACE_CHANNELS; ++ch) {
    if (options->channels & (1u << ch)) return ch;
  }
  return 0;
}

int trcon(int channel) {
  if (channel < 0) return -1;
  return Recorder::Get().SetChannel(static_cast<unsigned>(channel), true) ? 0 : -1;
}

int trcoff(int channel) {
  if (channel < 0) return -1;
  return Recorder::Get().SetChannel(static_cast<unsigned>(channel), false) ? 0 : -1;
}

int trcstop(int channel) {
  if (channel < 0 || channel >= RASTRACE_CHANNELS) return -1;
  if (channel != 0) return trcoff(channel);
  auto stopped = Recorder::Get().Stop();
  if (!stopped) {
    std::fprintf(stderr, "%s\n", stopped.error().message.c_str());
    return -1;
  }
  return 0;
}

// Defined (by the `rastrace` command) in programs that link the recorder but must not be traced
// themselves.
[[gnu::weak]] extern const int rastrace_autostart_disabled;

}  // extern "C"

namespace {

// An unmodified program linked with librastrace is traced when RASTRACE_LOG is set.
[[gnu::constructor]] void StartFromEnvironment() {
  if (&rastrace_autostart_disabled != nullptr) return;
  const char* log = std::getenv(rastrace::recorder::kEnvLog);
  if (log == nullptr || *log == '\0') {
    // No log of its own: join the running system-wide session, if there is one.
    rastrace::recorder::AttachToSession();
    return;
  }
  auto options = rastrace::recorder::OptionsFromEnvironment(std::getenv);
  if (!options) {
    std::fprintf(stderr, "rastrace: %s\n", options.error().message.c_str());
    return;
  }
  if (auto started = Recorder::Get().Start(*options); !started) {
    std::fprintf(stderr, "%s\n", started.error().message.c_str());
  }
}

}  // namespace
