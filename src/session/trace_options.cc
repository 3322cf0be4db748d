#include <unistd.h>

#include <cctype>
#include <climits>

#include "session/session_config.h"
#include "session/trace_line.h"

namespace rastrace::session {

namespace {

std::vector<std::string_view> SplitItems(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> items;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find_first_of(separators, at), text.size());
    if (end > at) items.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return items;
}

Result<std::vector<unsigned>> ParseCpuList(std::string_view text) {
  std::vector<unsigned> cpus;
  if (text == "all") return cpus;
  for (std::string_view item : SplitItems(text, ", ")) {
    auto cpu = ParseNumber(item);
    if (!cpu || *cpu >= 4096) return MakeError("trace: -C: '{}' is not a cpu number", item);
    cpus.push_back(static_cast<unsigned>(*cpu));
  }
  if (cpus.empty()) return MakeError("trace: -C: empty cpu list");
  return cpus;
}

std::string Absolute(const std::string& path) {
  if (path == "-" || path.empty() || path.front() == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

Result<std::vector<uint16_t>> ParseEventList(std::string_view text, std::string_view what) {
  std::vector<uint16_t> ids;
  for (std::string_view item : SplitItems(text, ", \t")) {
    bool hex = item.size() >= 2 && item.size() <= 4;
    for (char c : item) hex = hex && std::isxdigit(static_cast<unsigned char>(c));
    if (!hex) {
      return MakeError("trace: {}: '{}' is not a hook id (2, 3 or 4 hex digits)", what, item);
    }
    const auto value = static_cast<uint16_t>(*ParseNumber(item, 16));
    if (item.size() == 2) {
      for (uint16_t low = 0; low < 16; ++low)
        ids.push_back(static_cast<uint16_t>((value << 8) | (low << 4)));
    } else if (item.size() == 3) {
      ids.push_back(static_cast<uint16_t>(value << 4));
    } else {
      ids.push_back(value);
    }
  }
  if (ids.empty()) return MakeError("trace: {}: empty hook list", what);
  return ids;
}

Result<SessionConfig> ParseTraceArgs(std::span<const std::string> args) {
  SessionConfig config;
  std::vector<uint16_t> include, exclude;
  bool have_include = false;
  config.command_line = "trace";
  for (const std::string& arg : args) config.command_line += " " + arg;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      return MakeError("trace: unexpected argument '{}' (a command to trace goes after -x)", arg);
    }
    // Flags may be grouped (-af); a flag that takes a value ends the group, its value is the
    // rest of the word or the next word.
    for (size_t j = 1; j < arg.size(); ++j) {
      const char flag = arg[j];
      auto value = [&]() -> Result<std::string> {
        if (j + 1 < arg.size()) {
          std::string rest = arg.substr(j + 1);
          j = arg.size();
          return rest;
        }
        if (i + 1 >= args.size()) return MakeError("trace: -{} needs a value", flag);
        j = arg.size();
        return args[++i];
      };
      switch (flag) {
        case 'a':
          config.background = true;
          break;
        case 'd':
          config.defer = true;
          break;
        case 'f':
          config.log.mode = buffer::Mode::kSingle;
          break;
        case 'l':
          config.log.mode = buffer::Mode::kCircular;
          break;
        case 's':
          config.log.log_full = recorder::LogFull::kStop;
          break;
        case 'c':
          config.log.keep_old = true;
          break;
        case 'n':
          config.symbols = true;
          break;
        case 'g':
          config.generic = true;
          break;
        case 'o': {
          auto v = value();
          if (!v) return v.error();
          if (v->empty()) return MakeError("trace: -o: empty log name");
          config.log.log_path = *v;
          break;
        }
        case 'T':
        case 'L': {
          auto v = value();
          if (!v) return v.error();
          auto size =
              flag == 'T' ? recorder::ParseBufferSize(*v, "-T") : recorder::ParseSize(*v, "-L");
          if (!size) return MakeError("trace: {}", size.error().message);
          (flag == 'T' ? config.log.buffer_bytes : config.log.log_bytes) = *size;
          break;
        }
        case 'j':
        case 'k': {
          auto v = value();
          if (!v) return v.error();
          auto ids = ParseEventList(*v, flag == 'j' ? "-j" : "-k");
          if (!ids) return ids.error();
          auto& list = flag == 'j' ? include : exclude;
          list.insert(list.end(), ids->begin(), ids->end());
          have_include = have_include || flag == 'j';
          break;
        }
        case 'C': {
          auto v = value();
          if (!v) return v.error();
          auto cpus = ParseCpuList(*v);
          if (!cpus) return cpus.error();
          config.per_cpu = true;
          config.cpus = std::move(*cpus);
          break;
        }
        case 'x': {
          auto v = value();
          if (!v) return v.error();
          for (std::string_view word : SplitItems(*v, " \t")) config.command.emplace_back(word);
          if (config.command.empty()) return MakeError("trace: -x: empty command");
          // Everything after -x's value belongs to the traced command.
          for (++i; i < args.size(); ++i) config.command.push_back(args[i]);
          break;
        }
        default:
          return MakeError(
              "trace: unknown flag -{} (expected -a -d -f -l -s -c -n -g -o FILE -T SIZE -L SIZE "
              "-j IDS -k IDS -C CPUS -x COMMAND)",
              flag);
      }
    }
  }
  if (config.per_cpu && config.log.log_path == "-") {
    return MakeError("trace: -C writes one log per cpu (FILE-N): it needs -o FILE, not -o -");
  }
  config.filter_active = have_include || !exclude.empty();
  if (have_include) {
    config.allowed.reset();
    for (uint16_t id : include) config.allowed.set(id);
  } else {
    config.allowed.set();
  }
  for (uint16_t id : exclude) config.allowed.reset(id);
  config.log.log_path = Absolute(config.log.log_path);
  return config;
}

}  // namespace rastrace::session
