// How POSIX trace streams are stored in a rastrace trace log (docs/posix-trace.md): four generic
// hooks in the user range, so that trcrpt formats them with templates/posix.trcfmt.
#pragma once

#include <trace.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"
#include "posix/stream.h"

namespace rastrace::posix {

// 16-bit hook ids (4-digit templates 0FF1..0FF4).
inline constexpr uint16_t kHookPosixEvent = 0x0FF1;      // subhook: event type id
inline constexpr uint16_t kHookPosixEventType = 0x0FF2;  // subhook: event type id; buffer: name
inline constexpr uint16_t kHookPosixStream = 0x0FF3;     // the stream's attributes
inline constexpr uint16_t kHookPosixStatus = 0x0FF4;     // the stream's status at shutdown
inline constexpr uint32_t kStreamRecordVersion = 1;

// 0FF1: data word = prog address; buffer = pid:4 truncation:2 data_len:2 pthread:8, the event-type
// name as S2, then the data. Thread id field = kernel tid; timestamp = CLOCK_REALTIME ns.
void EncodePosixEvent(const EventRecord& e, std::string_view name, ByteOrder order,
                      std::vector<uint8_t>& out);
void EncodeEventType(unsigned id, std::string_view name, ByteOrder order,
                     std::vector<uint8_t>& out);
// 0FF3: buffer = version:4 stream_policy:4 log_policy:4 inheritance:4 max_data:8 stream_size:8
// log_size:8 create_time_ns:8 clock_res_ns:8, then name and version as S2.
void EncodeStreamAttributes(const trace_attr_t& attr, ByteOrder order, std::vector<uint8_t>& out);

struct StatusRecord {
  uint64_t stream_overrun = 0;
  uint64_t log_overrun = 0;
  uint64_t log_full = 0;
  uint64_t flush_error = 0;
  uint64_t stream_full = 0;
};
// 0FF4: five data words in StatusRecord order.
void EncodeStatus(const StatusRecord& status, ByteOrder order, std::vector<uint8_t>& out);
// 00A/25C (nanoseconds) and a 00A/0100 process-table entry.
void EncodeTimeIsNanoseconds(ByteOrder order, std::vector<uint8_t>& out);
void EncodeProcess(int32_t pid, int32_t tid, std::string_view path, ByteOrder order,
                   std::vector<uint8_t>& out);

// A 0FF1 event's fields as views into its buffer (no copy): for readers of every event of a log
// (the schemas of src/schema). nullopt when the event is not well formed.
struct PosixEventView {
  uint16_t event_id = 0;
  uint64_t prog_address = 0;
  int32_t pid = 0;
  uint16_t truncation = 0;
  uint64_t thread = 0;
  std::string_view name;
  std::span<const uint8_t> data;
};
std::optional<PosixEventView> ViewPosixEvent(const event::Event& e, ByteOrder order);

// Decoding, for posix_trace_open. Each returns nullopt when the event is not well formed.
struct DecodedEvent {
  EventRecord record;
  std::string name;
};
std::optional<DecodedEvent> DecodePosixEvent(const event::Event& e, ByteOrder order);
std::optional<std::pair<unsigned, std::string>> DecodeEventType(const event::Event& e);
std::optional<trace_attr_t> DecodeStreamAttributes(const event::Event& e, ByteOrder order);
std::optional<StatusRecord> DecodeStatus(const event::Event& e);

}  // namespace rastrace::posix
