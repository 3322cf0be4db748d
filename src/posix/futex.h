// Process-shared futex waits and wakes on words in shared memory (no FUTEX_PRIVATE_FLAG, so a
// writer in another process can wake a reader).
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace rastrace::posix {

// Sleeps while *word == expected, until woken or `deadline` (absolute CLOCK_REALTIME, may be null).
// Returns 0 when woken or the word changed, ETIMEDOUT, or EINTR.
int FutexWait(std::atomic<uint32_t>& word, uint32_t expected, const timespec* deadline);
void FutexWakeAll(std::atomic<uint32_t>& word);

// Now (CLOCK_REALTIME) plus `ms` milliseconds.
timespec RealtimeAfterMs(long ms);
// a < b
bool TimespecBefore(const timespec& a, const timespec& b);

}  // namespace rastrace::posix
