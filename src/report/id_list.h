// Lists given on the trcrpt command line: hook ids (-d, -k), process and thread ids (-p, -T).
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rastrace::report {

// A set of 16-bit hook ids.
class IdSet {
 public:
  void Add(uint16_t id16) { ids_.set(id16); }
  bool Contains(uint16_t id16) const { return ids_.test(id16); }
  bool empty() const { return ids_.none(); }
  size_t size() const { return ids_.count(); }

 private:
  std::bitset<65536> ids_;
};

// Parses a -d/-k list: items separated by commas or blanks; a 3-digit hex item `hhh` is the one
// id hhh0, a 4-digit item is that 16-bit id, a 2-digit item `hh` is the 16 ids hh0-hhF.
Result<void> ParseIdList(std::string_view text, IdSet& ids);

// Splits a list on commas and blanks, dropping empty items.
std::vector<std::string_view> SplitList(std::string_view text);

// Parses a list of decimal numbers (-T). `what` names the list in errors.
Result<std::vector<uint64_t>> ParseNumberList(std::string_view text, std::string_view what);

}  // namespace rastrace::report
