#include "template/test_event.h"

#include <fmt/format.h>

#include "event/decode.h"
#include "event/encode.h"

namespace rastrace::tmpl::testing {

Result<std::unique_ptr<OwnedEvent>> OwnedEvent::Make(const event::EventFields& fields,
                                                     event::Layout layout, ByteOrder order,
                                                     uint64_t offset) {
  auto owned = std::make_unique<OwnedEvent>();
  // The buffer is copied so that `fields.buffer` need not outlive this call.
  owned->buffer_.assign(fields.buffer.begin(), fields.buffer.end());
  event::EventFields copy = fields;
  copy.buffer = owned->buffer_;
  auto encoded = event::Encode(copy, layout, order, owned->bytes_);
  if (!encoded.ok()) return encoded.error();
  event::DecodeResult r = event::DecodeEvent(owned->bytes_, layout, order, owned->event_);
  if (r.status != event::DecodeStatus::kOk) {
    return MakeError("cannot decode the encoded event: {}", r.problem);
  }
  owned->event_.offset = offset;
  return owned;
}

std::string_view RecordingHost::ExecPathOf(uint64_t pid) {
  for (const auto& [p, path] : processes) {
    if (p == pid) return path;
  }
  return {};
}

void RecordingHost::InstallProcess(uint64_t pid, std::string_view path) {
  processes.emplace_back(pid, std::string(path));
  log.push_back(fmt::format("install: {} {}", pid, path));
}

void RecordingHost::Warn(std::string_view message) {
  log.push_back(fmt::format("warn: {}", message));
}

}  // namespace rastrace::tmpl::testing
