// CTF 1.8: a directory with a TSDL `metadata` file and one binary stream file per source, for
// babeltrace2 and Trace Compass. Event classes are made per hook id as hooks appear; the metadata
// is written last, when all of them are known.
#pragma once

#include <array>
#include <cstdint>
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
                                                     const MergedStream* stream);
  // Use Create, which prepares the directory.
  CtfExporter(std::filesystem::path directory, const MergedStream* stream);

  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override;
  uint64_t bytes_written() const override;

  // Packets close when they reach this size (an event never spans packets; one bigger event makes
  // a bigger packet).
  static constexpr size_t kPacketBytes = 256 * 1024;

  struct EventClass {
    uint16_t hook_id = 0;
    bool generic = false;
  };

 private:
  struct Stream {
    OutputFile file;
    std::vector<uint8_t> packet;
    uint64_t first_ns = 0;
    uint64_t last_ns = 0;
    uint64_t packet_count = 0;
    size_t events_in_packet = 0;
  };
  Result<Stream*> StreamFor(size_t origin);
  uint32_t ClassFor(const event::Event& e);
  void StartPacket(Stream& stream, size_t origin);
  void ClosePacket(Stream& stream);

  std::filesystem::path directory_;
  const MergedStream* merged_;
  std::vector<std::unique_ptr<Stream>> streams_;  // by origin; null until the origin has an event
  std::vector<int32_t> class_ids_;                // (hook id, generic) -> class id, -1 when none
  std::vector<EventClass> classes_;
  std::vector<std::string> hosts_;  // by origin, from 003 headers
  std::array<uint8_t, 16> uuid_{};
  uint64_t metadata_bytes_ = 0;
};

// The TSDL metadata for these event classes and source names (ctf_metadata.cc).
// `hosts[i]`: the node name in source i's trace header (003), empty when it had none.
std::string CtfMetadata(const std::array<uint8_t, 16>& uuid,
                        const std::vector<CtfExporter::EventClass>& classes,
                        const std::vector<std::string>& source_names,
                        const std::vector<std::string>& hosts);

// Magic number that starts every CTF packet.
inline constexpr uint32_t kCtfMagic = 0xC1FC1FC1;

}  // namespace rastrace::exporter
