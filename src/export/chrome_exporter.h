// Chrome Trace Event format (JSON object form) for Perfetto's UI and chrome://tracing: instants for
// single hooks, B/E slices for the pairs of pairs.h, process and thread names from the log's
// process table as metadata events, microsecond timestamps counted from the first timestamp.
// Written as it goes; only open slices and names already emitted are kept.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "export/exporter.h"
#include "export/output_file.h"
#include "export/pairs.h"
#include "export/tracepoints.h"

namespace rastrace::exporter {

class ChromeExporter : public Exporter {
 public:
  ChromeExporter(OutputFile file, PairTable pairs, const MergedStream* stream,
                 const schema::Declarations* declarations = nullptr);
  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override;
  uint64_t bytes_written() const override { return file_.bytes_written(); }

  // The pid of the track that holds a source's global slices (TRACE ON/OFF): above any Linux pid.
  static constexpr uint64_t kGlobalPid = 0x7FFFFFFE;

 private:
  struct Track {
    uint64_t pid = 0;
    uint64_t tid = 0;
    bool operator<(const Track& o) const { return pid != o.pid ? pid < o.pid : tid < o.tid; }
  };
  struct OpenSlice {
    size_t rule = 0;  // kTracepointRule: a dynamic tracepoint's procedure
    uint64_t key = 0;
    bool operator==(const OpenSlice&) const = default;
  };
  // The "rule" of slices from a dynamic tracepoint's entry to its return (key: the procedure).
  static constexpr size_t kTracepointRule = SIZE_MAX;

  uint64_t MapId(size_t origin, uint64_t id) const;
  void EmitNames(const ExportRecord& record, const Track& track);
  void EmitMetadata(std::string_view what, uint64_t pid, uint64_t tid, std::string_view name);
  void BeginEvent(char phase, std::string_view name, const Track& track, uint64_t ts_ns);
  void AppendArgs(const ExportRecord& record, std::string_view end_key);
  void EndSlice(const Track& track, uint64_t ts_ns, std::string_view reason);
  void BeginSlice(const ExportRecord& record, const Track& track, uint64_t ts_ns,
                  std::string_view name, OpenSlice slice);
  // Closes `slice` on `track` with `record` as its end; false when it is not open there.
  bool CloseSlice(const ExportRecord& record, const Track& track, uint64_t ts_ns, OpenSlice slice);
  void Instant(const ExportRecord& record, const Track& track, uint64_t ts_ns,
               std::string_view name);
  uint64_t ProcedureKey(std::string_view name);
  void Counters(const ExportRecord& record, const Track& track, uint64_t ts_ns);
  void Flush();

  // A #@counter: events it matches give a sample of one of their fields.
  struct Counter {
    std::string name;
    HookMatch on;
    std::string field;
  };

  OutputFile file_;
  PairTable pairs_;
  const MergedStream* stream_;
  std::string line_;
  bool first_event_ = true;
  bool have_base_ = false;
  uint64_t base_ns_ = 0;
  uint64_t last_ts_ns_ = 0;  // relative; output timestamps never go backwards
  std::map<Track, std::vector<OpenSlice>> open_;
  std::unordered_map<uint64_t, std::string> process_names_;  // mapped pid -> name emitted
  std::unordered_map<uint64_t, std::string> thread_names_;   // mapped tid -> name emitted
  std::unordered_set<uint64_t> seen_tids_;                   // mapped tids whose names were checked
  std::vector<uint64_t> seen_generation_;                    // per origin
  std::set<Track> global_tracks_;                            // named already
  std::vector<TracepointTable> tracepoints_;                 // per origin
  std::unordered_map<std::string, uint64_t> procedure_keys_;
  std::string name_scratch_;
  std::vector<Counter> counters_;
  std::vector<bool> hooks_with_counters_ = std::vector<bool>(65536, false);
  bool schema_counters_ = false;
};

}  // namespace rastrace::exporter
