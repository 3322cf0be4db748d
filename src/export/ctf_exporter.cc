#include "export/ctf_exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <regex>

#include "event/format.h"
#include "event/s2.h"
#include "export/process_table.h"

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

template <class T>
void Put(std::vector<uint8_t>& out, T value) {
  const size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);  // native order, as the metadata says
}

template <class T>
void PutAt(std::vector<uint8_t>& out, size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}

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
    : directory_(std::move(directory)),
      merged_(stream),
      class_ids_(size_t{2} << 16, -1),
      uuid_(UuidFor(stream)) {}

Result<std::unique_ptr<CtfExporter>> CtfExporter::Create(const std::filesystem::path& directory,
                                                         const MergedStream* stream) {
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

uint32_t CtfExporter::ClassFor(const event::Event& e) {
  const size_t slot = (size_t{e.generic} << 16) | e.hook_id;
  if (class_ids_[slot] < 0) {
    class_ids_[slot] = static_cast<int32_t>(classes_.size());
    classes_.push_back(EventClass{e.hook_id, e.generic});
  }
  return static_cast<uint32_t>(class_ids_[slot]);
}

void CtfExporter::StartPacket(Stream& stream, size_t origin) {
  auto& p = stream.packet;
  p.clear();
  Put<uint32_t>(p, kCtfMagic);
  p.insert(p.end(), uuid_.begin(), uuid_.end());
  Put<uint32_t>(p, 0);                     // stream class id
  Put<uint64_t>(p, origin);                // stream instance id
  p.resize(kHeaderBytes + kContextBytes);  // context filled when the packet closes
  stream.events_in_packet = 0;
}

void CtfExporter::ClosePacket(Stream& stream) {
  auto& p = stream.packet;
  if (stream.events_in_packet == 0) return;
  const uint64_t bits = uint64_t{p.size()} * 8;
  PutAt<uint64_t>(p, kBeginOffset, stream.first_ns);
  PutAt<uint64_t>(p, kEndOffset, stream.last_ns);
  PutAt<uint64_t>(p, kContentSizeOffset, bits);
  PutAt<uint64_t>(p, kPacketSizeOffset, bits);
  PutAt<uint64_t>(p, kSequenceOffset, stream.packet_count++);
  stream.file.Write(p.data(), p.size());
  stream.events_in_packet = 0;
}

Result<void> CtfExporter::Write(const ExportRecord& record) {
  const event::Event& e = *record.item->event;
  const size_t origin = record.item->origin;
  auto stream_or = StreamFor(origin);
  if (!stream_or.ok()) return stream_or.error();
  Stream& stream = *stream_or.value();

  const size_t fields_bytes =
      2 + 2 + 2 + 8 + (e.generic ? 8 + 2 + e.buffer.size() : 1 + 8 * size_t{e.word_count});
  const size_t event_bytes = 4 + 8 + 8 + 8 + 4 + fields_bytes;
  if (stream.events_in_packet > 0 && stream.packet.size() + event_bytes > kPacketBytes) {
    ClosePacket(stream);
  }
  if (stream.events_in_packet == 0) StartPacket(stream, origin);

  // CTF needs time to move forward within a stream; an event recorded out of order is shown at
  // its predecessor's time (its raw ticks stay in the `ticks` field).
  // babeltrace2 keeps nanoseconds from the clock's origin in a signed 64-bit integer and refuses a
  // stream whose times come near its limit (found by export_random_test: INT64_MAX fails, half of
  // it works), so a corrupt timestamp would make the whole stream unreadable.
  const uint64_t ns = std::max(std::min(record.item->time_ns, kMaxClockValue), stream.last_ns);
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
  Put<uint32_t>(p, ClassFor(e));
  Put<uint64_t>(p, ns);
  Put<uint64_t>(p, e.thread_id);
  Put<int64_t>(p, record.pid ? static_cast<int64_t>(*record.pid) : -1);
  Put<int32_t>(p, record.cpu ? static_cast<int32_t>(*record.cpu) : -1);
  uint16_t flags = e.flags;
  if (e.timestamped) flags |= event::kFlagTimestamp;
  if (e.generic) flags |= event::kFlagGeneric;
  if (e.data32) flags |= event::kFlag32BitData;
  Put<uint16_t>(p, e.hook_id);
  Put<uint16_t>(p, e.subhook);
  Put<uint16_t>(p, flags);
  Put<uint64_t>(p, e.timestamp);
  if (e.generic) {
    const size_t length = std::min<size_t>(e.buffer.size(), 0xFFFF);
    Put<uint64_t>(p, e.generic_word);
    Put<uint16_t>(p, static_cast<uint16_t>(length));
    p.insert(p.end(), e.buffer.begin(), e.buffer.begin() + static_cast<ptrdiff_t>(length));
  } else {
    const uint8_t count = std::min<uint8_t>(e.word_count, event::kMaxDataWords);
    Put<uint8_t>(p, count);
    for (unsigned i = 0; i < count; ++i) Put<uint64_t>(p, e.words[i]);
  }
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
  const std::string text = CtfMetadata(uuid_, classes_, names, hosts_);
  metadata->Write(text);
  metadata_bytes_ = text.size();
  return metadata->Close();
}

}  // namespace rastrace::exporter
