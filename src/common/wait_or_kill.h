// Waiting for a child process with a deadline, for tests that fork: a child hung (say, in a fork
// hazard) must fail its test, not hang the suite.
#pragma once

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <optional>

namespace rastrace {

// The child's wait status once it ends; when it is still running after `timeout`, it is killed
// (SIGKILL), reaped, and the result is empty.
inline std::optional<int> WaitOrKill(pid_t child, std::chrono::milliseconds timeout) {
  constexpr auto kPoll = std::chrono::milliseconds(10);
  for (auto waited_for = std::chrono::milliseconds(0); waited_for < timeout; waited_for += kPoll) {
    int status = 0;
    const pid_t waited = waitpid(child, &status, WNOHANG);
    if (waited == child) return status;
    if (waited < 0 && errno != EINTR) return std::nullopt;
    timespec pause{0, static_cast<long>(std::chrono::nanoseconds(kPoll).count())};
    nanosleep(&pause, nullptr);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return std::nullopt;
}

}  // namespace rastrace
