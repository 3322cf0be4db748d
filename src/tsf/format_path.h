// Trace format files found along a search path: every TRCxxxx.TFF (any case) of a list of
// directories, loaded once, so that readers on several threads (trcrpt --jobs) share them. The
// first directory holding a major wins, as a PATH does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tsf/format_file.h"

namespace rastrace::tsf {

class FormatPath {
 public:
  FormatPath() = default;
  // Loads the format files of `directories` (missing directories are skipped: a search path may
  // name places that do not exist). A file that cannot be loaded is reported in errors().
  static FormatPath Load(const std::vector<std::string>& directories);

  // nullptr when no directory has a format file for `major`.
  const FormatFile* Find(uint16_t major) const;
  // "FILE:LINE: ..." for each format file that exists but could not be loaded.
  const std::vector<std::string>& errors() const { return errors_; }
  size_t size() const { return files_.size(); }

 private:
  std::map<uint16_t, FormatFile> files_;
  std::vector<std::string> errors_;
};

// True when `name` is a format file's name, TRCxxxx.TFF with 4 hex digits (any case); `major`
// receives the digits.
bool IsFormatFileName(const std::string& name, uint16_t& major);

}  // namespace rastrace::tsf
