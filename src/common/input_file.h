// Reading a whole input file for the formats that are parsed all at once (template files, TSF
// sources, trace format files, update files): only what a file of that kind can hold, so that
// /dev/zero, a pipe that never ends or a 2 GiB file is a clear error, not all of the machine's
// memory (docs/reliability.md, "Input sizes").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rastrace {

// The largest text file a tool reads whole: template files, update files, TSF sources.
inline constexpr size_t kMaxTextInputBytes = size_t{16} << 20;

// Reads `path` whole. Errors: "PATH: cannot open: REASON", "PATH: is a directory",
// "PATH: larger than 16 MiB, the limit for WHAT" (for a regular file before anything is read;
// for a pipe or device once more than `max_bytes` came), "PATH: read error: REASON".
Result<std::string> ReadInputFile(const std::string& path, size_t max_bytes, std::string_view what);

// "16 MiB", "64 KiB", "65562 bytes": a limit as messages and docs state it.
std::string SizeText(uint64_t bytes);

}  // namespace rastrace
