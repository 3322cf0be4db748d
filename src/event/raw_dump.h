// A raw, template-free dump of a log: one line per event (offset, decoded header, hex bytes).
#pragma once

#include <cstdio>

#include "event/reader.h"

namespace rastrace::event {

// Writes every event of `reader` to `out` as
//   "00000004  ID 0010 SUB 0000 T G- B- len 8  tid 1234 ts 5678  | 8000000800100000 ..."
// Returns 0 at a clean end, 1 (after printing the reader's error to stderr) on a truncated or
// corrupt log.
int DumpRaw(LogReader& reader, std::FILE* out);

}  // namespace rastrace::event
