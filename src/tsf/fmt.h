// FMT= strings (docs/spec os2.md, "FMT strings"): parsing them into controls, and formatting one
// trace record's data with them. Used by trcust (checking), tracefmt and the dynamic tracer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rastrace::tsf {

enum class FmtControl : uint8_t {
  kLiteral,     // text printed as it is
  kMajor,       // %X
  kMinor,       // %Y
  kByte,        // %B
  kChar,        // %C
  kWord,        // %W
  kDwordWords,  // %D: two words, high first
  kDword,       // %F
  kQword,       // %Q
  kFarPointer,  // %A: SSSS:OOOO
  kString,      // %S
  kHexBytes,    // %U
  kSkip,        // %Innn
  kPrefixOnly,  // %P followed by nothing that takes data (prints nothing, consumes the prefix)
};

struct FmtItem {
  FmtControl control = FmtControl::kLiteral;
  bool prefixed = false;  // preceded by %P: consumes a data-record prefix first
  uint32_t skip = 0;      // kSkip: bytes
  std::string literal;    // kLiteral
  uint32_t offset = 0;    // byte offset of the control's `%` in the FMT text (for messages)
  // Bytes a fixed-size control takes (0 for literals, %X, %Y; -1 for %S and %U).
  int32_t FixedSize() const;
};

using FmtLineItems = std::vector<FmtItem>;

// Parses one FMT string. Errors name the byte offset in the string and what was expected.
Result<FmtLineItems> ParseFmt(std::string_view text);

// What a formatter needs to know about a record.
struct FmtRecord {
  uint16_t major = 0;
  uint16_t minor = 0;
  // Flags bit 0 clear: kernel generated, where %S without %P reads the seed 000 string header.
  bool kernel_generated = false;
  std::span<const uint8_t> data;
};

// What one control takes from a record, without printing it: the bytes it shows, or why it shows
// none. The formatter prints these; the schema part (src/schema) reads typed field values from them,
// so both walk a record the same way.
struct FmtTake {
  enum class Kind : uint8_t {
    kNothing,     // literals, %X, %Y, %I, a lone %P: no data shown
    kData,        // `bytes` hold the control's data (%S: the string region, cut at a NUL when shown)
    kMissing,     // the data ran out (or an earlier prefix stopped it): printed as `?`
    kBadPointer,  // a %P prefix with a non-zero status: `status` and the `pointer` it carries
  };
  Kind kind = Kind::kNothing;
  std::span<const uint8_t> bytes;
  uint8_t status = 0;
  uint64_t pointer = 0;
};

// Walks a record's data control by control: the data cursor runs across FMT lines, a %P prefix
// opens a data record and the next %P starts after it, so a control that reads less than the whole
// record does not shift later records. Never reads outside `record.data`.
class RecordReader {
 public:
  explicit RecordReader(const FmtRecord& record) : record_(record) {}
  FmtTake Take(const FmtItem& item);
  // True once a non-zero prefix status stopped the data.
  bool data_stopped() const { return stopped_; }

 private:
  enum class Prefix : uint8_t { kOk, kMissing, kBad };
  Prefix ConsumePrefix(FmtTake& bad);
  bool TakeBytes(size_t n, std::span<const uint8_t>& bytes);

  FmtRecord record_;
  size_t cursor_ = 0;
  size_t record_end_ = 0;  // end of the data record the last %P opened
  bool in_record_ = false;
  bool stopped_ = false;
};

// Formats a record: one output line per FMT line, the data cursor running across lines. Missing
// data prints `?`; a data-record prefix with a non-zero status prints the pointer it carries and
// then `?` for every later control that takes data. Never reads outside `record.data`.
class RecordFormatter {
 public:
  explicit RecordFormatter(const FmtRecord& record) : record_(record), reader_(record) {}
  // Appends the formatted line (without newline) to `out`.
  void FormatLine(std::span<const FmtItem> items, std::string& out);
  // True once a non-zero prefix status stopped the data.
  bool data_stopped() const { return reader_.data_stopped(); }

 private:
  void FormatControl(const FmtItem& item, std::string& out);

  FmtRecord record_;
  RecordReader reader_;
};

// Formats a record with all its FMT lines.
std::vector<std::string> FormatRecord(std::span<const FmtLineItems> lines, const FmtRecord& record);

// Hex bytes separated by blanks ("0A 1B 2C"), as %U and records without a format print them.
std::string HexBytes(std::span<const uint8_t> bytes);

}  // namespace rastrace::tsf
