#include "session/trace_line.h"

#include <cctype>
#include <charconv>

#include "session/syscall_table.h"

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
  // "event: body", or a system call event of syscalls/, which prints itself as "sys_NAME(ARGS)"
  // (entry) and "sys_NAME -> 0xRET" (exit): the event is then "sys_NAME", the body the rest.
  size_t event_end = 0;
  while (event_end < rest.size() &&
         (std::isalnum(static_cast<unsigned char>(rest[event_end])) || rest[event_end] == '_')) {
    ++event_end;
  }
  if (event_end == 0) return MakeError("no event name");
  out.event = rest.substr(0, event_end);
  std::string_view after = rest.substr(event_end);
  if (after.starts_with(':')) {
    out.body = TrimLeft(after.substr(1));
  } else if (out.event.starts_with("sys_") &&
             (after.starts_with('(') || after.starts_with(" -> "))) {
    out.body = after;
  } else {
    return MakeError("no event name");
  }
  return out;
}

namespace {

uint64_t Number(std::optional<std::string_view> text, int base = 10) {
  if (!text) return 0;
  return ParseNumber(*text, base).value_or(0);
}

// "NAME: VALUE" pairs separated by ", " in "(...)": the values, in order.
size_t SyscallArguments(std::string_view list, std::array<uint64_t, 6>& values) {
  size_t n = 0;
  if (list.starts_with('(')) list.remove_prefix(1);
  if (const size_t close = list.rfind(')'); close != std::string_view::npos) {
    list = list.substr(0, close);
  }
  while (!list.empty() && n < values.size()) {
    const size_t comma = list.find(", ");
    std::string_view item = list.substr(0, comma);
    const size_t colon = item.find(": ");
    if (colon != std::string_view::npos) {
      // The kernel prints the value with %lx, without 0x (some kernels with it).
      values[n++] = Number(item.substr(colon + 2), 16);
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 2);
  }
  return n;
}

char StateLetter(std::string_view state) {
  return state.empty() ? '?' : state.front();
}

}  // namespace

bool ToKernelEvent(const TraceLine& line, SyscallTable& syscalls, KernelEvent& out) {
  out = KernelEvent{};
  out.tid = line.tid;
  out.tgid = line.tgid;
  out.cpu = line.cpu;
  out.comm = line.comm;
  out.timestamp = line.timestamp_ns;
  const std::string_view ev = line.event;
  const std::string_view body = line.body;
  if (ev == "sys_enter" || ev == "sys_exit") {
    // raw_syscalls: "NR 33 (b, 1, 55d16ae7b9bc, 0, 7, b)" / "NR 33 = 1"
    if (!body.starts_with("NR ")) return false;
    std::string_view rest = body.substr(3);
    out.nr = Number(rest.substr(0, rest.find(' ')));
    out.syscall = syscalls.ByNumber(out.nr);
    if (ev == "sys_enter") {
      out.kind = KernelEventKind::kSysEnter;
      const size_t open = rest.find('(');
      std::string_view args = open == std::string_view::npos ? "" : rest.substr(open + 1);
      for (int i = 0; i < 6; ++i) {
        const size_t comma = args.find_first_of(",)");
        out.values[i] = Number(args.substr(0, comma), 16);
        args = comma == std::string_view::npos ? "" : args.substr(comma + 1);
        while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
      }
    } else {
      out.kind = KernelEventKind::kSysExit;
      const size_t equals = rest.find("= ");
      if (equals != std::string_view::npos) {
        std::string_view number = rest.substr(equals + 2);
        const bool negative = number.starts_with('-');
        if (negative) number.remove_prefix(1);
        const uint64_t magnitude = Number(number);
        out.values[0] = negative ? uint64_t{0} - magnitude : magnitude;
      }
    }
    return true;
  }
  if (ev.starts_with("sys_") && (body.starts_with('(') || body.starts_with(" -> "))) {
    // syscalls/: "sys_openat(dfd: ffffff9c, filename: 7ffd, ...)" / "sys_openat -> 0x3"
    out.syscall = syscalls.ByName(ev.substr(4));
    out.nr = out.syscall->number();
    if (body.starts_with('(')) {
      out.kind = KernelEventKind::kSysEnter;
      SyscallArguments(body, out.values);
    } else {
      out.kind = KernelEventKind::kSysExit;
      out.values[0] = Number(body.substr(4), 16);
    }
    return true;
  }
  if (ev == "sched_switch") {
    out.kind = KernelEventKind::kSwitch;
    out.values = {Number(FieldValue(body, "prev_pid")),
                  Number(FieldValue(body, "prev_prio")),
                  static_cast<uint8_t>(StateLetter(FieldValue(body, "prev_state").value_or("?"))),
                  Number(FieldValue(body, "next_pid")),
                  Number(FieldValue(body, "next_prio")),
                  0};
  } else if (ev == "sched_process_fork") {
    out.kind = KernelEventKind::kFork;
    out.values[0] = Number(FieldValue(body, "pid"));
    out.values[1] = Number(FieldValue(body, "child_pid"));
  } else if (ev == "sched_process_exec") {
    out.kind = KernelEventKind::kExec;
    out.text = FieldValue(body, "filename").value_or("");
    out.values[0] = Number(FieldValue(body, "pid"));
  } else if (ev == "sched_process_exit") {
    out.kind = KernelEventKind::kExit;
    out.values[0] = Number(FieldValue(body, "pid"));
    out.values[1] = Number(FieldValue(body, "prio"));
  } else if (ev == "page_fault_user" || ev == "page_fault_kernel") {
    out.kind = ev == "page_fault_user" ? KernelEventKind::kPageFaultUser
                                       : KernelEventKind::kPageFaultKernel;
    out.values[0] = Number(FieldValue(body, "address"), 16);
    out.values[1] = Number(FieldValue(body, "ip"), 16);
    out.values[2] = Number(FieldValue(body, "error_code"), 16);
  } else if (ev == "irq_handler_entry") {
    out.kind = KernelEventKind::kIrqEntry;
    out.values[0] = Number(FieldValue(body, "irq"));
    out.text = FieldValue(body, "name").value_or("");
  } else if (ev == "irq_handler_exit") {
    out.kind = KernelEventKind::kIrqExit;
    out.values[0] = Number(FieldValue(body, "irq"));
    out.values[1] = FieldValue(body, "ret").value_or("") == "handled" ? 1 : 0;
  } else {
    return false;
  }
  return true;
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
