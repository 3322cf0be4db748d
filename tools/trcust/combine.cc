#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "actions.h"
#include "tsf/format_file.h"

namespace rastrace::trcust {
namespace {

bool IsFormatFile(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return ext == ".TFF";
}

// A list file names one format file per line (relative to the list); '#' starts a comment.
bool ExpandList(const std::string& list, std::vector<std::string>& out) {
  std::ifstream in(list);
  if (!in) {
    fmt::print(stderr, "trcust: {}: cannot open the list file\n", list);
    return false;
  }
  const auto base = std::filesystem::path(list).parent_path();
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
    out.push_back(std::filesystem::path(line).is_absolute() ? line : (base / line).string());
  }
  return true;
}

}  // namespace

int Combine(const std::vector<std::string>& inputs, const std::string& destination) {
  std::vector<std::string> paths;
  for (const std::string& input : inputs) {
    if (IsFormatFile(input)) {
      paths.push_back(input);
    } else if (!ExpandList(input, paths)) {
      return 1;
    }
  }
  std::vector<std::pair<std::string, tsf::FormatFile>> files;
  for (const std::string& path : paths) {
    auto file = tsf::LoadFormatFile(path);
    if (!file) {
      fmt::print(stderr, "trcust: {}\n", file.error().message);
      return 1;
    }
    files.emplace_back(path, std::move(file.value()));
  }
  std::vector<std::string> warnings;
  auto combined = tsf::CombineFormatFiles(files, warnings);
  for (const std::string& w : warnings) fmt::print(stderr, "trcust: warning: {}\n", w);
  if (!combined) {
    fmt::print(stderr, "trcust: {}\n", combined.error().message);
    return 1;
  }
  if (!WriteText(destination, tsf::WriteFormatText(*combined))) return 1;
  fmt::print("trcust: {} format files -> {} (major {:#06x}, {} tracepoints)\n", files.size(),
             destination, combined->major, combined->tracepoints.size());
  return 0;
}

}  // namespace rastrace::trcust
