// slices: begin/end pairs as the exports declare them (export/pairs.h: system calls, TRACE ON to
// OFF, POSIX trace start to stop...) and dynamic tracepoint entries to their returns (00A/109
// definitions), nested per thread like the Chrome export's slices. A slice whose end is not in
// the trace keeps a NULL duration and says why in `unterminated`.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "event/format.h"
#include "event/s2.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

constexpr size_t kTracepointRule = SIZE_MAX;
constexpr std::string_view kTracepointCategory = "tracepoint";
// Deeper nesting than this on one track only comes from a corrupt log: the oldest open slice
// ends (unterminated) so memory stays bounded.
constexpr size_t kMaxDepth = 4096;

struct Track {
  size_t source = 0;
  bool global = false;
  uint64_t id = 0;  // thread scope: the tid; global: the rule
  uint64_t key = 0;
  bool operator==(const Track&) const = default;
};
struct TrackHash {
  size_t operator()(const Track& t) const {
    return static_cast<size_t>((t.id * 0x9E3779B97F4A7C15ull) ^ (t.key * 0xC2B2AE3D27D4EB4Full) ^
                               t.source ^ (t.global ? 0x5555 : 0));
  }
};

struct Open {
  size_t rule = 0;
  uint64_t key = 0;
  int64_t ts = 0;
  int64_t event = 0;
  std::string name;
  std::optional<uint64_t> pid;
};

