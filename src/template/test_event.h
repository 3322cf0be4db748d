// Test helper: events built the way the log carries them (event::Encode, then event::DecodeEvent),
// with storage that lives as long as the helper, so templates see exactly what the report sees.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"
#include "template/template.h"

namespace rastrace::tmpl::testing {

class OwnedEvent {
 public:
  // Encodes `fields` in `layout` and `order` and decodes the bytes back into an Event.
  static Result<std::unique_ptr<OwnedEvent>> Make(const event::EventFields& fields,
                                                  event::Layout layout, ByteOrder order,
                                                  uint64_t offset = 0);
  const event::Event& event() const { return event_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> buffer_;
  event::Event event_;
};

// A ReportHost that records what the evaluator asked of it.
class RecordingHost : public ReportHost {
 public:
  std::string_view ExecPathOf(uint64_t pid) override;
  void InstallProcess(uint64_t pid, std::string_view path) override;
  void Warn(std::string_view message) override;

  std::vector<std::pair<uint64_t, std::string>> processes;  // ExecPathOf answers from here
  std::vector<std::string> log;                             // "install: PID PATH", "warn: MESSAGE"
};

}  // namespace rastrace::tmpl::testing
