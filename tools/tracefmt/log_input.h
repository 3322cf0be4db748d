// tracefmt on a rastrace trace log: the tracepoint hits it holds (generic hook 00C, written by
// `trace on --log` and by static tracepoints whose major is above 0xFF) become records that
// tracefmt formats exactly like those of a save file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stda/stda.h"

namespace rastrace::tracefmt {

struct LogRecords {
  std::vector<stda::Record> records;  // in log order
  std::vector<stda::Problem> problems;
  uint64_t events = 0;  // events of any kind in the log
  uint64_t lost = 0;    // what its 006 events say was lost (hits, for `trace on --log`)
};

// True when `bytes` start with a rastrace log magic (either byte order, either layout).
bool IsRastraceLog(std::span<const uint8_t> bytes);

// Reads every 00C event of the log at `path`. A log that cannot be read past some offset yields
// the records before it and one problem with the reader's message.
LogRecords ReadLogRecords(const std::string& path);

}  // namespace rastrace::tracefmt
