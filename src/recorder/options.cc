#include "recorder/options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>

namespace rastrace::recorder {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> SplitComma(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(Trim(text.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

Result<buffer::Mode> ParseMode(std::string_view text) {
  if (text == "alternate") return buffer::Mode::kAlternate;
  if (text == "circular") return buffer::Mode::kCircular;
  if (text == "single") return buffer::Mode::kSingle;
  if (text == "blocking") return buffer::Mode::kBlocking;
  return MakeError(
      "RASTRACE_MODE: '{}' is not a mode (expected alternate, circular, single or blocking)", text);
}

const char* ModeName(buffer::Mode mode) {
  switch (mode) {
    case buffer::Mode::kCircular:
      return "circular";
    case buffer::Mode::kSingle:
      return "single";
    case buffer::Mode::kBlocking:
      return "blocking";
    case buffer::Mode::kAlternate:
      break;
  }
  return "alternate";
}

Result<ClockChoice> ParseClock(std::string_view text, std::string_view what) {
  if (text == "auto") return ClockChoice::kAuto;
  if (text == "tsc") return ClockChoice::kTsc;
  if (text == "monotonic") return ClockChoice::kMonotonic;
  return MakeError("{}: '{}' is not a clock (expected auto, tsc or monotonic)", what, text);
}

const char* ClockName(ClockChoice clock) {
  switch (clock) {
    case ClockChoice::kTsc:
      return "tsc";
    case ClockChoice::kMonotonic:
      return "monotonic";
    case ClockChoice::kAuto:
      break;
  }
  return "auto";
}

std::string JoinHooks(const std::vector<uint16_t>& hooks) {
  std::string text;
  for (uint16_t id : hooks) {
    if (!text.empty()) text += ',';
    text += fmt::format("{:04X}", id);
  }
  return text;
}

std::string JoinChannels(uint32_t channels) {
  std::string text;
  for (unsigned ch = 0; ch < 8; ++ch) {
    if (!(channels & (1u << ch))) continue;
    if (!text.empty()) text += ',';
    text += std::to_string(ch);
  }
  return text;
}

}  // namespace

Result<uint64_t> ParseSize(std::string_view text, std::string_view what) {
  text = Trim(text);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) {
    return MakeError("{}: '{}' is not a size (expected bytes, optionally with K, M or G)", what,
                     text);
  }
  std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  unsigned shift = 0;
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else if (!suffix.empty()) {
    return MakeError("{}: '{}' has an unknown suffix '{}' (expected K, M or G)", what, text,
                     suffix);
  }
  if (shift != 0 && value > (UINT64_MAX >> shift)) {
    return MakeError("{}: '{}' is too large", what, text);
  }
  return value << shift;
}

Result<uint64_t> ParseBufferSize(std::string_view text, std::string_view what) {
  auto size = ParseSize(text, what);
  if (!size) return size;
  if (*size > kMaxBufferBytes) {
    return MakeError("{}: '{}' is larger than the largest buffer, {} bytes (1G) per thread", what,
                     Trim(text), kMaxBufferBytes);
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0 &&
      *size > static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)) {
    return MakeError("{}: '{}' is more than this machine's memory ({} bytes)", what, Trim(text),
                     static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size));
  }
  return size;
}

Result<std::vector<uint16_t>> ParseHookList(std::string_view text, std::string_view what) {
  std::vector<uint16_t> hooks;
  for (std::string_view part : SplitComma(text)) {
    if (part.empty()) continue;
    if (part.starts_with("0x") || part.starts_with("0X")) part.remove_prefix(2);
    unsigned value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value, 16);
    if (error != std::errc() || end != part.data() + part.size() || part.size() > 4) {
      return MakeError("{}: '{}' is not a hook id (expected 3 hex digits, or 4 for a 16-bit id)",
                       what, part);
    }
    hooks.push_back(static_cast<uint16_t>(part.size() <= 3 ? value << 4 : value));
  }
  if (hooks.empty()) return MakeError("{}: no hook ids given", what);
  return hooks;
}

