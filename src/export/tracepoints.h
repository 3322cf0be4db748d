// Dynamic tracepoint definitions of one log (00A/109, written by `trace on --log` before any hit):
// which procedure a 00C hit's major and minor belong to, and whether it is the procedure's entry,
// its return point (RETEP) or a point inside it. The Chrome exporter pairs entries with returns
// by them; nothing in a 00C hit itself relates the two.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::exporter {

enum class TracepointKind : uint8_t { kInside = 0, kEntry = 1, kReturn = 2, kOther = 3 };

struct TracepointDef {
  TracepointKind kind = TracepointKind::kInside;
  std::string name;  // the procedure, or "file:line" for a line tracepoint
};

class TracepointTable {
 public:
  // Learns a 00A/109 event; other events, and one whose S2 name runs past its buffer, are
  // ignored. Returns true when `e` defined a tracepoint.
  bool Observe(const event::Event& e, ByteOrder order);
  // The definition of the tracepoint a 00C hit reports (its major is in the data word, its minor
  // is the subhook); null when the log defined none.
  const TracepointDef* FindHit(const event::Event& hit) const;
  bool empty() const { return defs_.empty(); }

 private:
  std::unordered_map<uint32_t, TracepointDef> defs_;  // by major | minor << 16
};

}  // namespace rastrace::exporter
