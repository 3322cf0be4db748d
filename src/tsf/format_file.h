// The trace format file (TFF) TRCxxxx.TFF: the DESC and FMT strings of every tracepoint of one
// major code, read by tracefmt. Format: docs/os2-formats.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "tsf/fmt.h"
#include "tsf/tsf.h"

namespace rastrace::tsf {

inline constexpr std::string_view kFormatFileMagic = "RASTRACE-TFF";
inline constexpr int kFormatFileVersion = 1;

struct TracepointFormat {
  uint16_t minor = 0;
  std::string desc;
  std::vector<std::string> fmt;      // the FMT strings as written (escapes resolved)
  std::vector<FmtLineItems> parsed;  // the same, parsed
};

struct FormatFile {
  uint16_t major = 0;
  std::string modname;
  std::map<uint16_t, TracepointFormat> tracepoints;  // by minor

  const TracepointFormat* Find(uint16_t minor) const;
};

FormatFile MakeFormatFile(const Module& module);
std::string WriteFormatText(const FormatFile& file);
Result<FormatFile> ParseFormatText(std::string_view text, std::string_view file_name);
Result<FormatFile> LoadFormatFile(const std::string& path);

// "TRC0064.TFF" for major 0x64.
std::string FormatFileName(uint16_t major);

// Combines format files of one major: the first definition of a minor wins; every later one adds
// a warning to `warnings`. Files of different majors are an error.
Result<FormatFile> CombineFormatFiles(const std::vector<std::pair<std::string, FormatFile>>& files,
                                      std::vector<std::string>& warnings);

}  // namespace rastrace::tsf
