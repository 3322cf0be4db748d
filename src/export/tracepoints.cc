#include "export/tracepoints.h"

#include "event/format.h"
#include "event/s2.h"
#include "export/process_table.h"

namespace rastrace::exporter {

bool TracepointTable::Observe(const event::Event& e, ByteOrder order) {
  if (!e.generic || e.layout != event::Layout::k64) return false;
  if (UtilitySubhook(e) != event::kUtilTracepointDef) return false;
  const auto name = event::ReadS2(e.buffer, 0, order);
  if (!name) return false;
  const auto key = static_cast<uint32_t>(e.generic_word);  // major | minor << 16
  const auto kind_value = static_cast<uint16_t>(e.generic_word >> 32);
  const auto kind =
      kind_value <= 2 ? static_cast<TracepointKind>(kind_value) : TracepointKind::kOther;
  defs_[key] = TracepointDef{kind, std::string(*name)};
  return true;
}

const TracepointDef* TracepointTable::FindHit(const event::Event& hit) const {
  if (defs_.empty() || hit.hook_id != event::kHookDynamicTracepoint || !hit.generic) return nullptr;
  const uint32_t key = static_cast<uint32_t>(hit.generic_word & 0xFFFF) | uint32_t{hit.subhook}
                                                                              << 16;
  const auto it = defs_.find(key);
  return it == defs_.end() ? nullptr : &it->second;
}

}  // namespace rastrace::exporter
