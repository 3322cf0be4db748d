#include "template/value_format.h"

#include <string.h>

#include <ctime>

namespace rastrace::tmpl {
namespace {

// errno values on Linux stay well below this.
constexpr int kMaxErrno = 256;

}  // namespace

std::string_view ErrnoName(int64_t value) {
  if (value <= 0 || value >= kMaxErrno) return {};
  const char* name = strerrorname_np(static_cast<int>(value));
  return name != nullptr ? std::string_view(name) : std::string_view();
}

int ErrnoFromName(std::string_view name) {
  for (int i = 1; i < kMaxErrno; ++i) {
    if (ErrnoName(i) == name) return i;
  }
  return -1;
}

void AppendCtime(uint64_t seconds, std::string& out) {
  std::time_t t = static_cast<std::time_t>(static_cast<uint32_t>(seconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  out.append(buf, n);
}

}  // namespace rastrace::tmpl
