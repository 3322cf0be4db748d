#include "export/ctf_exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <regex>

#include "event/format.h"
#include "event/s2.h"
#include "export/process_table.h"
#include "export/text_escape.h"

namespace rastrace::exporter {

namespace {

// Packet header (magic, uuid, stream id, stream instance id) and context (begin, end, content
// size, packet size, sequence number), all byte-aligned as the metadata declares.
constexpr size_t kHeaderBytes = 4 + 16 + 4 + 8;
constexpr size_t kContextBytes = 5 * 8;
constexpr size_t kBeginOffset = kHeaderBytes;
constexpr size_t kEndOffset = kBeginOffset + 8;
constexpr size_t kContentSizeOffset = kEndOffset + 8;
constexpr size_t kPacketSizeOffset = kContentSizeOffset + 8;
constexpr size_t kSequenceOffset = kPacketSizeOffset + 8;
constexpr uint64_t kMaxClockValue = uint64_t{INT64_MAX} / 2;  // 146 years

bool IsOurFile(const std::string& name) {
  static const std::regex kStreamName("stream_[0-9]+");
  return name == "metadata" || std::regex_match(name, kStreamName);
}

// FNV-1a over the source names and sizes: the same inputs give the same trace UUID, so exports
// can be compared.
std::array<uint8_t, 16> UuidFor(const MergedStream* stream) {
  uint64_t h1 = 0xcbf29ce484222325ULL;
  uint64_t h2 = 0x84222325cbf29ce4ULL;
  const auto mix = [&](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h1 = (h1 ^ c) * 0x100000001b3ULL;
      h2 = (h2 ^ c) * 0x100000001b3ULL + 1;
    }
  };
  if (stream != nullptr) {
    for (const Origin& origin : stream->origins()) mix(origin.name);
    mix(fmt::format("{}", stream->total_bytes()));
  }
  std::array<uint8_t, 16> uuid{};
  std::memcpy(uuid.data(), &h1, 8);
  std::memcpy(uuid.data() + 8, &h2, 8);
  uuid[6] = static_cast<uint8_t>((uuid[6] & 0x0F) | 0x40);  // version 4 layout, variant 1
  uuid[8] = static_cast<uint8_t>((uuid[8] & 0x3F) | 0x80);
  return uuid;
}

}  // namespace

CtfExporter::CtfExporter(std::filesystem::path directory, const MergedStream* stream)
    : directory_(std::move(directory)), merged_(stream), uuid_(UuidFor(stream)) {}

Result<std::unique_ptr<CtfExporter>> CtfExporter::Create(const std::filesystem::path& directory,
                                                         const MergedStream* stream,
                                                         const schema::Catalog* /*catalog*/) {
  std::error_code ec;
  if (std::filesystem::exists(directory, ec)) {
    if (!std::filesystem::is_directory(directory, ec)) {
      return MakeError("{}: not a directory (CTF output is a directory)", directory.string());
    }
    std::vector<std::filesystem::path> ours;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
      const std::string name = entry.path().filename().string();
      if (!IsOurFile(name)) {
        return MakeError(
            "{}: directory holds {}, which is not part of a CTF export (babeltrace2 would read it "
            "as a stream): choose an empty or new directory",
            directory.string(), name);
      }
      ours.push_back(entry.path());
    }
    for (const auto& path : ours) std::filesystem::remove(path, ec);
  } else if (!std::filesystem::create_directories(directory, ec)) {
    return MakeError("{}: cannot create directory: {}", directory.string(), ec.message());
  }
  return std::make_unique<CtfExporter>(directory, stream);
}

uint64_t CtfExporter::bytes_written() const {
  uint64_t total = metadata_bytes_;
  for (const auto& stream : streams_) {
    if (stream) total += stream->file.bytes_written() + stream->packet.size();
  }
  return total;
}