Result<uint32_t> ParseChannels(std::string_view text, std::string_view what) {
  text = Trim(text);
  if (text == "all") return 0xFFu;
  uint32_t channels = 0;
  for (std::string_view part : SplitComma(text)) {
    unsigned first = 0;
    unsigned last = 0;
    const char* begin = part.data();
    const char* stop = part.data() + part.size();
    std::from_chars_result parsed = std::from_chars(begin, stop, first);
    last = first;
    if (parsed.ec == std::errc() && parsed.ptr != stop && *parsed.ptr == '-') {
      parsed = std::from_chars(parsed.ptr + 1, stop, last);
    }
    if (parsed.ec != std::errc() || parsed.ptr != stop || first > last || last > 7) {
      return MakeError("{}: '{}' is not a channel list (expected numbers 0-7, ranges or 'all')",
                       what, part);
    }
    for (unsigned ch = first; ch <= last; ++ch) channels |= 1u << ch;
  }
  return channels;
}

Result<RecorderOptions> ParseTraceArgs(std::span<const std::string> args, RecorderOptions base) {
  RecorderOptions options = std::move(base);
  bool buffer_size_given = false;
  bool buffer_max_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string_view name) -> Result<std::string> {
      if (i + 1 >= args.size()) return MakeError("trace option {} needs a value", name);
      return args[++i];
    };
    if (arg == "-l") {
      options.mode = buffer::Mode::kCircular;
    } else if (arg == "-f") {
      options.mode = buffer::Mode::kSingle;
    } else if (arg == "--blocking") {
      options.mode = buffer::Mode::kBlocking;
    } else if (arg == "--buffered-io") {
      options.direct_io = false;
    } else if (arg == "-s") {
      options.log_full = LogFull::kStop;
    } else if (arg == "-c") {
      options.keep_old = true;
    } else if (arg == "-o" || arg == "-T" || arg == "--buffer-max" || arg == "-L" || arg == "-j" ||
               arg == "-k" || arg == "--channels" || arg == "--clock" || arg == "--shm-path") {
      auto text = value(arg);
      if (!text) return text.error();
      if (arg == "-o") {
        options.log_path = *text;
        continue;
      }
      if (arg == "--shm-path") {
        if (text->empty()) return MakeError("trace option --shm-path: empty directory");
        options.shm_path = *text;
        continue;
      }
      if (arg == "-T" || arg == "--buffer-max" || arg == "-L") {
        auto size = arg == "-L" ? ParseSize(*text, arg) : ParseBufferSize(*text, arg);
        if (!size) return size.error();
        if (arg == "-T") {
          options.buffer_bytes = *size;
          buffer_size_given = true;
        } else if (arg == "--buffer-max") {
          options.buffer_max_bytes = *size;
          buffer_max_given = true;
        } else {
          options.log_bytes = *size;
        }
      } else if (arg == "-j" || arg == "-k") {
        auto hooks = ParseHookList(*text, arg);
        if (!hooks) return hooks.error();
        (arg == "-j" ? options.include_hooks : options.exclude_hooks) = std::move(*hooks);
      } else if (arg == "--channels") {
        auto channels = ParseChannels(*text, arg);
        if (!channels) return channels.error();
        options.channels = *channels;
      } else {
        auto clock = ParseClock(*text, arg);
        if (!clock) return clock.error();
        options.clock = *clock;
      }
    } else {
      return MakeError(
          "unknown trace option '{}' (expected -o LOG, -l, -f, --blocking, -T SIZE, "
          "--buffer-max SIZE, -L SIZE, -s, -c, -j IDS, -k IDS, --channels LIST, --clock CLOCK, "
          "--shm-path DIR, --buffered-io)",
          arg);
    }
  }
  if (buffer_size_given && !buffer_max_given) options.buffer_max_bytes = options.buffer_bytes;
  if (options.log_path.empty()) return MakeError("trace option -o: empty log path");
  return options;
}

Result<RecorderOptions> ParseTraceString(std::string_view args, RecorderOptions base) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && (args[i] == ' ' || args[i] == '\t' || args[i] == '\n')) ++i;
    size_t start = i;
    while (i < args.size() && args[i] != ' ' && args[i] != '\t' && args[i] != '\n') ++i;
    if (i > start) words.emplace_back(args.substr(start, i - start));
  }
  return ParseTraceArgs(words, std::move(base));
}

