// RecordOutput into an STDA buffer, saved as a TRACEFMT unformatted file when tracing ends.
#include <time.h>
#include <unistd.h>

#include "dyntrace/record_output.h"
#include "stda/stda.h"

namespace rastrace::dyntrace {
namespace {

class StdaOutput : public RecordOutput {
 public:
  StdaOutput(std::string path, stda::TraceBuffer buffer)
      : path_(std::move(path)), buffer_(std::move(buffer)) {}

  void OnHit(const CompiledTracepoint& tracepoint, const Hit& hit) override {
    if (tracepoint.major > 0xFF) {
      Count(
          MakeError("{}: major 0x{:X} does not fit an STDA record (one byte); record into a "
                    "rastrace log (--log) instead",
                    tracepoint.name, tracepoint.major));
      return;
    }
    stda::RecordSpec spec;
    spec.major = static_cast<uint8_t>(tracepoint.major);
    spec.minor = tracepoint.minor;
    spec.pid = static_cast<uint16_t>(hit.pid);
    spec.flags = StdaFlags(hit.built);
    spec.time = stda::LocalTimestamp(hit.realtime_ns);
    spec.data = hit.data;
    Count(buffer_.Write(spec));
  }

  Result<void> RecordLost(uint16_t major, uint64_t lost) override {
    if (lost == 0 || major > 0xFF) return Ok();
    uint8_t count[8];
    for (size_t i = 0; i < sizeof count; ++i) count[i] = static_cast<uint8_t>(lost >> (8 * i));
    stda::RecordSpec spec;
    spec.major = static_cast<uint8_t>(major);
    spec.minor = 0;
    spec.pid = static_cast<uint16_t>(getpid());
    spec.flags = stda::flag::kNotKernel | stda::flag::kDynamic | stda::flag::kLostHits;
    spec.time = stda::LocalTimestamp(RealtimeNow());
    spec.data = count;
    return buffer_.Write(spec);
  }

  Result<void> Finish() override {
    buffer_.SetTraceOff(stda::NowStamp());
    return stda::WriteSaveFile(path_, buffer_.Snapshot());
  }

 private:
  std::string path_;
  stda::TraceBuffer buffer_;
};

}  // namespace

Result<std::unique_ptr<RecordOutput>> OpenStdaOutput(const std::string& path, size_t buffer_size) {
  auto buffer = stda::TraceBuffer::Create(stda::Format::kNew, buffer_size);
  if (!buffer) return buffer.error();
  return std::unique_ptr<RecordOutput>(std::make_unique<StdaOutput>(path, std::move(*buffer)));
}

}  // namespace rastrace::dyntrace