Result<CtfExporter::Stream*> CtfExporter::StreamFor(size_t origin) {
  if (streams_.size() <= origin) streams_.resize(origin + 1);
  if (!streams_[origin]) {
    const auto path = directory_ / fmt::format("stream_{}", origin);
    auto file = OutputFile::Create(path.string());
    if (!file.ok()) return file.error();
    streams_[origin] = std::make_unique<Stream>(Stream{std::move(file).value()});
    streams_[origin]->packet.reserve(kPacketBytes + 1024);
  }
  return streams_[origin].get();
}

uint32_t CtfExporter::ClassFor(const schema::Schema& s) {
  if (class_ids_.size() <= s.id) class_ids_.resize(s.id + 1, -1);
  if (class_ids_[s.id] < 0) {
    class_ids_[s.id] = static_cast<int32_t>(classes_.size());
    classes_.push_back(&s);
  }
  return static_cast<uint32_t>(class_ids_[s.id]);
}

unsigned CtfIntegerBytes(const schema::Field& field) {
  if (field.size <= 1) return 1;
  if (field.size <= 2) return 2;
  if (field.size <= 4) return 4;
  return 8;
}

void CtfExporter::PacketBytes::reserve(size_t n) {
  if (n <= capacity_) return;
  auto grown = std::make_unique_for_overwrite<uint8_t[]>(n);
  if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
  data_ = std::move(grown);
  capacity_ = n;
}

void CtfExporter::PutFields(PacketBytes& p, const ExportRecord& record) {
  // A value the event does not hold is 0, an empty string or no bytes: CTF has no null.
  const auto& fields = record.schema->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const schema::Field& f = fields[i];
    const schema::Value& v = i < record.values.size() ? record.values[i] : schema::Value{};
    switch (f.type) {
      case schema::FieldType::kSigned:
      case schema::FieldType::kUnsigned:
      case schema::FieldType::kHex: {
        const uint64_t value = v.present ? v.integer : 0;
        switch (CtfIntegerBytes(f)) {
          case 1:
            p.Put<uint8_t>(static_cast<uint8_t>(value));
            break;
          case 2:
            p.Put<uint16_t>(static_cast<uint16_t>(value));
            break;
          case 4:
            p.Put<uint32_t>(static_cast<uint32_t>(value));
            break;
          default:
            p.Put<uint64_t>(value);
            break;
        }
        break;
      }
      case schema::FieldType::kFloat:
        p.Put<double>(v.present ? v.real : 0.0);
        break;
      case schema::FieldType::kString:
        text_.clear();
        if (v.present) AppendUtf8Text(text_, v.text);
        text_.push_back('\0');
        p.Append(text_.data(), text_.size());
        break;
      case schema::FieldType::kBytes: {
        const size_t length = v.present ? std::min<size_t>(v.text.size(), 0xFFFF) : 0;
        p.Put<uint16_t>(static_cast<uint16_t>(length));
        p.Append(v.text.data(), length);
        break;
      }
    }
  }
}

void CtfExporter::StartPacket(Stream& stream, size_t origin) {
  auto& p = stream.packet;
  p.clear();
  p.Put<uint32_t>(kCtfMagic);
  p.Append(uuid_.data(), uuid_.size());
  p.Put<uint32_t>(0);                     // stream class id
  p.Put<uint64_t>(origin);                // stream instance id
  const uint8_t context[kContextBytes] = {};  // filled when the packet closes
  p.Append(context, sizeof context);
  stream.events_in_packet = 0;
}

void CtfExporter::ClosePacket(Stream& stream) {
  auto& p = stream.packet;
  if (stream.events_in_packet == 0) return;
  const uint64_t bits = uint64_t{p.size()} * 8;
  p.PutAt<uint64_t>(kBeginOffset, stream.first_ns);
  p.PutAt<uint64_t>(kEndOffset, stream.last_ns);
  p.PutAt<uint64_t>(kContentSizeOffset, bits);
  p.PutAt<uint64_t>(kPacketSizeOffset, bits);
  p.PutAt<uint64_t>(kSequenceOffset, stream.packet_count++);
  stream.file.Write(p.data(), p.size());
  stream.events_in_packet = 0;
}

