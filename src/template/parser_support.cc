// Small helpers of the parser: numbers in their bases, %formats, subroutine names.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "template/parser_impl.h"

namespace rastrace::tmpl::parse {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsHexDigit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// "$90F": three hex digits name a template subroutine.
bool IsSubroutineName(std::string_view name) {
  return name.size() == 3 && std::all_of(name.begin(), name.end(), IsHexDigit);
}

bool IsLongSubroutineName(std::string_view name) {
  return name.size() == 4 && std::all_of(name.begin(), name.end(), IsHexDigit);
}

bool ParseUnsigned(std::string_view text, int base, uint64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

// A number in an expression or a LOOP count: decimal, or hex with 0x.
bool ParseExprNumber(std::string_view text, uint64_t& out) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseUnsigned(text.substr(2), 16, out);
  }
  return ParseUnsigned(text, 10, out);
}

// BITFLAGS numbers: hex by default, a leading 'o' for octal, 0x for hex.
bool ParseFlagNumber(std::string_view text, uint64_t& out) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseUnsigned(text.substr(2), 16, out);
  }
  if (text.size() > 1 && text[0] == 'o') return ParseUnsigned(text.substr(1), 8, out);
  return ParseUnsigned(text, 16, out);
}

bool IsPointerCode(CodeKind k) {
  return k == CodeKind::kGoto || k == CodeKind::kOmit || k == CodeKind::kReverse ||
         k == CodeKind::kWord;
}

MacroFormat ParseMacroFormat(std::string_view text) {
  MacroFormat f;
  f.kind = MacroFormat::Kind::kCode;
  f.code.kind = CodeKind::kHex;
  f.code.m = 2;  // "Others default to X2"
  char letter = text.empty() ? '\0' : text[0];
  if (letter == 'W') {
    std::string_view rest = text.substr(1);
    size_t dot = rest.find('.');
    uint64_t a = 0, b = 0;
    bool ok = dot == std::string_view::npos ? ParseUnsigned(rest, 10, a) && (b = a, true)
                                            : ParseUnsigned(rest.substr(0, dot), 10, a) &&
                                                  ParseUnsigned(rest.substr(dot + 1), 10, b);
    if (ok && a < 64 && b < 64) {
      f.kind = MacroFormat::Kind::kBits;
      f.low_bit = static_cast<uint8_t>(std::min(a, b));
      f.high_bit = static_cast<uint8_t>(std::max(a, b));
    }
    return f;
  }
  if (letter == 'S') {
    f.kind = MacroFormat::Kind::kLength;
    return f;
  }
  if (letter == 'X' || letter == 'D' || letter == 'U' || letter == 'B') {
    CodeParse p = ParseFormatCode(text);
    if (p.match == CodeMatch::kCode) f.code = p.code;
  }
  return f;
}

}  // namespace rastrace::tmpl::parse
