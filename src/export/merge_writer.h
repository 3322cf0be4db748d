// `rastrace merge`: several logs into one, in time order, each source's identity kept
// (docs/exporting.md, "Merging").
#pragma once

#include <cstdint>

#include "common/result.h"
#include "event/writer.h"
#include "export/merged_stream.h"
#include "export/progress.h"

namespace rastrace::exporter {

struct MergeStats {
  uint64_t events = 0;         // events copied from the inputs
  uint64_t source_events = 0;  // 00A/0x105 events written
  uint64_t renumbered = 0;     // 00A/0x10A events written: ids given a new number
};

// The byte order every input shares: generic buffers are copied as they are and templates read
// them in the log's byte order, so logs of different byte orders cannot share one file.
Result<ByteOrder> CommonByteOrder(const MergedStream& stream);

// Writes the merged log: first a 00A/25C event saying timestamps are nanoseconds (m = d = 1,
// flag 2); then every event of `stream` but the inputs' own 00A/25C events, with its timestamp
// converted to nanoseconds, and a 00A/0x105 event (data word: origin number; buffer: S2 name;
// thread 0; the time of the next event) before each run of events from another origin. Events of
// 32-bit logs are written in the 64-bit layout, their data words as 4-byte (B) words. A thread or
// process id an earlier origin used is renumbered (IdRenumberer), announced by a 00A/0x10A event
// (words: the id in its source, the new id; thread 0; the time of the event that follows) in the
// run of its origin, before the first event that carries it.
Result<MergeStats> WriteMergedLog(MergedStream& stream, event::LogWriter& writer,
                                  Progress* progress = nullptr);

}  // namespace rastrace::exporter
