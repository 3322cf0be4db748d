// SWITCH statements: case values in the base of the subject, case bodies.
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

#include "template/parser_impl.h"
#include "template/value_format.h"

namespace rastrace::tmpl::parse {
namespace {

std::string_view BaseName(Base b) {
  switch (b) {
    case Base::kHex:
      return "hex";
    case Base::kDecimal:
      return "decimal";
    case Base::kOctal:
      return "octal";
    case Base::kBinary:
      return "binary";
    case Base::kText:
      return "text";
    case Base::kFloat:
      return "floating point";
    case Base::kErrno:
      return "errno name or decimal";
  }
  return "";
}

Base BaseOf(const Value& v) {
  if (v.source == Value::Source::kCode) {
    switch (v.code.kind) {
      case CodeKind::kHex:
      case CodeKind::kHookType:
        return Base::kHex;
      case CodeKind::kOctal:
        return Base::kOctal;
      case CodeKind::kBinary:
        return Base::kBinary;
      case CodeKind::kAscii:
      case CodeKind::kString:
        return Base::kText;
      case CodeKind::kFloat:
        return Base::kFloat;
      case CodeKind::kErrno:
        return Base::kErrno;
      default:
        return Base::kDecimal;
    }
  }
  if (v.format.kind == MacroFormat::Kind::kCode) {
    switch (v.format.code.kind) {
      case CodeKind::kSigned:
      case CodeKind::kUnsigned:
        return Base::kDecimal;
      case CodeKind::kBinary:
        return Base::kBinary;
      default:
        return Base::kHex;
    }
  }
  if (v.format.kind == MacroFormat::Kind::kLength) return Base::kText;
  return Base::kHex;
}

}  // namespace

bool Parser::CaseLabelOf(const Token& t, Base base, CaseLabel& label) {
  if (t.kind == Tok::kWildcard) {
    label.kind = CaseLabel::Kind::kAny;
    return true;
  }
  if (t.kind == Tok::kError) return Fail(t.offset, std::string(t.text));
  if (t.kind != Tok::kWord && t.kind != Tok::kString) {
    return Fail(t.offset, "expected a case value (a number, a string or \\*)");
  }
  std::string_view text = t.text;
  if (base == Base::kText) {
    label.kind = CaseLabel::Kind::kText;
    label.text = std::string(text);
    return true;
  }
  auto bad = [&] {
    return Fail(t.offset,
                fmt::format("expected a {} case value, found '{}'", BaseName(base), text));
  };
  if (base == Base::kFloat) {
    std::string copy(text);
    char* end = nullptr;
    label.real = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size()) return bad();
    label.kind = CaseLabel::Kind::kFloat;
    return true;
  }
  label.kind = CaseLabel::Kind::kNumber;
  if (base == Base::kErrno && !text.empty() && std::isalpha(static_cast<unsigned char>(text[0]))) {
    int number = ErrnoFromName(text);
    if (number < 0) return bad();
    label.number = number;
    return true;
  }
  bool negative = false;
  if ((base == Base::kDecimal || base == Base::kErrno) && text.starts_with("-")) {
    negative = true;
    text.remove_prefix(1);
  }
  uint64_t magnitude = 0;
  bool ok;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    ok = ParseUnsigned(text.substr(2), 16, magnitude);
  } else {
    int radix = base == Base::kHex ? 16 : base == Base::kOctal ? 8 : base == Base::kBinary ? 2 : 10;
    ok = ParseUnsigned(text, radix, magnitude);
  }
  if (!ok) return bad();
  label.number = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// One case body, loop body or flag string: a braced descriptor or a single item.

bool Parser::MaskedSwitchFollows(uint64_t& mask) {
  Lexer look = lex_;
  Token amp = look.Next();
  if (amp.kind != Tok::kWord || !amp.text.starts_with("&")) return false;
  std::string_view number = amp.text.substr(1);
  if (number.empty()) {
    Token t = look.Next();
    if (t.kind != Tok::kWord) return false;
    number = t.text;
  }
  if (!ParseExprNumber(number, mask) || look.Next().kind != Tok::kComma) return false;
  lex_ = look;
  mask_offset_ = amp.offset;
  return true;
}

bool Parser::SwitchItem(Seq& out, Value subject, uint64_t mask) {
  Switch sw;
  Base base = BaseOf(subject);
  sw.compare = base == Base::kText    ? CompareAs::kText
                : base == Base::kFloat ? CompareAs::kFloat
                                       : CompareAs::kNumber;
  sw.mask = mask;
  if (mask != ~uint64_t{0} && sw.compare != CompareAs::kNumber) {
    return Fail(mask_offset_, "'& mask' needs a numeric SWITCH subject, not text or a float");
  }
  while (true) {
    Lexer before = lex_;
    Token label = lex_.Next();
    if ((label.kind == Tok::kEnd || label.kind == Tok::kClose) && !sw.cases.empty()) {
      lex_ = before;  // a trailing comma after the last case
      break;
    }
    Case c;
    if (!CaseLabelOf(label, base, c.label)) return false;
    before = lex_;
    Token body = lex_.Next();
    if (body.kind == Tok::kComma) {
      sw.cases.push_back(std::move(c));
      continue;
    }
    if (body.kind == Tok::kEnd || body.kind == Tok::kClose) {
      lex_ = before;
      sw.cases.push_back(std::move(c));
      break;
    }
    if (!Body(c.body, body, "a case string or {descriptor}")) return false;
    sw.cases.push_back(std::move(c));
    before = lex_;
    if (lex_.Next().kind != Tok::kComma) {
      lex_ = before;
      break;
    }
  }
  sw.cases.shrink_to_fit();
  Node n;
  n.kind = NodeKind::kSwitch;
  n.value = AddValue(subject);
  n.detail = AddTo(ct_.switches, std::move(sw));
  out.push_back(n);
  return true;
}

}  // namespace rastrace::tmpl::parse
