// Any bytes at all as a crashed process's .proc file, ring file and log, through `Recover`: never a
// crash, a hang, an allocation the files do not justify (a damaged checkpoint once made recovery
// allocate the 4 GB its log-size field said) or a read outside the files; the output, when there
// is one, reads to its end. recover_fuzzer.cc keeps the files' layout valid and varies the
// fields; this one varies the files themselves, sizes included.
//
// Input: a flags byte, the .proc file's size (2 bytes) and bytes, the ring file's size in pages
// (1 byte) and its first bytes (the rest of the ring is zero), then the log. Flags bit 0 writes a
// valid magic, version and pid into the .proc file, bit 1 the same into the ring file, bit 2 a
// capacity that matches the ring file's size (and its first region, as a recorder writes it), bit 3
// the log's path into the .proc file after its header events, so that the fuzzer reaches past those
// checks; bit 4, with bit 2, splits the file's words into two regions of a grown ring (the second's
// start position is whatever the input put there).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "buffer/recover_fuzz_support.h"
#include "buffer/shm_ring.h"

namespace {

using namespace rastrace;
using namespace rastrace::buffer;

constexpr uint64_t kPid = 4343;

struct Input {
  const uint8_t* data;
  size_t size;
  size_t Take(size_t n, void* out) {
    n = std::min(n, size);
    if (n != 0) std::memcpy(out, data, n);
    data += n;
    size -= n;
    return n;
  }
};

const std::string& Scratch() {
  static const std::string dir = fuzz::MakeScratch("rastrace-recover-files-fuzz");
  return dir;
}

template <typename T>
void Store(std::vector<uint8_t>& file, size_t offset, T value) {
  if (offset + sizeof value <= file.size()) std::memcpy(file.data() + offset, &value, sizeof value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in{data, size};
  const std::string& dir = Scratch();
  uint8_t flags = 0;
  in.Take(1, &flags);

  uint16_t proc_bytes = 0;
  in.Take(2, &proc_bytes);
  std::vector<uint8_t> proc(proc_bytes);
  in.Take(proc.size(), proc.data());
  if (flags & 1) {
    Store(proc, offsetof(ShmProcessHeader, magic), kShmProcessMagic);
    Store(proc, offsetof(ShmProcessHeader, version), kShmLayoutVersion);
    Store(proc, offsetof(ShmProcessHeader, pid), kPid);
  }
  const std::string log = dir + "/log";
  if ((flags & 8) && proc.size() >= kShmProcessEventsOffset + log.size()) {
    uint32_t events = 0;
    std::memcpy(&events, proc.data() + offsetof(ShmProcessHeader, header_events_bytes), 4);
    events = static_cast<uint32_t>(
        std::min<size_t>(events, proc.size() - kShmProcessEventsOffset - log.size()));
    Store(proc, offsetof(ShmProcessHeader, header_events_bytes), events);
    Store(proc, offsetof(ShmProcessHeader, log_path_bytes), static_cast<uint32_t>(log.size()));
    std::memcpy(proc.data() + kShmProcessEventsOffset + events, log.data(), log.size());
  }

  uint8_t ring_pages = 0;
  in.Take(1, &ring_pages);
  std::vector<uint8_t> ring(static_cast<size_t>(ring_pages % 8) * kShmPage);
  uint16_t ring_given = 0;
  in.Take(2, &ring_given);
  in.Take(std::min<size_t>(ring_given, ring.size()), ring.data());
  if (flags & 2) {
    Store(ring, offsetof(ShmRingHeader, magic), kShmRingMagic);
    Store(ring, offsetof(ShmRingHeader, version), kShmLayoutVersion);
    Store(ring, offsetof(ShmRingHeader, pid), kPid);
  }
  if ((flags & 4) && ring.size() > kShmPage) {
    // Only a power of two of words is a ring: round the file down to one.
    const uint64_t words = std::bit_floor((ring.size() - kShmPage) / 8);
    ring.resize(kShmPage + words * 8);
    const bool grown = (flags & 16) && words >= 2 * RingBuffer::kMinBytes / 8;
    const uint64_t first = grown ? words / 2 : words;
    Store(ring, offsetof(ShmRingHeader, capacity_words), first);
    const size_t table = offsetof(ShmRingHeader, regions);
    Store(ring, offsetof(ShmRingHeader, region_count), uint32_t{grown ? 2u : 1u});
    Store(ring, table + offsetof(ShmRegion, offset), uint64_t{kShmPage});
    Store(ring, table + offsetof(ShmRegion, capacity_words), first);
    Store(ring, table + offsetof(ShmRegion, start), uint64_t{0});
    if (grown) {
      Store(ring, table + sizeof(ShmRegion) + offsetof(ShmRegion, offset), kShmPage + first * 8);
      Store(ring, table + sizeof(ShmRegion) + offsetof(ShmRegion, capacity_words), first);
    }
  }

  fuzz::WriteFile(dir + "/shm/rastrace-4343.proc", proc.data(), proc.size());
  fuzz::WriteFile(dir + "/shm/rastrace-4343-1.ring", ring.data(), ring.size());
  fuzz::WriteFile(log, in.data, in.size);

  fuzz::RecoverAndCheck(dir);
  return 0;
}
