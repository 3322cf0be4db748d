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

// Formats a record: one output line per FMT line, the data cursor running across lines. Missing
// data prints `?`; a data-record prefix with a non-zero status prints the pointer it carries and
// then `?` for every later control that takes data. Never reads outside `record.data`.
class RecordFormatter {
 public:
  explicit RecordFormatter(const FmtRecord& record) : record_(record) {}
  // Appends the formatted line (without newline) to `out`.
  void FormatLine(std::span<const FmtItem> items, std::string& out);
  // True once a non-zero prefix status stopped the data.
  bool data_stopped() const { return stopped_; }

 private:
  void FormatControl(const FmtItem& item, std::string& out);
  bool ConsumePrefix(std::string& out, const FmtItem& item);
  bool Take(size_t n, std::span<const uint8_t>& bytes);

  FmtRecord record_;
  size_t cursor_ = 0;
  // End of the data record the last %P opened; the next %P starts after it, so a control that
  // reads less than the whole record does not shift later records.
  size_t record_end_ = 0;
  bool in_record_ = false;
  bool stopped_ = false;
};

// Formats a record with all its FMT lines.
std::vector<std::string> FormatRecord(std::span<const FmtLineItems> lines, const FmtRecord& record);

// Hex bytes separated by blanks ("0A 1B 2C"), as %U and records without a format print them.
std::string HexBytes(std::span<const uint8_t> bytes);

}  // namespace rastrace::tsf
