// Where `trace on` stores the records of its hits: an STDA buffer saved as a TRACEFMT file (the
// OS/2 way, majors up to 0xFF), or a rastrace log (any major). One engine thread calls OnHit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "dyntrace/hit_sink.h"
#include "event/format.h"

namespace rastrace::dyntrace {

// Rastrace log events of dynamic tracepoints: generic hook 00C (16-bit id 0x00C0), subhook =
// minor, data word = major | flags << 16 | pid << 32 (flags: the STDA trailer flags), buffer =
// the record data (REGS values and prefixed data records), thread id = tid, timestamp = the hit's
// CLOCK_REALTIME in ns (the log's 00A/25C event says ticks are ns).
// Before the first hit, one 00A/109 event per tracepoint: generic, data word = major | minor << 16
// | kind << 32 (SiteKind), buffer = S2 procedure name (or "file:line").
using event::kHookDynamicTracepoint;  // the hook is part of the log format
using event::kUtilTracepointDef;

class RecordOutput : public HitSink {
 public:
  // Called once per attached tracepoint before any hit. The log writes a 00A/109 event (what the
  // tracepoint is, for readers such as the exporter); an STDA buffer has no place for it.
  virtual Result<void> Define(const CompiledTracepoint& /*tracepoint*/) { return Ok(); }
  // Hits of tracepoints of `major` the engine could not record, before Finish: the log's 006
  // event (data words: the count, thread 0), or in an STDA buffer the lost-hits record
  // (stda::flag::kLostHits: the major, minor 0, the count).
  virtual Result<void> RecordLost(uint16_t major, uint64_t lost) = 0;
  // Writes what is still buffered (the STDA save file) and closes.
  virtual Result<void> Finish() = 0;
  uint64_t records() const { return records_; }
  uint64_t failed() const { return failed_; }  // hits that could not be stored
  const std::string& first_failure() const { return first_failure_; }

 protected:
  void Count(const Result<void>& stored);

 private:
  uint64_t records_ = 0;
  uint64_t failed_ = 0;
  std::string first_failure_;
};

// STDA flags of a dynamic record: not kernel, dynamic, incomplete when cut by MAXDATALENGTH.
uint8_t StdaFlags(const BuiltRecord& built);

// `buffer_size`: bytes of the STDA image (0x40..0x10000).
Result<std::unique_ptr<RecordOutput>> OpenStdaOutput(const std::string& path, size_t buffer_size);
Result<std::unique_ptr<RecordOutput>> OpenLogOutput(const std::string& path);

}  // namespace rastrace::dyntrace
