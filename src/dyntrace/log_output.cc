// RecordOutput into a rastrace log (hook 00C, see record_output.h).
#include <algorithm>

#include "common/byte_order.h"
#include "dyntrace/record_output.h"
#include "event/format.h"
#include "event/timebase.h"
#include "event/writer.h"

namespace rastrace::dyntrace {
namespace {

class LogOutput : public RecordOutput {
 public:
  explicit LogOutput(event::LogWriter writer) : writer_(std::move(writer)) {}

  void OnHit(const CompiledTracepoint& tracepoint, const Hit& hit) override {
    event::EventFields fields;
    fields.hook_id = kHookDynamicTracepoint;
    fields.subhook = tracepoint.minor;
    fields.generic = true;
    fields.timestamped = true;
    fields.generic_word = uint64_t{tracepoint.major} | uint64_t{StdaFlags(hit.built)} << 16 |
                          uint64_t{static_cast<uint32_t>(hit.pid)} << 32;
    fields.buffer = hit.data;
    fields.thread_id = static_cast<uint64_t>(hit.tid);
    fields.timestamp = hit.realtime_ns;
    Count(writer_.Write(fields));
  }

  Result<void> Define(const CompiledTracepoint& tracepoint) override {
    // S2: the 2-byte length in the log's byte order, then the bytes (docs/log-format.md).
    std::string_view name = tracepoint.procedure;
    if (name.size() > 0xFFFF) name = name.substr(0, 0xFFFF);
    definition_.resize(2 + name.size());
    Store<uint16_t>(definition_.data(), static_cast<uint16_t>(name.size()), writer_.byte_order());
    std::copy(name.begin(), name.end(), definition_.begin() + 2);
    event::EventFields fields;
    fields.hook_id = event::kHookUtil;
    fields.subhook = kUtilTracepointDef;
    fields.generic = true;
    fields.timestamped = true;
    fields.generic_word = uint64_t{tracepoint.major} | uint64_t{tracepoint.minor} << 16 |
                          uint64_t{static_cast<uint8_t>(tracepoint.kind)} << 32;
    fields.buffer = definition_;
    fields.thread_id = 0;
    fields.timestamp = RealtimeNow();
    return writer_.Write(fields);
  }

  Result<void> RecordLost(uint16_t /*major*/, uint64_t lost) override {
    if (lost == 0) return Ok();
    event::EventFields fields;
    fields.hook_id = event::kHookLost;
    fields.timestamped = true;
    fields.word_count = 2;
    fields.words[0] = lost;
    fields.words[1] = 0;  // not one thread's
    fields.timestamp = RealtimeNow();
    return writer_.Write(fields);
  }

  Result<void> Finish() override { return writer_.Close(); }

 private:
  event::LogWriter writer_;
  std::vector<uint8_t> definition_;
};

}  // namespace

Result<std::unique_ptr<RecordOutput>> OpenLogOutput(const std::string& path) {
  event::WriterOptions options;
  options.overwrite = true;
  auto writer = event::LogWriter::Create(path, options);
  if (!writer) return writer.error();
  // Ticks are CLOCK_REALTIME nanoseconds: flag 0 (log-format.md, "Timestamps").
  event::EventFields conversion;
  conversion.hook_id = event::kHookUtil;
  conversion.subhook = event::kUtilTimeConversion;
  conversion.generic = true;
  std::vector<uint8_t> buffer = event::EncodeTimeConversion({1, 1, 0}, writer->byte_order());
  conversion.buffer = buffer;
  auto written = writer->Write(conversion);
  if (!written) return written.error();
  return std::unique_ptr<RecordOutput>(std::make_unique<LogOutput>(std::move(*writer)));
}

}  // namespace rastrace::dyntrace
