// The trace definition file (TDF) trcust writes next to the format file: everything a dynamic
// tracer needs to attach each tracepoint of one module. Format: docs/os2-formats.md.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "tsf/tsf.h"

namespace rastrace::tsf {

inline constexpr std::string_view kDefinitionFileMagic = "RASTRACE-TDF";
inline constexpr int kDefinitionFileVersion = 1;

// The file's text for `module`.
std::string WriteDefinitionText(const Module& module);
// Parses a definition file's text; errors name the line.
Result<Module> ParseDefinitionText(std::string_view text, std::string_view file_name);
Result<Module> LoadDefinitionFile(const std::string& path);

// "TRC0064.TDF" for major 0x64.
std::string DefinitionFileName(uint16_t major);

}  // namespace rastrace::tsf