class SliceFiller : public Filler {
 public:
  SliceFiller(RecordTable& rows, exporter::PairTable pairs)
      : rows_(rows), pairs_(std::move(pairs)) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    if (const exporter::TracepointDef* def = row.origin->tracepoints.FindHit(e)) {
      const Track track{row.source, false, e.thread_id, 0};
      const uint64_t key = ProcedureKey(def->name);
      if (def->kind == exporter::TracepointKind::kEntry) {
        return Begin(track, Open{kTracepointRule, key, row.ts, row.id, def->name, row.pid});
      }
      if (def->kind == exporter::TracepointKind::kReturn) {
        return End(track, kTracepointRule, key, row, def->name);
      }
      return Ok();
    }
    const auto role = pairs_.Find(e);
    if (!role) return Ok();
    const exporter::PairRule& rule = pairs_.rule(role->rule);
    const bool global = rule.scope == exporter::PairScope::kGlobal;
    const Track track{row.source, global, global ? role->rule : e.thread_id,
                      global ? role->key : 0};
    if (role->begins) {
      std::string_view name = rule.name;
      if (rule.name_in_buffer && e.generic) {
        const auto named = event::ReadS2(e.buffer, *rule.name_in_buffer, row.item->byte_order);
        if (named && !named->empty()) name = *named;
      }
      return Begin(track, Open{role->rule, role->key, row.ts, row.id, std::string(name),
                               global ? std::nullopt : row.pid});
    }
    return End(track, role->rule, role->key, row, rule.name);
  }

  bool Wants(uint16_t hook_id) const override {
    return hook_id == event::kHookDynamicTracepoint || pairs_.HasRulesFor(hook_id);
  }

  Result<void> Finish(int64_t) override {
    // Slices still open, oldest first.
    std::vector<std::pair<const Track*, size_t>> open;
    for (const auto& [track, stack] : open_) {
      for (size_t depth = 0; depth < stack.size(); ++depth) open.emplace_back(&track, depth);
    }
    std::sort(open.begin(), open.end(), [this](const auto& a, const auto& b) {
      return open_.at(*a.first)[a.second].event < open_.at(*b.first)[b.second].event;
    });
    for (const auto& [track, depth] : open) {
      const Open& slice = open_.at(*track)[depth];
      if (auto done = Write(*track, slice, depth, nullptr, "open at the end of the trace"); !done) {
        return done;
      }
    }
    open_.clear();
    last_stack_ = nullptr;
    return rows_.Finish();
  }

 private:
  Result<void> Begin(const Track& track, Open slice) {
    std::vector<Open>* found = Stack(track, true);
    if (found == nullptr) return Ok();  // past kMaxThreads
    auto& stack = *found;
    if (stack.size() >= kMaxDepth) {
      if (auto done = Write(track, stack.front(), 0, nullptr, "nested too deep"); !done) {
        return done;
      }
      stack.erase(stack.begin());
    }
    stack.push_back(std::move(slice));
    return Ok();
  }

  Result<void> End(const Track& track, size_t rule, uint64_t key, const LoadedEvent& row,
                   std::string_view name) {
    std::vector<Open>* found = Stack(track, false);
    size_t match = 0;
    if (found != nullptr) {
      auto& stack = *found;
      match = stack.size();
      while (match > 0 && !(stack[match - 1].rule == rule && stack[match - 1].key == key)) --match;
    }
    if (match == 0) {
      // Its begin is not in the trace (it began before tracing did).
      Open end{rule, key, row.ts, row.id, std::string(name), track.global ? std::nullopt : row.pid};
      return Write(track, end, 0, &row, "begin not in the trace", true);
    }
    auto& stack = *found;
    // Slices opened above the one this event closes never saw their end (events lost).
    while (stack.size() > match) {
      if (auto done = Write(track, stack.back(), stack.size() - 1, nullptr, "end not in the trace");
          !done) {
        return done;
      }
      stack.pop_back();
    }
    auto done = Write(track, stack.back(), stack.size() - 1, &row, {});
    stack.pop_back();
    return done;
  }

  // One row. `end`: the closing event (null when not in the trace). `begin_missing`: `slice` is
  // made from the end event, its begin unknown.
  Result<void> Write(const Track& track, const Open& slice, size_t depth, const LoadedEvent* end,
                     std::string_view unterminated, bool begin_missing = false) {
    RecordTable& r = rows_;
    if (begin_missing) {
      r.Null();
    } else {
      r.Int(slice.ts);
    }
    if (end != nullptr && !begin_missing) {
      r.Int(end->ts - slice.ts);
    } else {
      r.Null();
    }
    if (end != nullptr) {
      r.Int(end->ts);
    } else {
      r.Null();
    }
    r.Text(slice.name);
    r.Text(slice.rule == kTracepointRule ? kTracepointCategory
                                         : std::string_view(pairs_.rule(slice.rule).name));
    r.Int(static_cast<int64_t>(depth));
    r.Int(static_cast<int64_t>(track.source));
    if (track.global) {
      r.Null();
      r.Null();
      r.Int(AsSql(track.key));
    } else {
      r.Int(AsSql(track.id));
      r.Optional(slice.pid);
      r.Null();
    }
    if (begin_missing) {
      r.Null();
    } else {
      r.Int(slice.event);
    }
    if (end != nullptr) {
      r.Int(end->id);
    } else {
      r.Null();
    }
    r.TextOrNull(unterminated);
    return r.EndRow();
  }

  // The open slices of `track`, made when `make` and there is room; null otherwise. Events come
  // in runs of one thread, so the last track found is tried first.
  std::vector<Open>* Stack(const Track& track, bool make) {
    if (last_stack_ != nullptr && last_track_ == track) return last_stack_;
    auto it = open_.find(track);
    if (it == open_.end()) {
      if (!make || open_.size() >= kMaxThreads) return nullptr;
      it = open_.emplace(track, std::vector<Open>()).first;
    }
    last_track_ = track;
    last_stack_ = &it->second;  // a node's value: stays put until open_ is cleared
    return last_stack_;
  }

  uint64_t ProcedureKey(std::string_view name) {
    const auto it = procedure_keys_.find(name);
    if (it != procedure_keys_.end()) return it->second;
    const uint64_t key = procedure_keys_.size();
    procedure_keys_.emplace(std::string(name), key);
    return key;
  }

  RecordTable& rows_;
  exporter::PairTable pairs_;
  std::unordered_map<Track, std::vector<Open>, TrackHash> open_;
  Track last_track_;
  std::vector<Open>* last_stack_ = nullptr;
  std::map<std::string, uint64_t, std::less<>> procedure_keys_;
};

}  // namespace

std::unique_ptr<Filler> MakeSliceFiller(RecordTable& slices, exporter::PairTable pairs) {
  return std::make_unique<SliceFiller>(slices, std::move(pairs));
}

}  // namespace rastrace::query