Result<RecorderOptions> OptionsFromEnvironment(const GetEnv& getenv) {
  RecorderOptions options;
  auto text = [&](const char* name) -> std::string_view {
    const char* v = getenv(name);
    return v ? std::string_view(v) : std::string_view();
  };
  if (auto v = text(kEnvLog); !v.empty()) options.log_path = v;
  if (auto v = text("RASTRACE_MODE"); !v.empty()) {
    auto mode = ParseMode(v);
    if (!mode) return mode.error();
    options.mode = *mode;
  }
  if (auto v = text("RASTRACE_BUFSIZE"); !v.empty()) {
    auto size = ParseBufferSize(v, "RASTRACE_BUFSIZE");
    if (!size) return size.error();
    options.buffer_bytes = *size;
    options.buffer_max_bytes = *size;  // an explicit size stays fixed unless RASTRACE_BUFMAX says
  }
  if (auto v = text("RASTRACE_BUFMAX"); !v.empty()) {
    auto size = ParseBufferSize(v, "RASTRACE_BUFMAX");
    if (!size) return size.error();
    options.buffer_max_bytes = *size;
  }
  if (auto v = text("RASTRACE_LOGSIZE"); !v.empty()) {
    auto size = ParseSize(v, "RASTRACE_LOGSIZE");
    if (!size) return size.error();
    options.log_bytes = *size;
  }
  if (auto v = text("RASTRACE_LOGFULL"); !v.empty()) {
    if (v == "stop")
      options.log_full = LogFull::kStop;
    else if (v == "rotate")
      options.log_full = LogFull::kRotate;
    else
      return MakeError("RASTRACE_LOGFULL: '{}' (expected stop or rotate)", v);
  }
  if (auto v = text("RASTRACE_KEEP_OLD"); !v.empty()) options.keep_old = v != "0";
  if (auto v = text("RASTRACE_CHANNELS"); !v.empty()) {
    auto channels = ParseChannels(v, "RASTRACE_CHANNELS");
    if (!channels) return channels.error();
    options.channels = *channels;
  }
  if (auto v = text("RASTRACE_EVENTS"); !v.empty()) {
    auto hooks = ParseHookList(v, "RASTRACE_EVENTS");
    if (!hooks) return hooks.error();
    options.include_hooks = std::move(*hooks);
  }
  if (auto v = text("RASTRACE_EXCLUDE"); !v.empty()) {
    auto hooks = ParseHookList(v, "RASTRACE_EXCLUDE");
    if (!hooks) return hooks.error();
    options.exclude_hooks = std::move(*hooks);
  }
  if (auto v = text("RASTRACE_CLOCK"); !v.empty()) {
    auto clock = ParseClock(v, "RASTRACE_CLOCK");
    if (!clock) return clock.error();
    options.clock = *clock;
  }
  if (auto v = text(kEnvShmPath); !v.empty()) options.shm_path = v;
  if (auto v = text("RASTRACE_DIRECT_IO"); !v.empty()) {
    if (v != "0" && v != "1") {
      return MakeError("RASTRACE_DIRECT_IO: '{}' is not 0 or 1", v);
    }
    options.direct_io = v == "1";
  }
  return options;
}

std::vector<std::pair<std::string, std::string>> OptionsToEnvironment(
    const RecorderOptions& options) {
  std::vector<std::pair<std::string, std::string>> env = {
      {kEnvLog, options.log_path},
      {"RASTRACE_MODE", ModeName(options.mode)},
      {"RASTRACE_BUFSIZE", std::to_string(options.buffer_bytes)},
      {"RASTRACE_BUFMAX", std::to_string(options.buffer_max_bytes)},
      {"RASTRACE_LOGSIZE", std::to_string(options.log_bytes)},
      {"RASTRACE_LOGFULL", options.log_full == LogFull::kStop ? "stop" : "rotate"},
      {"RASTRACE_KEEP_OLD", options.keep_old ? "1" : "0"},
      {"RASTRACE_CHANNELS", options.channels == 0 ? "" : JoinChannels(options.channels)},
      {"RASTRACE_CLOCK", ClockName(options.clock)},
  };
  if (!options.include_hooks.empty())
    env.emplace_back("RASTRACE_EVENTS", JoinHooks(options.include_hooks));
  if (!options.exclude_hooks.empty())
    env.emplace_back("RASTRACE_EXCLUDE", JoinHooks(options.exclude_hooks));
  if (!options.shm_path.empty()) env.emplace_back(kEnvShmPath, options.shm_path);
  if (!options.direct_io) env.emplace_back("RASTRACE_DIRECT_IO", "0");
  return env;
}

}  // namespace rastrace::recorder
