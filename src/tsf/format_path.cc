#include "tsf/format_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace rastrace::tsf {

bool IsFormatFileName(const std::string& name, uint16_t& major) {
  if (name.size() != 11) return false;
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.compare(0, 3, "TRC") != 0 || upper.compare(7, 4, ".TFF") != 0) return false;
  uint16_t value = 0;
  for (size_t i = 3; i < 7; ++i) {
    const char c = upper[i];
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    value = static_cast<uint16_t>(value * 16 + (c <= '9' ? c - '0' : c - 'A' + 10));
  }
  major = value;
  return true;
}

FormatPath FormatPath::Load(const std::vector<std::string>& directories) {
  FormatPath path;
  for (const std::string& directory : directories) {
    std::error_code ec;
    std::vector<std::pair<uint16_t, std::filesystem::path>> found;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
      uint16_t major = 0;
      if (IsFormatFileName(entry.path().filename().string(), major)) {
        found.emplace_back(major, entry.path());
      }
    }
    // A stable order when a directory holds both TRC0064.TFF and trc0064.tff.
    std::sort(found.begin(), found.end());
    for (const auto& [major, file] : found) {
      if (path.files_.count(major) != 0) continue;
      auto loaded = LoadFormatFile(file.string());
      if (!loaded) {
        path.errors_.push_back(loaded.error().message);
      } else if (loaded->major != major) {
        path.errors_.push_back(fmt::format("{}: holds major {:#06x}, not {:#06x}", file.string(),
                                           loaded->major, major));
      } else {
        path.files_.emplace(major, std::move(loaded).value());
      }
    }
  }
  return path;
}

const FormatFile* FormatPath::Find(uint16_t major) const {
  const auto it = files_.find(major);
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace rastrace::tsf
