// A progress bar on standard error for long operations, drawn only when standard error is a
// terminal and only once the operation has run for a while (a quick export prints nothing).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rastrace::exporter {

class Progress {
 public:
  // `total_bytes` 0: unknown, the bar shows counts only. `enabled` false: never draws (tests,
  // pipes); Progress::ForStderr decides it from isatty.
  Progress(std::string label, uint64_t total_bytes, bool enabled, std::FILE* out = stderr);
  static Progress ForStderr(std::string label, uint64_t total_bytes);
  ~Progress();  // clears the bar's line

  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  Progress(Progress&&) noexcept;
  Progress& operator=(Progress&&) = delete;

  // Cheap enough to call per event: looks at the clock only every few thousand calls.
  void Update(uint64_t bytes_done, uint64_t events_done) {
    if (!enabled_ || ++calls_ % kCallsPerClockRead != 0) return;
    Redraw(bytes_done, events_done);
  }

  // The line drawn for these figures (tests check it).
  std::string Line(uint64_t bytes_done, uint64_t events_done, double seconds) const;

 private:
  static constexpr uint64_t kCallsPerClockRead = 4096;
  void Redraw(uint64_t bytes_done, uint64_t events_done);

  std::string label_;
  uint64_t total_bytes_ = 0;
  bool enabled_ = false;
  bool drawn_ = false;
  std::FILE* out_ = stderr;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace rastrace::exporter
