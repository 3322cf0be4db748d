// syscalls: the kernel's system call entries (101) and returns (104) that system-wide sessions
// write (docs/session.md), paired per thread. An entry whose return is not in the trace (the
// call never returned, or its return was lost) keeps a NULL duration; a return whose entry is not
// in the trace (the call began before tracing did) keeps a NULL entry time.
#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/byte_order.h"
#include "event/format.h"
#include "event/s2.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

// As sessions write them: 101's buffer holds six 8-byte arguments, then the call's name (S2);
// 104's buffer holds the name. The data word is the call's number (101) or its return value (104).
constexpr size_t kArguments = 6;
constexpr size_t kNameOffset = kArguments * 8;

struct Key {
  size_t source;
  uint64_t tid;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return static_cast<size_t>(k.tid * 0x9E3779B97F4A7C15ull ^ k.source);
  }
};

struct Call {
  bool open = false;
  int64_t ts = 0;
  int64_t event = 0;
  std::optional<uint64_t> pid;
  std::optional<uint64_t> nr;
  std::string_view name;  // interned
  std::array<std::optional<uint64_t>, kArguments> args;
};

class SyscallFiller : public Filler {
 public:
  explicit SyscallFiller(RecordTable& rows) : rows_(rows) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    if (e.hook_id == event::kHookSystemCall) return Entry(row);
    if (e.hook_id == event::kHookSyscallReturn) return Return(row);
    return Ok();
  }

  bool Wants(uint16_t hook_id) const override {
    return hook_id == event::kHookSystemCall || hook_id == event::kHookSyscallReturn;
  }

  Result<void> Finish(int64_t) override {
    // Calls still open at the end, in the order they began.
    std::vector<std::pair<Key, const Call*>> open;
    for (const auto& [key, slot] : slots_) {
      if (calls_[slot].open) open.emplace_back(key, &calls_[slot]);
    }
    std::sort(open.begin(), open.end(),
              [](const auto& a, const auto& b) { return a.second->event < b.second->event; });
    for (const auto& [key, call] : open) {
      if (auto done = Write(key, call, nullptr); !done) return done;
    }
    slots_.clear();
    calls_.clear();
    return rows_.Finish();
  }

 private:
  struct Exit {
    int64_t ts = 0;
    int64_t event = 0;
    std::optional<int64_t> ret;
  };

  Result<void> Entry(const LoadedEvent& row) {
    const event::Event& e = *row.event;
    const Key key{row.source, e.thread_id};
    Call call;
    call.open = true;
    call.ts = row.ts;
    call.event = row.id;
    call.pid = row.pid;
    if (e.generic) {
      call.nr = e.generic_word;
      const ByteOrder order = row.item->byte_order;
      for (size_t i = 0; i < kArguments && (i + 1) * 8 <= e.buffer.size(); ++i) {
        call.args[i] = Load64(e.buffer.data() + i * 8, order);
      }
      if (const auto name = event::ReadS2(e.buffer, kNameOffset, order)) {
        call.name = NameOfCall(e.generic_word, *name);
      }
    } else {
      // AIX's own SVC hook: no name, the data words as they are.
      for (unsigned i = 0; i < e.word_count && i < kArguments; ++i) call.args[i] = e.words[i];
    }
    Call* open = Slot(key, true);
    if (open == nullptr) return Ok();  // past kMaxThreads
    if (open->open) {
      // The thread entered a call while in one: the first one's return was lost (or it never
      // returns, like exit): it ends without a duration.
      if (auto done = Write(key, open, nullptr); !done) return done;
    }
    *open = call;
    return Ok();
  }

  // The thread's slot (a call, open or not), made when `make` and there is room; null otherwise.
  // Slots are kept when their call ends, so a call costs no allocation.
  Call* Slot(const Key& key, bool make) {
    if (last_slot_ != SIZE_MAX && last_key_ == key) return &calls_[last_slot_];
    auto it = slots_.find(key);
    if (it == slots_.end()) {
      if (!make || slots_.size() >= kMaxThreads) return nullptr;
      it = slots_.emplace(key, calls_.size()).first;
      calls_.emplace_back();
    }
    last_key_ = key;
    last_slot_ = it->second;
    return &calls_[it->second];
  }

  // The interned name of call `nr` named `name`: most entries name the call their number named
  // last time, which costs a comparison instead of a hash.
  std::string_view NameOfCall(uint64_t nr, std::string_view name) {
    if (nr < by_nr_.size() && by_nr_[nr] == name) return by_nr_[nr];
    const std::string_view interned = Intern(name);
    if (nr < kNamesByNr) {
      if (by_nr_.size() <= nr) by_nr_.resize(nr + 1);
      by_nr_[nr] = interned;
    }
    return interned;
  }

  Result<void> Return(const LoadedEvent& row) {
    const event::Event& e = *row.event;
    const Key key{row.source, e.thread_id};
    Exit exit;
    exit.ts = row.ts;
    exit.event = row.id;
    std::string_view name;
    if (e.generic) {
      exit.ret = static_cast<int64_t>(e.generic_word);
      if (const auto text = event::ReadS2(e.buffer, 0, row.item->byte_order)) name = *text;
    } else if (e.word_count >= 1) {
      exit.ret = static_cast<int64_t>(e.words[0]);
    }
    Call* open = Slot(key, false);
    if (open != nullptr && !open->open) open = nullptr;
    if (open != nullptr && (name.empty() || open->name.empty() || name == open->name)) {
      open->open = false;
      return Write(key, open, &exit);
    }
    if (open != nullptr) {
      // Another call's return: the open one's return was lost.
      open->open = false;
      if (auto done = Write(key, open, nullptr); !done) return done;
    }
    Call unknown;
    unknown.name = name.empty() ? name : Intern(name);
    unknown.pid = row.pid;
    return Write(key, nullptr, &exit, &unknown);
  }

  // One row: `call` (null: the entry is not in the trace; `fallback` then gives the name and
  // pid) and `exit` (null: the return is not in the trace).
  Result<void> Write(const Key& key, const Call* call, const Exit* exit,
                     const Call* fallback = nullptr) {
    const Call& c = call != nullptr ? *call : *fallback;
    const bool both = call != nullptr && exit != nullptr;
    RecordTable& r = rows_;
    r.Optional(call != nullptr ? std::optional(call->ts) : std::nullopt);
    r.Optional(both ? std::optional(exit->ts - call->ts) : std::nullopt);
    r.Optional(exit != nullptr ? std::optional(exit->ts) : std::nullopt);
    r.Int(static_cast<int64_t>(key.source));
    r.Int(AsSql(key.tid));
    r.Optional(c.pid);
    r.TextOrNull(c.name);
    r.Optional(c.nr);
    r.Optional(exit != nullptr ? exit->ret : std::nullopt);
    for (size_t i = 0; i < kArguments; ++i) r.Optional(c.args[i]);
    r.Optional(call != nullptr ? std::optional(call->event) : std::nullopt);
    r.Optional(exit != nullptr ? std::optional(exit->event) : std::nullopt);
    return r.EndRow();
  }

  std::string_view Intern(std::string_view name) {
    // A system has a few hundred calls; a corrupt log could invent more, so stop at a bound.
    if (const auto it = names_.find(name); it != names_.end()) return *it;
    if (names_.size() >= 4096) return "?";
    return *names_.emplace(name).first;
  }

  // Names remembered by call number, below this number (a system has a few hundred calls).
  static constexpr uint64_t kNamesByNr = 4096;

  RecordTable& rows_;
  std::unordered_map<Key, size_t, KeyHash> slots_;  // thread -> its slot in calls_
  std::vector<Call> calls_;
  Key last_key_{};
  size_t last_slot_ = SIZE_MAX;
  std::vector<std::string_view> by_nr_;
  // Interned names: views into them stay valid (node-based set).
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_set<std::string, NameHash, std::equal_to<>> names_;
};

}  // namespace

std::unique_ptr<Filler> MakeSyscallFiller(RecordTable& syscalls) {
  return std::make_unique<SyscallFiller>(syscalls);
}

}  // namespace rastrace::query
