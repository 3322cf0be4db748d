#include "report/parallel_report.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rastrace::report {

namespace {

constexpr size_t kBatchEvents = 4096;
constexpr size_t kBatchBytes = 1 << 20;

// Events copied out of the reader, with the text each gets.
struct Batch {
  struct Item {
    PreparedEvent prepared;
    event::Event event;
    size_t bytes_at, buffer_at;
  };
  std::vector<uint8_t> arena;
  std::vector<Item> items;
  std::vector<tmpl::EvalOutput> outputs;
  bool done = false;

  size_t Append(std::span<const uint8_t> bytes) {
    size_t at = arena.size();
    arena.insert(arena.end(), bytes.begin(), bytes.end());
    return at;
  }
  void Add(const PreparedEvent& prepared) {
    // The exec path and process name point into the process table, whose strings live as long
    // as the report: only the event's own bytes need copying.
    Item item{prepared, *prepared.event, 0, 0};
    item.bytes_at = Append(prepared.event->bytes);
    item.buffer_at = Append(prepared.event->buffer);
    items.push_back(item);
  }
  // Points every span of the items into the arena, which no longer grows.
  void Seal() {
    const uint8_t* base = arena.data();
    for (Item& item : items) {
      item.event.bytes = {base + item.bytes_at, item.event.bytes.size()};
      item.event.buffer = {base + item.buffer_at, item.event.buffer.size()};
      item.prepared.event = &item.event;
    }
    if (outputs.size() < items.size()) outputs.resize(items.size());
  }
  void Reset() {
    arena.clear();
    items.clear();
    done = false;
  }
};

class WorkQueue {
 public:
  void Push(Batch* batch) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(batch);
    }
    work_ready_.notify_one();
  }
  // Null when closed.
  Batch* Pop() {
    std::unique_lock lock(mutex_);
    work_ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return nullptr;
    Batch* batch = queue_.front();
    queue_.pop_front();
    return batch;
  }
  void MarkDone(Batch* batch) {
    {
      std::lock_guard lock(mutex_);
      batch->done = true;
    }
    batch_done_.notify_all();
  }
  void WaitDone(Batch* batch) {
    std::unique_lock lock(mutex_);
    batch_done_.wait(lock, [&] { return batch->done; });
  }
  void Close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      queue_.clear();
    }
    work_ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable work_ready_, batch_done_;
  std::deque<Batch*> queue_;
  bool closed_ = false;
};

// Batches move from the reading thread to the workers and, in log order, to the layout thread;
// a fixed set of them is recycled, which bounds memory.
class BatchPool {
 public:
  explicit BatchPool(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      batches_.push_back(std::make_unique<Batch>());
      batches_.back()->arena.reserve(kBatchBytes + 65536);
      spare_.push_back(batches_.back().get());
    }
  }
  // A spare batch, or null once the report stopped.
  Batch* Acquire() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || !spare_.empty(); });
    if (stopped_) return nullptr;
    Batch* batch = spare_.back();
    spare_.pop_back();
    return batch;
  }
  void Release(Batch* batch) {
    batch->Reset();
    {
      std::lock_guard lock(mutex_);
      spare_.push_back(batch);
    }
    changed_.notify_all();
  }
  // Hands a filled batch to the layout thread (after the workers).
  void Publish(Batch* batch) {
    {
      std::lock_guard lock(mutex_);
      in_order_.push_back(batch);
    }
    changed_.notify_all();
  }
  void EndOfInput() {
    {
      std::lock_guard lock(mutex_);
      input_ended_ = true;
    }
    changed_.notify_all();
  }
  // The oldest published batch; null when the input ended and all were taken.
  Batch* NextInOrder() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return input_ended_ || !in_order_.empty(); });
    if (in_order_.empty()) return nullptr;
    Batch* batch = in_order_.front();
    in_order_.pop_front();
    return batch;
  }
  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Batch>> batches_;
  std::vector<Batch*> spare_;
  std::deque<Batch*> in_order_;
  bool input_ended_ = false;
  bool stopped_ = false;
};

}  // namespace

void RunParallel(const StageSet& stages, unsigned jobs) {
  WorkQueue queue;
  BatchPool pool(2 * static_cast<size_t>(jobs) + 2);
  std::vector<std::jthread> workers;
  for (unsigned i = 0; i < jobs; ++i) {
    workers.emplace_back([&] {
      Formatter formatter(stages.templates, stages.index, stages.source.processes(),
                          stages.warnings, stages.raw, stages.tracepoints);
      while (Batch* batch = queue.Pop()) {
        for (size_t k = 0; k < batch->items.size(); ++k) {
          formatter.Format(batch->items[k].prepared, batch->outputs[k]);
        }
        queue.MarkDone(batch);
      }
    });
  }
  // Layout runs on its own thread, in log order, while the calling thread reads ahead.
  std::jthread layout([&] {
    bool stopped = false;
    while (Batch* batch = pool.NextInOrder()) {
      queue.WaitDone(batch);
      for (size_t k = 0; k < batch->items.size() && !stopped; ++k) {
        if (!stages.emitter.Emit(batch->items[k].prepared, batch->outputs[k])) {
          stopped = true;
          pool.Stop();
        }
        stages.sink.MaybeFlush();
      }
      pool.Release(batch);
    }
  });

  PreparedEvent prepared;
  bool ended = false;
  while (!ended) {
    Batch* batch = pool.Acquire();
    if (batch == nullptr) break;  // $STOP
    while (batch->items.size() < kBatchEvents && batch->arena.size() < kBatchBytes) {
      if (!stages.preparer.Next(prepared)) {
        ended = true;
        break;
      }
      batch->Add(prepared);
      stages.progress.Tick(stages.source.bytes_read());
    }
    if (batch->items.empty()) {
      pool.Release(batch);
      break;
    }
    batch->Seal();
    queue.Push(batch);
    pool.Publish(batch);
  }
  pool.EndOfInput();
  layout.join();
  queue.Close();
  for (auto& worker : workers) worker.join();
}

}  // namespace rastrace::report
