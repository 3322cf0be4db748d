#include "export/id_renumber.h"

#include <optional>

#include "event/format.h"
#include "export/process_table.h"

namespace rastrace::exporter {

namespace {

constexpr size_t kProcessTidOffset = 8;  // 00A/0x100 buffer: ppid:8 tid:8 S2 path
// 00A subhooks of parts export does not depend on (docs/log-format.md): the session's loader entry
// (generic, data word pid) and rastrace recover's trace cut (words pid, tid).
constexpr uint16_t kUtilLoaderEntry = 0x0106;
constexpr uint16_t kUtilTraceCut = 0x0107;

// The data words that hold thread or process ids, for the non-generic events rastrace writes
// (docs/session.md, docs/log-format.md); a bit per word.
unsigned IdWords(const event::EventFields& f, std::optional<uint16_t> util_subhook) {
  if (util_subhook) {
    if (*util_subhook == kUtilTraceCut) return 0b11;           // pid, tid
    if (*util_subhook == event::kUtilRenumbered) return 0b10;  // the id in this log
    return 0;
  }
  switch (f.hook_id) {
    case event::kHookLost:
      return 0b10;  // events lost, thread id
    case event::kHookDispatch:
      return 0b101;  // tid, priority, old tid
    case event::kHookIdle:
      return 0b1;  // old tid
    case event::kHookFork:
      return 0b11;  // child pid, parent pid
    case event::kHookExit:
      return 0b1;  // pid
    default:
      return 0;
  }
}

}  // namespace

uint64_t IdRenumberer::Map(size_t origin, uint64_t id, std::vector<Renumbered>& added) {
  if (id == 0) return 0;  // the idle task on every machine, and "no thread"
  if (renumbered_.size() <= origin) renumbered_.resize(origin + 1);
  auto& mine = renumbered_[origin];
  if (const auto it = mine.find(id); it != mine.end()) return it->second;
  const auto [owner, first] = owner_.try_emplace(id, origin);
  if (first || owner->second == origin) return id;
  // Another source had it first: a new id no source has used (nor will be given again).
  while (owner_.contains(next_)) ++next_;
  const uint64_t to = next_++;
  owner_.emplace(to, kNewId);
  mine.emplace(id, to);
  added.push_back(Renumbered{id, to});
  return to;
}

void IdRenumberer::Apply(size_t origin, event::Layout layout, ByteOrder order,
                         event::EventFields& fields, std::vector<uint8_t>& buffer,
                         std::vector<Renumbered>& added) {
  fields.thread_id = Map(origin, fields.thread_id, added);
  const bool util = fields.hook_id == event::kHookUtil;
  std::optional<uint16_t> subhook;
  if (util) {
    subhook = fields.subhook;
    if (fields.generic && layout == event::Layout::k32) subhook = std::nullopt;  // not ours
  }
  if (fields.generic) {
    if (!subhook && util) return;
    if (subhook) {
      switch (*subhook) {
        case event::kUtilProcess:
          fields.generic_word = Map(origin, fields.generic_word, added);
          if (fields.buffer.size() >= kProcessTidOffset + 8) {
            buffer.assign(fields.buffer.begin(), fields.buffer.end());
            Store<uint64_t>(buffer.data(), Map(origin, Load64(buffer.data(), order), added), order);
            Store<uint64_t>(buffer.data() + kProcessTidOffset,
                            Map(origin, Load64(buffer.data() + kProcessTidOffset, order), added),
                            order);
            fields.buffer = buffer;
          }
          return;
        case event::kUtilExec:
        case event::kUtilThreadName:
        case kUtilLoaderEntry:
          fields.generic_word = Map(origin, fields.generic_word, added);
          return;
        default:
          return;
      }
    }
    if (fields.hook_id == event::kHookExec) {
      fields.generic_word = Map(origin, fields.generic_word, added);
    } else if (fields.hook_id == event::kHookDynamicTracepoint) {
      const uint64_t pid = Map(origin, fields.generic_word >> 32, added);
      fields.generic_word = (fields.generic_word & 0xFFFF'FFFF) | pid << 32;
    }
    return;
  }
  if (layout != event::Layout::k64 && !util) return;
  const unsigned words = IdWords(fields, subhook);
  for (unsigned i = 0; i < fields.word_count && i < event::kMaxDataWords; ++i) {
    if (words & (1u << i)) fields.words[i] = Map(origin, fields.words[i], added);
  }
}

}  // namespace rastrace::exporter
