// A raw, template-free dump of a log: one line per event (offset, decoded header, hex bytes).
#pragma once

#include <cstdio>

#include "common/result.h"
#include "event/reader.h"

namespace rastrace::event {

// Writes every event of `reader` to `out` as
//   "00000004  ID 0010 SUB 0000 T G- B- len 8  tid 1234 ts 5678  | 8000000800100000 ..."
// At a truncated or corrupt event it stops, after every whole event before it, and returns the
// reader's error (the caller says whose it is).
Result<void> DumpRaw(LogReader& reader, std::FILE* out);

}  // namespace rastrace::event
