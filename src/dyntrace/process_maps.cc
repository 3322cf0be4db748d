#include "dyntrace/process_maps.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace rastrace::dyntrace {
namespace {

bool ParseHex(std::string_view text, uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string_view NextField(std::string_view& line) {
  size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  size_t end = line.find(' ');
  std::string_view field = line.substr(0, end);
  line.remove_prefix(end == std::string_view::npos ? line.size() : end);
  return field;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<std::vector<Mapping>> ParseMaps(std::string_view text) {
  std::vector<Mapping> maps;
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty()) continue;
    std::string_view range = NextField(line);
    std::string_view perms = NextField(line);
    std::string_view offset = NextField(line);
    NextField(line);  // device
    NextField(line);  // inode
    size_t dash = range.find('-');
    Mapping mapping;
    if (dash == std::string_view::npos || perms.size() < 3 ||
        !ParseHex(range.substr(0, dash), mapping.start) ||
        !ParseHex(range.substr(dash + 1), mapping.end) || !ParseHex(offset, mapping.file_offset)) {
      return MakeError("maps line {}: expected 'start-end perms offset dev inode [path]'",
                       line_number);
    }
    mapping.readable = perms[0] == 'r';
    mapping.writable = perms[1] == 'w';
    mapping.executable = perms[2] == 'x';
    size_t path_start = line.find_first_not_of(' ');
    if (path_start != std::string_view::npos) mapping.path = std::string(line.substr(path_start));
    maps.push_back(std::move(mapping));
  }
  return maps;
}

Result<std::vector<Mapping>> ReadMaps(pid_t pid) {
  std::string file = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(file);
  if (!in) return MakeError("{}: cannot open (no such process?)", file);
  std::stringstream text;
  text << in.rdbuf();
  auto maps = ParseMaps(text.str());
  if (!maps) return MakeError("{}: {}", file, maps.error().message);
  return maps;
}

const Mapping* FindMapping(const std::vector<Mapping>& maps, uint64_t address) {
  for (const Mapping& mapping : maps) {
    if (address >= mapping.start && address < mapping.end) return &mapping;
  }
  return nullptr;
}

bool ModuleMatches(std::string_view path, std::string_view modname) {
  if (path.empty() || path.front() != '/' || modname.empty()) return false;
  if (modname.find('/') != std::string_view::npos) return path == modname;
  std::string_view base = BaseName(path);
  if (base == modname) return true;
  return base.size() > modname.size() && base.substr(0, modname.size()) == modname &&
         base[modname.size()] == '.';
}

Result<std::string> FindModulePath(const std::vector<Mapping>& maps, std::string_view modname,
                                   pid_t pid) {
  // An exact file name wins over a versioned one, so "libfoo.so" never picks "libfoo.so.1.bak"
  // when "libfoo.so" itself is mapped.
  const Mapping* versioned = nullptr;
  for (const Mapping& mapping : maps) {
    if (!ModuleMatches(mapping.path, modname)) continue;
    if (modname.find('/') != std::string_view::npos || BaseName(mapping.path) == modname) {
      return mapping.path;
    }
    if (versioned == nullptr) versioned = &mapping;
  }
  if (versioned != nullptr) return versioned->path;
  return MakeError("MODNAME {} is not mapped in process {} (see /proc/{}/maps)", modname, pid, pid);
}

std::optional<uint64_t> FileOffsetToAddress(const std::vector<Mapping>& maps, std::string_view path,
                                            uint64_t file_offset) {
  for (const Mapping& mapping : maps) {
    if (mapping.path != path) continue;
    uint64_t size = mapping.end - mapping.start;
    if (file_offset >= mapping.file_offset && file_offset - mapping.file_offset < size) {
      return mapping.start + (file_offset - mapping.file_offset);
    }
  }
  return std::nullopt;
}

}  // namespace rastrace::dyntrace
