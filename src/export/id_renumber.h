// Keeps the processes of different sources apart in a merged log: when a source uses a thread or
// process id that an earlier source already used (two machines' pid 100), that source's id gets a
// new one that no source uses, in every field that carries it (docs/exporting.md, "Merging").
// Linux numbers threads and processes from one id space, so both are renumbered alike.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::exporter {

class IdRenumberer {
 public:
  // Linux never hands out ids at or above PID_MAX_LIMIT (2^22), so new ids start there.
  static constexpr uint64_t kFirstNewId = uint64_t{1} << 22;

  struct Renumbered {
    uint64_t from = 0;  // the id in its source
    uint64_t to = 0;    // the id in the merged log
  };

  // Rewrites the ids `fields` carries for `origin`: the thread id, and the ids in 00A process
  // events (0x100, 0x103, 0x104, 0x106, 0x107, 0x10A), in the kernel events a session writes
  // (006, 106, 10C, 134, 139, 465) and the pid of a dynamic tracepoint hit (00C). A rewritten
  // buffer is copied into `buffer`, which `fields.buffer` then points to. Ids renumbered for the
  // first time are appended to `added`. `layout` is the source log's: kernel events' words are
  // only read as rastrace writes them, in 64-bit logs.
  void Apply(size_t origin, event::Layout layout, ByteOrder order, event::EventFields& fields,
             std::vector<uint8_t>& buffer, std::vector<Renumbered>& added);

 private:
  uint64_t Map(size_t origin, uint64_t id, std::vector<Renumbered>& added);

  static constexpr size_t kNewId = SIZE_MAX;    // owner of the ids handed out here
  std::unordered_map<uint64_t, size_t> owner_;  // id -> the origin that used it first
  std::vector<std::unordered_map<uint64_t, uint64_t>> renumbered_;  // by origin: from -> to
  uint64_t next_ = kFirstNewId;
};

}  // namespace rastrace::exporter
