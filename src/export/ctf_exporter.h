// CTF 1.8: a directory with a TSDL `metadata` file and one binary stream file per source, for
// babeltrace2 and Trace Compass. One event class per schema (src/schema) with its named, typed
// fields, made as schemas appear; the metadata is written last, when all of them are known. The
// clock's offset is the wall-clock second of the first event when the logs say where they stand in
// real time, so babeltrace2 prints real dates.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "export/exporter.h"
#include "export/output_file.h"

namespace rastrace::exporter {

class CtfExporter : public Exporter {
 public:
  // Creates `directory` when missing. Refuses a directory holding files other than a previous
  // export's `metadata` and `stream_N` (babeltrace2 would read any file there as a stream); those
  // are replaced.
  static Result<std::unique_ptr<CtfExporter>> Create(const std::filesystem::path& directory,
                                                     const MergedStream* stream,
                                                     const schema::Catalog* catalog);
  // Use Create, which prepares the directory.
  CtfExporter(std::filesystem::path directory, const MergedStream* stream);

  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override;
  uint64_t bytes_written() const override;

  // Packets close when they reach this size (an event never spans packets; one bigger event makes
  // a bigger packet).
  static constexpr size_t kPacketBytes = 256 * 1024;

  // The clock: its offset from 1970 in seconds (0 when the logs are not in real time), and whether
  // it is real time (TSDL `absolute`).
  struct Clock {
    uint64_t offset_s = 0;
    bool absolute = false;
  };

 private:
  // A packet's bytes. Appends copy without first zeroing what they cover (a vector's resize
  // does, which cost a third of an export's time).
  class PacketBytes {
   public:
    void reserve(size_t n);
    void clear() { size_ = 0; }
    size_t size() const { return size_; }
    const uint8_t* data() const { return data_.get(); }
    void Append(const void* bytes, size_t n) {
      if (size_ + n > capacity_) reserve(2 * (size_ + n));
      std::memcpy(data_.get() + size_, bytes, n);
      size_ += n;
    }
    template <class T>
    void Put(T value) {  // native order, as the metadata says
      if (size_ + sizeof value > capacity_) reserve(2 * (size_ + sizeof value));
      std::memcpy(data_.get() + size_, &value, sizeof value);
      size_ += sizeof value;
    }
    template <class T>
    void PutAt(size_t at, T value) {
      std::memcpy(data_.get() + at, &value, sizeof value);
    }

   private:
    std::unique_ptr<uint8_t[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
  };

  struct Stream {
    OutputFile file;
    PacketBytes packet;
    uint64_t first_ns = 0;
    uint64_t last_ns = 0;
    uint64_t packet_count = 0;
    size_t events_in_packet = 0;
  };
  Result<Stream*> StreamFor(size_t origin);
  uint32_t ClassFor(const schema::Schema& s);
  void PutFields(PacketBytes& p, const ExportRecord& record);
  void StartPacket(Stream& stream, size_t origin);
  void ClosePacket(Stream& stream);

  std::filesystem::path directory_;
  const MergedStream* merged_;
  std::vector<std::unique_ptr<Stream>> streams_;  // by origin; null until the origin has an event
  std::vector<int32_t> class_ids_;                // schema id -> class id, -1 when none
  std::vector<const schema::Schema*> classes_;
  Clock clock_;
  bool clock_set_ = false;
  std::string text_;  // a string field, made valid UTF-8
  std::vector<std::string> hosts_;  // by origin, from 003 headers
  std::array<uint8_t, 16> uuid_{};
  uint64_t metadata_bytes_ = 0;
};

// The TSDL metadata for these event classes (class id = index) and source names (ctf_metadata.cc).
// `hosts[i]`: the node name in source i's trace header (003), empty when it had none.
std::string CtfMetadata(const std::array<uint8_t, 16>& uuid,
                        const std::vector<const schema::Schema*>& classes,
                        const std::vector<std::string>& source_names,
                        const std::vector<std::string>& hosts, CtfExporter::Clock clock);

// Bytes an integer field takes in a CTF event: its size rounded up to 1, 2, 4 or 8.
unsigned CtfIntegerBytes(const schema::Field& field);

// Magic number that starts every CTF packet.
inline constexpr uint32_t kCtfMagic = 0xC1FC1FC1;

}  // namespace rastrace::exporter
