// Test helper: keeps the calling thread on the CPU it runs on now (restoring its affinity when
// done), so that it names its CPU exactly once and the hooks' fast path stays open throughout.
#pragma once

#include <sched.h>

namespace rastrace::recorder::testing {

class PinnedToOneCpu {
 public:
  PinnedToOneCpu() {
    sched_getaffinity(0, sizeof(saved_), &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof(one), &one);
  }
  ~PinnedToOneCpu() { sched_setaffinity(0, sizeof(saved_), &saved_); }
  PinnedToOneCpu(const PinnedToOneCpu&) = delete;
  PinnedToOneCpu& operator=(const PinnedToOneCpu&) = delete;

 private:
  cpu_set_t saved_;
};

}  // namespace rastrace::recorder::testing
