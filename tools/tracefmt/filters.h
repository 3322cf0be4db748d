// Record filters of tracefmt: lists of majors, minors and pids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "stda/stda.h"

namespace rastrace::tracefmt {

struct Filters {
  std::vector<uint32_t> majors, minors, pids;  // empty: any; a pid matches by its low 16 bits
  bool Accepts(const stda::Record& r) const;
};

// "0x64,100" -> {0x64, 100}; decimal or 0x hex, each at most `max`.
Result<std::vector<uint32_t>> ParseNumberList(const std::vector<std::string>& items, uint32_t max,
                                              std::string_view what);

}  // namespace rastrace::tracefmt
