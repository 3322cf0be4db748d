// Formatting STDA records as text with trace format files: what tracefmt prints, kept here so
// the dynamic tracer formats its records the same way.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stda/stda.h"
#include "tsf/format_file.h"

namespace rastrace::stda {

// Trace format files of a directory, loaded on first use by major (TRCxxxx.TFF, any case).
class FormatLibrary {
 public:
  explicit FormatLibrary(std::string directory) : directory_(std::move(directory)) {}
  // nullptr when the directory has no format file for `major` or it could not be loaded.
  const tsf::FormatFile* Find(uint16_t major);
  // Format files that exist but could not be loaded, with the reason.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::string directory_;
  std::map<uint16_t, std::unique_ptr<tsf::FormatFile>> loaded_;
  std::vector<std::string> errors_;
};

// "08:30:15.50" (new format), "15.50" (GA), "-" without a timestamp.
std::string TimestampText(const Record& record, Format format);

// Appends a record: a heading line (sequence, major/minor, pid, time, flags, DESC), then one line
// per FMT string, or the data in hex when the record has no format. Returns true when it was
// formatted with FMT strings.
bool AppendRecordText(size_t sequence, const Record& record, Format format,
                      const tsf::TracepointFormat* format_entry, std::string& out);

// The text of a tracepoint hit in a rastrace log (00C) as trcrpt and the exports' text column show
// it: the DESC (else `TRACEPOINT MMMM:NNNN`), then one line per FMT string, lines separated by '\n'.
void AppendTracepointText(const tsf::TracepointFormat& format, const tsf::FmtRecord& record,
                          std::string& out);

// Hex dump lines of `data`, 16 bytes a line, each starting with `indent`.
std::string HexDumpLines(std::span<const uint8_t> data, std::string_view indent);

}  // namespace rastrace::stda