Result<void> CtfExporter::Write(const ExportRecord& record) {
  const event::Event& e = *record.item->event;
  const size_t origin = record.item->origin;
  auto stream_or = StreamFor(origin);
  if (!stream_or.ok()) return stream_or.error();
  Stream& stream = *stream_or.value();

  // An upper bound of the event's size, to close the packet before it (a string field may grow by
  // a third when invalid UTF-8 is replaced).
  size_t fields_bytes = 0;
  for (size_t i = 0; i < record.schema->fields.size() && i < record.values.size(); ++i) {
    fields_bytes += 8 + 3 * record.values[i].text.size() + 1;
  }
  const size_t event_bytes = 4 + 8 + 8 + 8 + 4 + 2 + 2 + fields_bytes;
  if (stream.events_in_packet > 0 && stream.packet.size() + event_bytes > kPacketBytes) {
    ClosePacket(stream);
  }
  if (stream.events_in_packet == 0) StartPacket(stream, origin);

  // CTF needs time to move forward within a stream; an event recorded out of order is shown at
  // its predecessor's time (its raw ticks stay in the `ticks` field).
  // babeltrace2 keeps nanoseconds from the clock's origin in a signed 64-bit integer and refuses a
  // stream whose times come near its limit (found by export_random_test: INT64_MAX fails, half of
  // it works), so a corrupt timestamp would make the whole stream unreadable.
  if (!clock_set_ && record.item->time_ns != 0) {
    // The clock starts at the wall-clock second of the first event (when the logs are in real
    // time), so babeltrace2 prints dates and the values stay small.
    clock_set_ = true;
    if (merged_ != nullptr && merged_->wall_clock() && record.item->time_ns <= kMaxClockValue) {
      clock_.offset_s = record.item->time_ns / 1'000'000'000;
      clock_.absolute = true;
    }
  }
  const uint64_t offset_ns = clock_.offset_s * 1'000'000'000;
  const uint64_t relative =
      record.item->time_ns > offset_ns ? record.item->time_ns - offset_ns : 0;
  // babeltrace2 adds the offset: the sum must stay below the limit too.
  const uint64_t ns = std::max(std::min(relative, kMaxClockValue - offset_ns), stream.last_ns);
  if (stream.events_in_packet == 0) stream.first_ns = ns;
  stream.last_ns = ns;

  if (e.hook_id == event::kHookHeader && e.generic) {
    // The header's buffer: sysname, nodename, ... as S2 strings.
    const ByteOrder order = record.item->byte_order;
    if (const auto node_at = event::S2End(e.buffer, 0, order)) {
      const auto node = event::ReadS2(e.buffer, *node_at, order);
      if (node) {
        if (hosts_.size() <= origin) hosts_.resize(origin + 1);
        hosts_[origin] = std::string(*node);
      }
    }
  }

  auto& p = stream.packet;
  p.Put<uint32_t>(ClassFor(*record.schema));
  p.Put<uint64_t>(ns);
  p.Put<uint64_t>(e.thread_id);
  p.Put<int64_t>(record.pid ? static_cast<int64_t>(*record.pid) : -1);
  p.Put<int32_t>(record.cpu ? static_cast<int32_t>(*record.cpu) : -1);
  p.Put<uint16_t>(e.hook_id);
  p.Put<uint16_t>(e.subhook);
  PutFields(p, record);
  ++stream.events_in_packet;
  return Ok();
}

Result<void> CtfExporter::Finish() {
  for (auto& stream : streams_) {
    if (!stream) continue;
    ClosePacket(*stream);
    if (auto closed = stream->file.Close(); !closed.ok()) return closed;
  }
  std::vector<std::string> names;
  if (merged_ != nullptr) {
    for (const Origin& origin : merged_->origins()) names.push_back(origin.name);
  }
  auto metadata = OutputFile::Create((directory_ / "metadata").string());
  if (!metadata.ok()) return metadata.error();
  hosts_.resize(names.size());
  const std::string text = CtfMetadata(uuid_, classes_, names, hosts_, clock_);
  metadata->Write(text);
  metadata_bytes_ = text.size();
  return metadata->Close();
}

}  // namespace rastrace::exporter
