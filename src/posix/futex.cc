#include "posix/futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace rastrace::posix {

int FutexWait(std::atomic<uint32_t>& word, uint32_t expected, const timespec* deadline) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  long rc = syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word),
                    FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, expected, deadline, nullptr,
                    FUTEX_BITSET_MATCH_ANY);
  if (rc == 0) return 0;
  if (errno == ETIMEDOUT) return ETIMEDOUT;
  if (errno == EINTR) return EINTR;
  return 0;  // EAGAIN: the word already changed
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

timespec RealtimeAfterMs(long ms) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  now.tv_sec += ms / 1000;
  now.tv_nsec += (ms % 1000) * 1000000L;
  if (now.tv_nsec >= 1000000000L) {
    now.tv_nsec -= 1000000000L;
    ++now.tv_sec;
  }
  return now;
}

bool TimespecBefore(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

}  // namespace rastrace::posix
