// processes and threads: every process and thread a log names or shows running, with its times.
// Kept in memory until the end of the pass (one record per process and thread, as the process
// table itself), then written; a pid or tid taken again after its EXIT is a new row.
#include <string>
#include <unordered_map>
#include <vector>

#include "event/format.h"
#include "event/process_events.h"
#include "query/fillers.h"

namespace rastrace::query {

namespace {

struct Key {
  size_t source;
  uint64_t id;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return static_cast<size_t>(k.id * 0x9E3779B97F4A7C15ull ^ k.source);
  }
};

struct Times {
  std::optional<int64_t> start, end, first, last;
  uint64_t events = 0;
  void Saw(int64_t ts) {
    if (!first) first = ts;
    last = ts;
    ++events;
  }
};

struct ProcessRecord {
  size_t source = 0;
  uint64_t pid = 0;
  size_t main_thread = SIZE_MAX;  // the record of its main thread (tid = pid), when seen
  std::optional<uint64_t> ppid;
  std::string exec;
  bool main_exited = false;
  Times times;
};

struct ThreadRecord {
  size_t source = 0;
  uint64_t tid = 0;
  std::optional<uint64_t> pid;
  std::optional<size_t> process;  // index of the process record it belongs to
  // The process record its events' pid was last found in, valid while processes_generation_ is
  // this: a thread's events find their process without a lookup.
  size_t cached_process = SIZE_MAX;
  uint64_t cached_generation = 0;
  std::string name;
  std::optional<uint64_t> fork_parent_pid;
  bool exited = false;
  Times times;
};

std::string_view BaseName(std::string_view path) {
  return exporter::BaseName(path);
}

class ProcessFiller : public Filler {
 public:
  ProcessFiller(RecordTable& processes, RecordTable& threads)
      : process_rows_(processes), thread_rows_(threads) {}

  Result<void> Add(const LoadedEvent& row) override {
    const event::Event& e = *row.event;
    // Only these hooks say anything about processes (DecodeProcessEvent's and EXIT).
    const bool process_hook = e.hook_id == event::kHookUtil || e.hook_id == event::kHookExec ||
                              e.hook_id == event::kHookFork || e.hook_id == event::kHookExit;
    if (!process_hook) {
      // Nothing to learn: only the thread's times.
    } else if (const auto decoded = event::DecodeProcessEvent(e, row.item->byte_order)) {
      Learn(row, *decoded);
    } else if (e.hook_id == event::kHookExit && !e.generic && e.word_count >= 1) {
      Exit(row, e.words[0]);
    }
    ThreadRecord* thread = Thread(row.source, e.thread_id, false);
    if (thread == nullptr) return Ok();
    thread->times.Saw(row.ts);
    if (row.pid) {
      thread->pid = row.pid;
      const size_t thread_index = current_thread_index_;
      ProcessRecord* process = nullptr;
      if (thread->cached_generation == processes_generation_ &&
          thread->cached_process < processes_.size() &&
          processes_[thread->cached_process].pid == *row.pid) {
        process = &processes_[thread->cached_process];
        current_process_index_ = thread->cached_process;
      } else {
        process = Process(row.source, *row.pid);
        if (process != nullptr) {
          thread->cached_process = current_process_index_;
          thread->cached_generation = processes_generation_;
        }
      }
      if (process != nullptr) {
        thread->process = current_process_index_;
        if (e.thread_id == *row.pid) process->main_thread = thread_index;
        process->times.Saw(row.ts);
      }
    }
    return Ok();
  }

  Result<void> Finish(int64_t) override {
    for (size_t i = 0; i < processes_.size(); ++i) {
      const ProcessRecord& p = processes_[i];
      std::optional<uint64_t> ppid = p.ppid;
      std::optional<int64_t> start;
      std::string_view name = BaseName(p.exec);
      // The process's main thread (tid = pid) knows its FORK and its name.
      if (p.main_thread != SIZE_MAX) {
        const ThreadRecord& t = threads_[p.main_thread];
        start = t.times.start;
        if (!ppid) ppid = t.fork_parent_pid;
        if (name.empty()) name = t.name;
      }
      // Written in record order: upid = i + 1.
      RecordTable& r = process_rows_;
      r.Int(static_cast<int64_t>(p.source));
      r.Int(AsSql(p.pid));
      r.Optional(ppid);
      r.TextOrNull(p.exec);
      r.TextOrNull(name);
      r.Optional(start);
      r.Optional(p.times.end);
      r.Optional(p.times.first);
      r.Optional(p.times.last);
      r.Int(AsSql(p.times.events));
      if (auto done = r.EndRow(); !done) return done;
    }
    for (size_t i = 0; i < threads_.size(); ++i) {
      const ThreadRecord& t = threads_[i];
      RecordTable& r = thread_rows_;  // utid = i + 1
      r.Int(static_cast<int64_t>(t.source));
      r.Int(AsSql(t.tid));
      r.Optional(t.pid);
      if (t.process) {
        r.Int(static_cast<int64_t>(*t.process + 1));
      } else {
        r.Null();
      }
      r.TextOrNull(t.name);
      r.Optional(t.times.start);
      r.Optional(t.times.end);
      r.Optional(t.times.first);
      r.Optional(t.times.last);
      r.Int(AsSql(t.times.events));
      if (auto done = r.EndRow(); !done) return done;
    }
    if (auto done = process_rows_.Finish(); !done) return done;
    return thread_rows_.Finish();
  }

