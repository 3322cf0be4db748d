// Creating output files that hold trace data: never through a symbolic link, mode 0600.
#pragma once

#include <cstdio>
#include <string>

#include "common/result.h"

namespace rastrace {

// Opens `path` for writing (created 0600, truncated when it exists), refusing a symbolic link in
// the last component so a planted link cannot redirect trace data into another file.
// The caller fcloses the stream.
Result<std::FILE*> OpenOutputStream(const std::string& path);

}  // namespace rastrace
