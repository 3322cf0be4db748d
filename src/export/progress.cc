#include "export/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace rastrace::exporter {

namespace {

using Clock = std::chrono::steady_clock;
// A bar appears only for operations that last longer than this...
constexpr auto kQuietPeriod = std::chrono::milliseconds(700);
// ...and is redrawn at most this often.
constexpr auto kRedrawPeriod = std::chrono::milliseconds(200);
constexpr int kBarWidth = 30;

std::string HumanBytes(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace

Progress::Progress(std::string label, uint64_t total_bytes, bool enabled, std::FILE* out)
    : label_(std::move(label)),
      total_bytes_(total_bytes),
      enabled_(enabled),
      out_(out),
      start_(Clock::now()),
      last_draw_(start_) {}

Progress::Progress(Progress&& other) noexcept
    : label_(std::move(other.label_)),
      total_bytes_(other.total_bytes_),
      enabled_(other.enabled_),
      drawn_(other.drawn_),
      out_(other.out_),
      calls_(other.calls_),
      start_(other.start_),
      last_draw_(other.last_draw_) {
  other.enabled_ = false;
  other.drawn_ = false;
}

Progress Progress::ForStderr(std::string label, uint64_t total_bytes) {
  return Progress(std::move(label), total_bytes, isatty(STDERR_FILENO) == 1, stderr);
}

Progress::~Progress() {
  if (drawn_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

std::string Progress::Line(uint64_t bytes_done, uint64_t events_done, double seconds) const {
  const double rate = seconds > 0 ? static_cast<double>(events_done) / seconds : 0;
  if (total_bytes_ == 0) {
    return fmt::format("{}: {} read, {} events ({:.0f}/s)", label_, HumanBytes(bytes_done),
                       events_done, rate);
  }
  const double fraction =
      std::min(1.0, static_cast<double>(bytes_done) / static_cast<double>(total_bytes_));
  const int filled = static_cast<int>(fraction * kBarWidth);
  return fmt::format("{}: [{}{}] {:3.0f}% {} / {}, {} events ({:.0f}/s)", label_,
                     std::string(static_cast<size_t>(filled), '#'),
                     std::string(static_cast<size_t>(kBarWidth - filled), '.'), fraction * 100,
                     HumanBytes(bytes_done), HumanBytes(total_bytes_), events_done, rate);
}

void Progress::Redraw(uint64_t bytes_done, uint64_t events_done) {
  const auto now = Clock::now();
  if (now - start_ < kQuietPeriod || now - last_draw_ < kRedrawPeriod) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  fmt::print(out_, "\r\033[K{}", Line(bytes_done, events_done, seconds));
  std::fflush(out_);
  drawn_ = true;
}

}  // namespace rastrace::exporter
