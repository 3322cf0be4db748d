#include "report/progress.h"

#include <unistd.h>

namespace rastrace::report {

Progress::Progress(std::FILE* err, uint64_t total_bytes)
    : err_(err),
      total_bytes_(total_bytes),
      enabled_(err != nullptr && ::isatty(::fileno(err)) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  Finish();
}

void Progress::Show(uint64_t bytes_done) {
  auto now = std::chrono::steady_clock::now();
  // Short reports print nothing; long ones update four times a second.
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(250)) {
    return;
  }
  last_ = now;
  shown_ = true;
  constexpr double kMiB = 1024.0 * 1024.0;
  if (total_bytes_ != 0) {
    std::fprintf(err_, "\rtrcrpt: %3d%% (%.0f of %.0f MiB)",
                 static_cast<int>(100.0 * static_cast<double>(bytes_done) /
                                  static_cast<double>(total_bytes_)),
                 static_cast<double>(bytes_done) / kMiB, static_cast<double>(total_bytes_) / kMiB);
  } else {
    std::fprintf(err_, "\rtrcrpt: %.0f MiB", static_cast<double>(bytes_done) / kMiB);
  }
  std::fflush(err_);
}

void Progress::Finish() {
  if (!shown_) return;
  shown_ = false;
  std::fprintf(err_, "\r%40s\r", "");
  std::fflush(err_);
}

}  // namespace rastrace::report
