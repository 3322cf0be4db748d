#include "filters.h"

#include <algorithm>
#include <charconv>

namespace rastrace::tracefmt {
namespace {

bool In(const std::vector<uint32_t>& list, uint32_t v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

}  // namespace

bool Filters::Accepts(const stda::Record& r) const {
  // The trailer keeps the low 16 bits of a Linux pid.
  const bool pid_ok = pids.empty() || std::any_of(pids.begin(), pids.end(), [&](uint32_t p) {
                        return (p & 0xFFFF) == r.pid;
                      });
  return In(majors, r.major) && In(minors, r.minor) && pid_ok;
}

Result<std::vector<uint32_t>> ParseNumberList(const std::vector<std::string>& items, uint32_t max,
                                              std::string_view what) {
  std::vector<uint32_t> out;
  for (const std::string& item : items) {
    std::string_view s = item;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s.remove_prefix(2);
      base = 16;
    }
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > max) {
      return MakeError("{} '{}' is not a number from 0 to {:#x} (decimal or 0x hex)", what, item,
                       max);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace rastrace::tracefmt
