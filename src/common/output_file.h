// Creating output files that hold trace data: never through a symbolic link, mode 0600.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rastrace {

// Opens `path` for writing (created 0600, truncated when it exists), refusing a symbolic link in
// the last component so a planted link cannot redirect trace data into another file.
// The caller fcloses the stream.
Result<std::FILE*> OpenOutputStream(const std::string& path);

// Writes `text` to `path` whole (created with `mode`, or replaced; never through a symbolic link)
// and closes it, checking every write and the close: "PATH: cannot write: REASON".
Result<void> WriteWholeFile(const std::string& path, std::string_view text, unsigned mode = 0644);

// Flushes `file` and says whether everything written to it arrived: a full disk or a failed
// device is an error of the command, "NAME: write error: No space left on device".
Result<void> FinishOutput(std::FILE* file, std::string_view name = "standard output");

}  // namespace rastrace
