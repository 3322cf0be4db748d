// Starting a thread and returning only once it runs. A thread allocates while it starts (glibc's
// pthread_getattr_np, a sanitizer's own bookkeeping); a program that forks at that moment leaves
// an allocator that is not fork-safe (gcc 12's ASan) locked in its child, which deadlocks there.
// The library's own threads are started this way so that a fork right after starting them is
// safe.
#pragma once

#include <atomic>
#include <thread>
#include <utility>

namespace rastrace {

template <class Function>
std::thread StartThreadAndWait(Function function) {
  std::atomic<bool> running{false};
  std::thread thread([&running, function = std::move(function)]() mutable {
    // The last touch of `running`: the starter's frame may be gone as soon as it is set.
    running.store(true, std::memory_order_release);
    function();
  });
  while (!running.load(std::memory_order_acquire)) std::this_thread::yield();
  return thread;
}

}  // namespace rastrace
