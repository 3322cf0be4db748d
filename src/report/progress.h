// "trcrpt: 42% (1.2 of 2.9 GiB)" on stderr, at most a few times a second, for long reports when
// stderr is a terminal. Silent otherwise, so pipes and tests see nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace rastrace::report {

class Progress {
 public:
  Progress(std::FILE* err, uint64_t total_bytes);
  ~Progress();
  // Cheap enough to call for every event: looks at the clock every 64 Ki calls.
  void Tick(uint64_t bytes_done) {
    if (enabled_ && (++calls_ & 0xFFFF) == 0) Show(bytes_done);
  }
  void Finish();

 private:
  void Show(uint64_t bytes_done);
  std::FILE* err_;
  uint64_t total_bytes_;
  bool enabled_;
  bool shown_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace rastrace::report
