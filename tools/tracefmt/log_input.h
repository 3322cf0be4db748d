// tracefmt on a rastrace trace log: the tracepoint hits it holds (generic hook 00C, written by
// `trace on --log` and by static tracepoints whose major is above 0xFF) become records that
// tracefmt formats exactly like those of a save file.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "stda/stda.h"

namespace rastrace::tracefmt {

struct LogRecords {
  uint64_t records = 0;  // 00C events
  uint64_t events = 0;   // events of any kind in the log
  std::vector<stda::Problem> problems;
  uint64_t lost = 0;     // what its 006 events say was lost (hits, for `trace on --log`)
};

// True when `bytes` start with a rastrace log magic (either byte order, either layout).
bool IsRastraceLog(std::span<const uint8_t> bytes);

// Reads the log at `path` streaming and calls `each` (when given) with every 00C event as a
// record, in log order: memory stays bounded whatever the log's size. A log that cannot be read
// past some offset yields the records before it and one problem with the reader's message.
LogRecords ReadLogRecords(const std::string& path,
                          const std::function<void(const stda::Record&)>& each = {});

}  // namespace rastrace::tracefmt
