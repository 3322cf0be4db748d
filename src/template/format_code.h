// Format codes of seed 002 section II (X4, B0.5, A8.16, SW, ...): what one code word means.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rastrace::tmpl {

enum class CodeKind : uint8_t {
  kGoto,         // Gm.n
  kOmit,         // Om.n
  kReverse,      // Rm
  kWord,         // Wm
  kAscii,        // Am.n
  kString,       // Sm
  kBinary,       // Bm.n
  kHex,          // Xm
  kSigned,       // Dm
  kUnsigned,     // Um
  kOctal,        // om
  kFloat,        // Fm
  kBufferBytes,  // HB
  kHookType,     // HT
  kTime,         // Tm
  kErrno,        // Em
  kPid,          // Pm
};

struct FormatCode {
  CodeKind kind = CodeKind::kHex;
  bool word_sized = false;  // the W variant (XW, DW, ...): 4 or 8 bytes by the hook's layout
  bool has_n = false;       // "A16" versus "A16.16"
  uint32_t m = 0;           // bytes (or word number for W)
  uint32_t n = 0;           // bits (G, O, B) or display width (A)

  // Bytes the code reads at `word_size`, for the codes that read whole bytes.
  uint32_t Bytes(unsigned word_size) const { return word_sized ? word_size : m; }
};

// The outcome of looking at one word of a template.
enum class CodeMatch {
  kNotCode,  // ordinary text ("block", "B_FLAG0", "E2BIG")
  kCode,     // a valid code, in `code`
  kInvalid,  // looks like a code but the size is not allowed: `error` says what was expected
};

struct CodeParse {
  CodeMatch match = CodeMatch::kNotCode;
  FormatCode code;
  std::string error;
};

// Classifies `word` (a whole word, no surrounding blanks).
CodeParse ParseFormatCode(std::string_view word);

// Moves the DATA_POINTER (in bits) as the pointer codes G, O, R and W do (seed 002 section II; W
// counts words of `word_size` bytes); other codes leave it. False when R would move it before the
// start of the event. Shared by the evaluator and the schemas derived from templates
// (src/schema), so both read an event at the same places.
bool MoveDataPointer(const FormatCode& code, unsigned word_size, uint64_t& dp_bits);

}  // namespace rastrace::tmpl
