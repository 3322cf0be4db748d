#include "template/format_code.h"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace rastrace::tmpl {
namespace {

// Numbers in codes are byte counts and widths inside one event: anything above this is a typo.
constexpr uint32_t kMaxCodeNumber = 65535;

struct Shape {
  bool word = false;  // "W" (or "w" after 'o')
  bool has_n = false;
  uint32_t m = 0;
  uint32_t n = 0;
};

bool ParseNumber(std::string_view text, uint32_t& out) {
  if (text.empty() || text.size() > 5) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out <= kMaxCodeNumber;
}

// "16", "0.16", "W": the part after the code letter. False when it is none of these.
bool ParseShape(std::string_view rest, bool lowercase_w, Shape& shape) {
  if (rest == "W" || (lowercase_w && rest == "w")) {
    shape.word = true;
    return true;
  }
  size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return ParseNumber(rest, shape.m);
  shape.has_n = true;
  return ParseNumber(rest.substr(0, dot), shape.m) && ParseNumber(rest.substr(dot + 1), shape.n);
}

bool OneOf(uint32_t v, std::initializer_list<uint32_t> allowed) {
  for (uint32_t a : allowed) {
    if (a == v) return true;
  }
  return false;
}

CodeParse Invalid(std::string_view word, std::string_view expected) {
  CodeParse p;
  p.match = CodeMatch::kInvalid;
  p.error = fmt::format("'{}' is not a valid format code: expected {}", word, expected);
  return p;
}

struct Letter {
  char letter;
  CodeKind kind;
  bool allows_word;                       // has a W variant
  bool allows_bits;                       // m.n form
  std::initializer_list<uint32_t> sizes;  // empty: any m
  std::string_view expected;
};

const std::array<Letter, 15>& Letters() {
  static const std::array<Letter, 15> kLetters = {{
      {'G', CodeKind::kGoto, false, true, {}, "Gm or Gm.n"},
      {'O', CodeKind::kOmit, false, true, {}, "Om or Om.n"},
      {'R', CodeKind::kReverse, false, false, {}, "Rm"},
      {'W', CodeKind::kWord, false, false, {}, "Wm"},
      {'A', CodeKind::kAscii, false, true, {}, "Am or Am.n"},
      {'S', CodeKind::kString, true, false, {1, 2, 4, 8}, "S1, S2, S4, S8 or SW"},
      {'B', CodeKind::kBinary, false, true, {}, "Bm.n with at most 64 bits"},
      {'X', CodeKind::kHex, true, false, {}, "X0 to X16 or XW"},
      {'D', CodeKind::kSigned, true, false, {1, 2, 4, 8}, "D1, D2, D4, D8 or DW"},
      {'U', CodeKind::kUnsigned, true, false, {1, 2, 4, 8}, "U1, U2, U4, U8 or UW"},
      {'o', CodeKind::kOctal, true, false, {1, 2, 4, 8}, "o1, o2, o4, o8 or oW"},
      {'F', CodeKind::kFloat, false, false, {4, 8}, "F4 or F8"},
      {'T', CodeKind::kTime, true, false, {4, 8}, "T4, T8 or TW"},
      {'E', CodeKind::kErrno, true, false, {1, 2, 4, 8}, "E1, E2, E4, E8 or EW"},
      {'P', CodeKind::kPid, true, false, {4, 8}, "P4, P8 or PW"},
  }};
  return kLetters;
}

}  // namespace

CodeParse ParseFormatCode(std::string_view word) {
  CodeParse p;
  if (word == "HB" || word == "HT") {
    p.match = CodeMatch::kCode;
    p.code.kind = word == "HB" ? CodeKind::kBufferBytes : CodeKind::kHookType;
    return p;
  }
  if (word.size() < 2) return p;
  for (const Letter& l : Letters()) {
    if (l.letter != word[0]) continue;
    Shape shape;
    if (!ParseShape(word.substr(1), l.letter == 'o', shape)) {
      // "B_FLAG0", "E2BIG", "X4s": ordinary words. Digits that overflow are a broken code.
      bool digits_only = word.find_first_not_of("0123456789.", 1) == std::string_view::npos;
      return digits_only ? Invalid(word, l.expected) : p;
    }
    if (shape.word && !l.allows_word) return p;  // "OW", "AW": words, not codes
    if (shape.has_n && !l.allows_bits) return Invalid(word, l.expected);
    if (!shape.word && l.sizes.size() != 0 && !OneOf(shape.m, l.sizes)) {
      return Invalid(word, l.expected);
    }
    if (l.kind == CodeKind::kHex && !shape.word && shape.m > 16) return Invalid(word, l.expected);
    if (l.kind == CodeKind::kBinary && uint64_t{shape.m} * 8 + shape.n > 64) {
      return Invalid(word, l.expected);
    }
    p.match = CodeMatch::kCode;
    p.code.kind = l.kind;
    p.code.word_sized = shape.word;
    p.code.m = shape.m;
    p.code.n = shape.n;
    p.code.has_n = shape.has_n;
    return p;
  }
  return p;
}

bool MoveDataPointer(const FormatCode& c, unsigned word_size, uint64_t& dp_bits) {
  switch (c.kind) {
    case CodeKind::kGoto:
      dp_bits = uint64_t{c.m} * 8 + c.n;
      return true;
    case CodeKind::kOmit:
      dp_bits += uint64_t{c.m} * 8 + c.n;
      return true;
    case CodeKind::kReverse:
      if (c.m == 0) {
        dp_bits &= ~uint64_t{7};  // R0 byte-aligns
        return true;
      }
      if (dp_bits < uint64_t{c.m} * 8) return false;
      dp_bits -= uint64_t{c.m} * 8;
      return true;
    case CodeKind::kWord:
      dp_bits = uint64_t{c.m} * word_size * 8;
      return true;
    default:
      return true;
  }
}

}  // namespace rastrace::tmpl
