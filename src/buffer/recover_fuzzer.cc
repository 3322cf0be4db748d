// Any contents of a crashed process's flight-recorder files through `Recover`: never a crash, a
// hang or a read outside the files; the output, when there is one, reads to its end.
//
// The input supplies what a crash (or a damaged disk) could leave: the ring's published positions,
// lost count, checkpoint slots and released flag, the process checkpoint, the ring's words and the
// log's bytes; after the ring's words, whether the ring grew into a second region (twice the size,
// appended to the file), where the producer moved and that region's words. The magic numbers,
// version and sizes are kept valid so the fuzzer reaches past them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "buffer/recover_fuzz_support.h"
#include "buffer/shm_ring.h"

namespace {

using namespace rastrace;
using namespace rastrace::buffer;

constexpr uint64_t kPid = 4242;
constexpr size_t kWords = 512;

// Consumes the input front to back; zeros once it runs out.
struct Input {
  const uint8_t* data;
  size_t size;
  uint64_t Word() {
    uint64_t value = 0;
    const size_t n = size < 8 ? size : 8;
    std::memcpy(&value, data, n);
    data += n;
    size -= n;
    return value;
  }
};

const std::string& Scratch() {
  static const std::string dir = fuzz::MakeScratch("rastrace-recover-fuzz");
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in{data, size};
  const std::string& dir = Scratch();
  const std::string log = dir + "/log";

  // The process file: checkpoint and log size from the input.
  std::vector<uint8_t> proc(kShmPage);
  auto* p = std::construct_at(reinterpret_cast<ShmProcessHeader*>(proc.data()));
  p->magic = kShmProcessMagic;
  p->version = kShmLayoutVersion;
  p->pid = kPid;
  p->checkpoint_seq.store(in.Word() % 4);
  // A word with its top bit set is taken whole: damage can make a log size anything.
  auto log_size = [&] {
    const uint64_t word = in.Word();
    return (word >> 63) != 0 ? word : word % 8192;
  };
  p->log_bytes[0] = log_size();
  p->log_bytes[1] = log_size();
  p->complete.store(static_cast<uint32_t>(in.Word() & 1));
  p->log_path_bytes = static_cast<uint32_t>(log.size());
  std::memcpy(proc.data() + kShmProcessEventsOffset, log.data(), log.size());
  fuzz::WriteFile(dir + "/shm/rastrace-4242.proc", proc.data(), proc.size());

  // The ring file: positions, counts and checkpoints from the input, then the words.
  std::vector<uint8_t> ring(kShmPage + kWords * 8);
  auto* r = std::construct_at(reinterpret_cast<ShmRingHeader*>(ring.data()));
  r->magic = kShmRingMagic;
  r->version = kShmLayoutVersion;
  r->pid = kPid;
  r->thread_id = 7;
  r->capacity_words = kWords;
  std::memcpy(r->name, "fuzz", 4);
  r->control.shared.head.store(in.Word() % (4 * kWords));
  r->control.shared.lost.store(in.Word());
  r->control.consumer.tail.store(in.Word() % (4 * kWords));
  for (ShmRingCheckpoint& slot : r->checkpoint) {
    slot.seq = in.Word() % 4;
    slot.read = in.Word() % (4 * kWords);
    slot.lost_reported = in.Word();
    slot.lost_by_writer = in.Word();
  }
  r->released.store(static_cast<uint32_t>(in.Word() & 1));
  r->released_after_seq.store(in.Word() % 4);
  r->regions[0].offset = kShmPage;
  r->regions[0].capacity_words = kWords;
  r->regions[0].start.store(0);
  r->region_count.store(1);
  const size_t words_bytes = in.size < kWords * 8 ? in.size : kWords * 8;
  std::memcpy(ring.data() + kShmPage, in.data, words_bytes);
  in.data += words_bytes;
  in.size -= words_bytes;
  // A grown ring: a second region after the first, taken at a position from the input (or only
  // offered), its offset and size sometimes damaged.
  if (const uint64_t grown = in.Word(); grown & 1) {
    ShmRegion& second = r->regions[1];
    second.offset = kShmPage + kWords * 8;
    second.capacity_words = 2 * kWords;
    if (grown & 2) second.offset = (grown >> 8) % (kShmPage + 4 * kWords * 8);
    if (grown & 4) second.capacity_words = (grown >> 32) % (8 * kWords);
    const uint64_t start = in.Word();
    second.start.store((grown & 8) ? kShmRegionNotTaken : start % (4 * kWords));
    r->region_count.store((grown & 16) ? static_cast<uint32_t>(grown >> 40) : 2);
    ring.resize(kShmPage + 3 * kWords * 8);
    r = reinterpret_cast<ShmRingHeader*>(ring.data());
    const size_t second_bytes = in.size < 2 * kWords * 8 ? in.size : 2 * kWords * 8;
    std::memcpy(ring.data() + kShmPage + kWords * 8, in.data, second_bytes);
    in.data += second_bytes;
    in.size -= second_bytes;
  }
  fuzz::WriteFile(dir + "/shm/rastrace-4242-1.ring", ring.data(), ring.size());

  // What is left is the log the process was writing.
  fuzz::WriteFile(log, in.data, in.size);

  fuzz::RecoverAndCheck(dir);
  return 0;
}
