#include "session/trace_line.h"

#include <charconv>

namespace rastrace::session {

namespace {

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

}  // namespace

std::optional<uint64_t> ParseNumber(std::string_view text, int base) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Result<TraceLine> ParseTraceLine(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  // The cpu column "[ddd]" is the first anchor that a task name cannot easily fake: look for the
  // first "] " whose "[" encloses only digits, preceded by a blank.
  size_t close = 0;
  size_t open = std::string_view::npos;
  for (size_t from = 0;; from = close + 1) {
    close = line.find("] ", from);
    if (close == std::string_view::npos) return MakeError("no [cpu] column");
    open = line.rfind('[', close);
    if (open == std::string_view::npos || open == 0 || line[open - 1] != ' ') continue;
    if (ParseNumber(line.substr(open + 1, close - open - 1))) break;
  }
  TraceLine out;
  out.cpu = static_cast<uint32_t>(*ParseNumber(line.substr(open + 1, close - open - 1)));

  // Before the cpu: "comm-tid" and optionally "(tgid)".
  std::string_view head = line.substr(0, open);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  if (!head.empty() && head.back() == ')') {
    const size_t paren = head.rfind('(');
    if (paren == std::string_view::npos) return MakeError("unbalanced (tgid) column");
    std::string_view tgid = TrimLeft(head.substr(paren + 1, head.size() - paren - 2));
    if (auto value = ParseNumber(tgid)) out.tgid = static_cast<uint32_t>(*value);
    head = head.substr(0, paren);
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  }
  head = TrimLeft(head);
  const size_t dash = head.rfind('-');
  if (dash == std::string_view::npos) return MakeError("no task-pid column");
  auto tid = ParseNumber(head.substr(dash + 1));
  if (!tid || *tid > UINT32_MAX) return MakeError("bad thread id in '{}'", head);
  out.tid = static_cast<uint32_t>(*tid);
  out.comm = head.substr(0, dash);

  // After the cpu: flags, "seconds.fraction:", "event:", body.
  std::string_view rest = TrimLeft(line.substr(close + 2));
  const size_t flags_end = rest.find(' ');
  if (flags_end == std::string_view::npos) return MakeError("no timestamp");
  rest = TrimLeft(rest.substr(flags_end));
  const size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) return MakeError("no timestamp");
  std::string_view stamp = rest.substr(0, colon);
  const size_t dot = stamp.find('.');
  if (dot == std::string_view::npos) {
    // A counter clock (x86-tsc, counter) prints its raw value.
    auto ticks = ParseNumber(stamp);
    if (!ticks) return MakeError("bad timestamp '{}'", stamp);
    out.timestamp_ns = *ticks;
  } else {
    auto seconds = ParseNumber(stamp.substr(0, dot));
    std::string_view fraction = stamp.substr(dot + 1);
    auto fraction_value = ParseNumber(fraction);
    if (!seconds || !fraction_value || fraction.size() > 9 || *seconds > 18000000000ull) {
      return MakeError("bad timestamp '{}'", stamp);
    }
    uint64_t nanos = *fraction_value;
    for (size_t digits = fraction.size(); digits < 9; ++digits) nanos *= 10;
    out.timestamp_ns = *seconds * 1000000000ull + nanos;
  }

  rest = rest.substr(colon + 2);
  const size_t event_end = rest.find(':');
  if (event_end == std::string_view::npos || event_end == 0) return MakeError("no event name");
  out.event = rest.substr(0, event_end);
  out.body = TrimLeft(rest.substr(event_end + 1));
  return out;
}

std::optional<std::string_view> FieldValue(std::string_view body, std::string_view key) {
  size_t at = 0;
  while ((at = body.find(key, at)) != std::string_view::npos) {
    const bool starts_word = at == 0 || body[at - 1] == ' ';
    const size_t value_at = at + key.size();
    if (starts_word && value_at < body.size() && body[value_at] == '=') {
      std::string_view value = body.substr(value_at + 1);
      return value.substr(0, value.find(' '));
    }
    at = value_at;
  }
  return std::nullopt;
}

}  // namespace rastrace::session
