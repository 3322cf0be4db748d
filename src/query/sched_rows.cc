// sched: the kernel's context switches that system-wide sessions write: 106 DISPATCH (words: the
// thread dispatched, its priority, the thread switched out, its state, the cpu) and 10C DISPATCH
// IDLE PROCESS (the thread switched out, its state, the cpu). A row's duration is how long the
// thread switched in ran: until the next switch on that cpu.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "event/format.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

struct Switch {
  int64_t ts = 0;
  int64_t event = 0;
  uint64_t cpu = 0;
  size_t source = 0;
  uint64_t prev_tid = 0;
  std::optional<uint64_t> prev_pid;
  char prev_state = '?';
  uint64_t next_tid = 0;
  std::optional<uint64_t> next_pid;
  std::optional<uint64_t> next_prio;
};

struct Key {
  size_t source;
  uint64_t cpu;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return static_cast<size_t>(k.cpu * 0x9E3779B97F4A7C15ull ^ k.source);
  }
};

class SchedFiller : public Filler {
 public:
  explicit SchedFiller(RecordTable& rows) : rows_(rows) {}

  bool Wants(uint16_t hook_id) const override {
    return hook_id == event::kHookDispatch || hook_id == event::kHookIdle;
  }

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    if (e.generic) return Ok();
    Switch s;
    if (e.hook_id == event::kHookDispatch && e.word_count >= 5) {
      s.next_tid = e.words[0];
      s.next_prio = e.words[1];
      s.prev_tid = e.words[2];
      s.prev_state = StateChar(e.words[3]);
      s.cpu = e.words[4];
    } else if (e.hook_id == event::kHookIdle && e.word_count >= 3) {
      s.prev_tid = e.words[0];
      s.prev_state = StateChar(e.words[1]);
      s.cpu = e.words[2];
    } else {
      return Ok();
    }
    s.ts = row.ts;
    s.event = row.id;
    s.source = row.source;
    s.prev_pid = row.origin->processes.PidOf(s.prev_tid);
    if (s.next_tid != 0) s.next_pid = row.origin->processes.PidOf(s.next_tid);
    auto it = pending_.find({row.source, s.cpu});
    if (it == pending_.end()) {
      if (pending_.size() < kMaxThreads) pending_.emplace(Key{row.source, s.cpu}, s);
      return Ok();
    }
    auto done = Write(it->second, row.ts - it->second.ts);
    it->second = s;
    return done;
  }

  Result<void> Finish(int64_t) override {
    std::vector<const Switch*> last;
    for (const auto& [key, s] : pending_) last.push_back(&s);
    std::sort(last.begin(), last.end(), [](auto a, auto b) { return a->event < b->event; });
    for (const Switch* s : last) {
      if (auto done = Write(*s, std::nullopt); !done) return done;
    }
    pending_.clear();
    return rows_.Finish();
  }

 private:
  static char StateChar(uint64_t word) {
    return word >= 0x20 && word < 0x7F ? static_cast<char>(word) : '?';
  }

  Result<void> Write(const Switch& sw, std::optional<int64_t> dur) {
    RecordTable& r = rows_;
    r.Int(sw.ts);
    r.Optional(dur);
    r.Int(AsSql(sw.cpu));
    r.Int(static_cast<int64_t>(sw.source));
    r.Int(AsSql(sw.prev_tid));
    r.Optional(sw.prev_pid);
    r.Text(std::string_view(&sw.prev_state, 1));
    r.Int(AsSql(sw.next_tid));
    r.Optional(sw.next_pid);
    r.Optional(sw.next_prio);
    r.Int(sw.event);
    return r.EndRow();
  }

  RecordTable& rows_;
  std::unordered_map<Key, Switch, KeyHash> pending_;  // the last switch of each cpu
};

}  // namespace

std::unique_ptr<Filler> MakeSchedFiller(RecordTable& sched) {
  return std::make_unique<SchedFiller>(sched);
}

}  // namespace rastrace::query