 private:
  void Learn(const LoadedEvent& row, const event::ProcessEvent& decoded) {
    using Kind = event::ProcessEvent::Kind;
    switch (decoded.kind) {
      case Kind::kProcess: {
        if (!decoded.text) return;
        ProcessRecord* process = Process(row.source, decoded.pid);
        if (process != nullptr) {
          if (decoded.parent != 0) process->ppid = decoded.parent;
          if (!decoded.text->empty()) process->exec = std::string(*decoded.text);
        }
        const size_t process_index = current_process_index_;
        if (ThreadRecord* thread = Thread(row.source, decoded.tid, false)) {
          thread->pid = decoded.pid;
          if (process != nullptr) {
            thread->process = process_index;
            if (decoded.tid == decoded.pid) {
              processes_[process_index].main_thread = current_thread_index_;
            }
          }
        }
        return;
      }
      case Kind::kExec:
        if (!decoded.text) return;
        if (ProcessRecord* process = Process(row.source, decoded.pid)) {
          process->exec = std::string(*decoded.text);
        }
        return;
      case Kind::kThreadName:
        if (!decoded.text) return;
        if (ThreadRecord* thread = Thread(row.source, decoded.tid, false)) {
          thread->name = std::string(*decoded.text);
          if (decoded.thread_pid != 0) thread->pid = decoded.thread_pid;
        }
        return;
      case Kind::kFork: {
        // The child is a new thread; whether it is a new process too shows when its events are
        // attributed (a new thread's 00A/100 names its process). A tid seen to exit before is a
        // new thread now, and a pid whose main thread exited a new process.
        ThreadRecord* thread = Thread(row.source, decoded.pid, true);
        if (thread == nullptr) return;
        thread->times.start = row.ts;
        thread->fork_parent_pid =
            row.origin->processes.PidOf(decoded.parent).value_or(decoded.parent);
        if (const auto it = process_index_.find({row.source, decoded.pid});
            it != process_index_.end() && processes_[it->second].main_exited) {
          process_index_.erase(it);
          ++processes_generation_;
        }
        return;
      }
    }
  }

  void Exit(const LoadedEvent& row, uint64_t tid) {
    ThreadRecord* thread = Thread(row.source, tid, false);
    if (thread == nullptr) return;
    thread->times.end = row.ts;
    thread->exited = true;
    if (!thread->process) return;
    ProcessRecord& process = processes_[*thread->process];
    if (tid == process.pid) process.main_exited = true;
    // The process ends with its main thread; threads that exit after it extend it.
    if (process.main_exited) process.times.end = row.ts;
  }

  // The current record of a thread, created when new (nullptr past kMaxThreads). `fresh`: a
  // record whose thread exited is replaced by a new one (a FORK reusing the tid).
  ThreadRecord* Thread(size_t source, uint64_t tid, bool fresh) {
    if (last_thread_ && last_thread_key_ == Key{source, tid} && !fresh) {
      return &threads_[current_thread_index_];
    }
    auto it = thread_index_.find({source, tid});
    if (it != thread_index_.end() && fresh && threads_[it->second].exited) {
      thread_index_.erase(it);
      it = thread_index_.end();
    }
    if (it == thread_index_.end()) {
      if (threads_.size() >= kMaxThreads) return nullptr;
      it = thread_index_.emplace(Key{source, tid}, threads_.size()).first;
      threads_.push_back(ThreadRecord{.source = source, .tid = tid});
    }
    current_thread_index_ = it->second;
    last_thread_ = true;
    last_thread_key_ = Key{source, tid};
    return &threads_[it->second];
  }

  // The current record of a process, created when new (nullptr past kMaxThreads).
  ProcessRecord* Process(size_t source, uint64_t pid) {
    auto it = process_index_.find({source, pid});
    if (it == process_index_.end()) {
      if (processes_.size() >= kMaxThreads) return nullptr;
      it = process_index_.emplace(Key{source, pid}, processes_.size()).first;
      processes_.push_back(ProcessRecord{.source = source, .pid = pid});
      ++processes_generation_;
    }
    current_process_index_ = it->second;
    return &processes_[it->second];
  }

  RecordTable& process_rows_;
  RecordTable& thread_rows_;
  std::vector<ProcessRecord> processes_;
  std::vector<ThreadRecord> threads_;
  std::unordered_map<Key, size_t, KeyHash> process_index_;
  std::unordered_map<Key, size_t, KeyHash> thread_index_;
  // Changes whenever process_index_ does (a thread's cached process may then be stale).
  uint64_t processes_generation_ = 1;
  size_t current_thread_index_ = 0;
  size_t current_process_index_ = 0;
  bool last_thread_ = false;
  Key last_thread_key_{0, 0};
};

}  // namespace

std::unique_ptr<Filler> MakeProcessFiller(RecordTable& processes, RecordTable& threads) {
  return std::make_unique<ProcessFiller>(processes, threads);
}

}  // namespace rastrace::query
