#include "report/id_list.h"

#include <charconv>

namespace rastrace::report {

std::vector<std::string_view> SplitList(std::string_view text) {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of(", \t\n", pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) items.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return items;
}

namespace {

bool ParseHex(std::string_view item, unsigned& value) {
  auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value, 16);
  return ec == std::errc() && ptr == item.data() + item.size();
}

}  // namespace

Result<void> ParseIdList(std::string_view text, IdSet& ids) {
  auto items = SplitList(text);
  if (items.empty()) return MakeError("empty hook id list");
  for (std::string_view item : items) {
    unsigned value = 0;
    if (!ParseHex(item, value) || item.size() < 2 || item.size() > 4) {
      return MakeError(
          "bad hook id '{}' in list '{}': expected 2 (hh), 3 (hhh) or 4 (hhhh) hex digits", item,
          text);
    }
    if (item.size() == 2) {
      for (unsigned low = 0; low < 16; ++low)
        ids.Add(static_cast<uint16_t>((value << 8) | (low << 4)));
    } else if (item.size() == 3) {
      ids.Add(static_cast<uint16_t>(value << 4));
    } else {
      ids.Add(static_cast<uint16_t>(value));
    }
  }
  return Ok();
}

Result<std::vector<uint64_t>> ParseNumberList(std::string_view text, std::string_view what) {
  std::vector<uint64_t> numbers;
  auto items = SplitList(text);
  if (items.empty()) return MakeError("empty {} list", what);
  for (std::string_view item : items) {
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value, 10);
    if (ec != std::errc() || ptr != item.data() + item.size()) {
      return MakeError("bad {} '{}' in list '{}': expected a decimal number", what, item, text);
    }
    numbers.push_back(value);
  }
  return numbers;
}

}  // namespace rastrace::report
