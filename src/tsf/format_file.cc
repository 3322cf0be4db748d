#include "tsf/format_file.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <sstream>

#include "common/input_file.h"
#include "tsf/text_fields.h"

namespace rastrace::tsf {
namespace {

std::optional<uint32_t> ParseHex(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

const TracepointFormat* FormatFile::Find(uint16_t minor) const {
  auto it = tracepoints.find(minor);
  return it == tracepoints.end() ? nullptr : &it->second;
}

std::string FormatFileName(uint16_t major) {
  return fmt::format("TRC{:04X}.TFF", major);
}

FormatFile MakeFormatFile(const Module& module) {
  FormatFile f;
  f.major = module.major;
  f.modname = module.modname;
  for (const Tracepoint& tp : module.tracepoints) {
    TracepointFormat t;
    t.minor = tp.minor;
    t.desc = tp.desc;
    for (const FmtLine& line : tp.fmt) {
      t.fmt.push_back(line.text);
      auto parsed = ParseFmt(line.text);
      t.parsed.push_back(parsed.ok() ? std::move(parsed.value()) : FmtLineItems{});
    }
    f.tracepoints.emplace(t.minor, std::move(t));
  }
  return f;
}

std::string WriteFormatText(const FormatFile& file) {
  std::string out = fmt::format("{} {}\n", kFormatFileMagic, kFormatFileVersion);
  out += fmt::format("major {:#06x}\n", file.major);
  if (!file.modname.empty()) out += fmt::format("modname {}\n", Quote(file.modname));
  for (const auto& [minor, t] : file.tracepoints) {
    out += fmt::format("tracepoint {:#06x} {}\n", minor, Quote(t.desc));
    for (const std::string& line : t.fmt) out += fmt::format("fmt {}\n", Quote(line));
  }
  out += "end\n";
  return out;
}

Result<FormatFile> ParseFormatText(std::string_view text, std::string_view name) {
  FormatFile f;
  std::istringstream in{std::string(text)};
  std::string line;
  size_t number = 0;
  bool major_seen = false, ended = false;
  TracepointFormat* current = nullptr;
  auto fail = [&](std::string message) { return MakeError("{}:{}: {}", name, number, message); };
  while (std::getline(in, line)) {
    ++number;
    if (ended) {
      if (line.find_first_not_of(" \t\r") != std::string::npos) {
        return fail("text after the 'end' line");
      }
      continue;
    }
    auto fields = SplitFields(line);
    if (!fields) return fail(fields.error().message);
    const auto& v = *fields;
    if (number == 1) {
      if (v.size() != 2 || v[0] != kFormatFileMagic) {
        return fail(fmt::format("not a trace format file (expected '{} {}')", kFormatFileMagic,
                                kFormatFileVersion));
      }
      if (v[1] != std::to_string(kFormatFileVersion)) {
        return fail(
            fmt::format("format file version {} is not supported (this tracefmt reads "
                        "version {})",
                        v[1], kFormatFileVersion));
      }
      continue;
    }
    if (v.empty() || v[0][0] == '#') continue;
    if (v[0] == "major" && v.size() == 2 && !major_seen) {
      auto major = ParseHex(v[1]);
      if (!major || *major == 0 || *major > 0xFFFF) return fail("expected 'major 0xHHHH'");
      f.major = static_cast<uint16_t>(*major);
      major_seen = true;
    } else if (v[0] == "modname" && v.size() == 2) {
      f.modname = v[1];
    } else if (v[0] == "tracepoint" && v.size() == 3) {
      auto minor = ParseHex(v[1]);
      if (!minor || *minor == 0 || *minor > 0xFFFF) {
        return fail("expected 'tracepoint 0xHHHH \"description\"'");
      }
      auto [it, inserted] = f.tracepoints.try_emplace(static_cast<uint16_t>(*minor));
      if (!inserted) return fail(fmt::format("minor {:#06x} is defined twice", *minor));
      current = &it->second;
      current->minor = static_cast<uint16_t>(*minor);
      current->desc = v[2];
    } else if (v[0] == "fmt" && v.size() == 2) {
      if (!current) return fail("'fmt' before any 'tracepoint'");
      auto parsed = ParseFmt(v[1]);
      if (!parsed) return fail(fmt::format("FMT: {}", parsed.error().message));
      current->fmt.push_back(v[1]);
      current->parsed.push_back(std::move(parsed.value()));
    } else if (v[0] == "end" && v.size() == 1) {
      ended = true;
    } else {
      return fail(
          fmt::format("unexpected line '{}' (expected major, modname, tracepoint, fmt or "
                      "end)",
                      v[0]));
    }
  }
  if (number == 0) return MakeError("{}: empty file, not a trace format file", name);
  if (!major_seen) return MakeError("{}: no 'major' line", name);
  if (!ended) return MakeError("{}:{}: the file is truncated (no 'end' line)", name, number);
  return f;
}

Result<FormatFile> LoadFormatFile(const std::string& path) {
  auto text = ReadInputFile(path, kMaxTextInputBytes, "trace format files");
  if (!text) return text.error();
  return ParseFormatText(*text, path);
}

Result<FormatFile> CombineFormatFiles(const std::vector<std::pair<std::string, FormatFile>>& files,
                                      std::vector<std::string>& warnings) {
  if (files.empty()) return MakeError("no format files to combine");
  FormatFile out;
  out.major = files.front().second.major;
  out.modname = files.front().second.modname;
  std::map<uint16_t, std::string> origin;
  for (const auto& [path, file] : files) {
    if (file.major != out.major) {
      return MakeError(
          "{}: major {:#06x} differs from {:#06x} of {}; only format files of one "
          "major combine",
          path, file.major, out.major, files.front().first);
    }
    for (const auto& [minor, t] : file.tracepoints) {
      auto [it, inserted] = out.tracepoints.try_emplace(minor, t);
      if (inserted) {
        origin[minor] = path;
      } else {
        warnings.push_back(
            fmt::format("{}: minor {:#06x} is already defined by {}; the first "
                        "definition is kept",
                        path, minor, origin[minor]));
      }
    }
  }
  return out;
}

}  // namespace rastrace::tsf
