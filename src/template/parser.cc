#include "template/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "template/compiled.h"
#include "template/lexer.h"
#include "template/value_format.h"

namespace rastrace::tmpl {
namespace {

// Nesting of braces and parentheses the parser follows before giving up (keeps its stack small
// whatever the input).
constexpr int kMaxNesting = 64;
// The evaluator's fixed expression stack.
constexpr uint32_t kMaxExprStack = 128;

enum class Base : uint8_t { kHex, kDecimal, kOctal, kBinary, kText, kFloat, kErrno };

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

class Parser {
 public:
  Parser(const SourceText& source, CompiledTemplate& out)
      : src_(source), lex_(source.text()), ct_(out) {}

  bool failed() const { return failed_; }
  size_t error_offset() const { return error_offset_; }
  const std::string& error_message() const { return error_message_; }

  bool Header(Template& t);
  bool Body(Template& t);

 private:
  bool Fail(size_t offset, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_offset_ = offset;
      error_message_ = std::move(message);
    }
    return false;
  }
  std::string PosText(size_t offset) const {
    SourcePos p = src_.PosAt(offset);
    return fmt::format("{}:{}", p.line, p.column);
  }

  bool ParseSeq(Seq& out, bool until_close, size_t open_offset);
  bool Item(Seq& out, const Token& t, bool allow_switch);
  bool MacroItem(Seq& out, const Token& t, bool allow_switch);
  bool WordItem(Seq& out, const Token& t, bool allow_switch);
  bool MacroValue(const Token& t, Value& v);
  bool SubjectValue(const Token& t, Value& v, std::string_view what);
  bool SwitchItem(Seq& out, Value subject);
  bool CaseLabelOf(const Token& t, Base base, CaseLabel& label);
  bool Body(Seq& out, const Token& t, std::string_view what);
  bool Loop(Seq& out, const Token& keyword);
  bool Bitflags(Seq& out, const Token& keyword);
  bool Statement(Seq& out, size_t open_offset);
  bool Backquote(Seq& out, const Token& t);
  bool BuiltinCall(std::string_view name, size_t offset, std::unique_ptr<Builtin>& out);
  bool Expression(Expr& e);
  bool Additive(Expr& e, int depth);
  bool Multiplicative(Expr& e, int depth);
  bool Unary(Expr& e, int depth);
  bool Primary(Expr& e, int depth);
  bool MacroIndex(std::string_view name, bool defining, size_t offset, uint16_t& index);
  bool FinishMacros();
  bool PeekComma() const { return lex_.Peek().kind == Tok::kComma; }
  static void Push(Seq& out, NodeKind kind, std::string_view text = {}) {
    Node n;
    n.kind = kind;
    n.text = std::string(text);
    out.push_back(std::move(n));
  }

  const SourceText& src_;
  Lexer lex_;
  CompiledTemplate& ct_;
  int depth_ = 0;
  std::vector<bool> defined_;
  std::vector<uint16_t> definition_order_;
  bool failed_ = false;
  size_t error_offset_ = 0;
  std::string error_message_;
};

bool Parser::Header(Template& t) {
  std::string_view text = src_.text();
  size_t i = 0;
  while (i < text.size() && IsHexDigit(text[i])) ++i;
  if ((i != 3 && i != 4) || (i < text.size() && !IsBlank(text[i]))) {
    return Fail(0, "expected a trace id (3 or 4 hex digits) in column 1");
  }
  t.id_text = std::string(text.substr(0, i));
  uint64_t id = 0;
  ParseUnsigned(t.id_text, 16, id);
  t.id16 = static_cast<uint16_t>(i == 3 ? id << 4 : id);
  lex_ = Lexer(text, i);
  lex_.SkipSpace();
  size_t vstart = lex_.offset();
  size_t v = vstart;
  while (v < text.size() && !IsBlank(text[v])) ++v;
  std::string_view version = text.substr(vstart, v - vstart);
  size_t dot = version.find('.');
  uint64_t major = 0, minor = 0;
  if (dot == std::string_view::npos || !ParseUnsigned(version.substr(0, dot), 10, major) ||
      !ParseUnsigned(version.substr(dot + 1), 10, minor) || major > 1'000'000 ||
      minor > 1'000'000) {
    return Fail(vstart, "expected a version V.R (like 1.0) after the trace id");
  }
  t.version_major = static_cast<int>(major);
  t.version_minor = static_cast<int>(minor);
  lex_ = Lexer(text, v);
  lex_.SkipSpace();
  if (text.substr(lex_.offset()).starts_with("L=")) {
    size_t lstart = lex_.offset();
    size_t e = lstart;
    while (e < text.size() && !IsBlank(text[e])) ++e;
    std::string_view level = text.substr(lstart + 2, e - lstart - 2);
    if (level == "APPL")
      t.level = Level::kAppl;
    else if (level == "SVC")
      t.level = Level::kSvc;
    else if (level == "KERN")
      t.level = Level::kKern;
    else if (level == "INT")
      t.level = Level::kInt;
    else if (level == "0")
      t.level = Level::kZero;
    else if (level == "NOPRINT")
      t.level = Level::kNoPrint;
    else
      return Fail(lstart, "expected L=APPL, L=SVC, L=KERN, L=INT, L=0 or L=NOPRINT");
    lex_ = Lexer(text, e);
  }
  return true;
}

bool Parser::Body(Template& t) {
  // The label: the first string (a bare word that is no code or keyword counts too).
  Token first = lex_.Peek();
  bool is_label = first.kind == Tok::kString;
  if (first.kind == Tok::kWord && first.text != "LOOP" && first.text != "BITFLAGS" &&
      ParseFormatCode(first.text).match == CodeMatch::kNotCode) {
    is_label = true;
  }
  if (is_label) {
    lex_.Next();
    t.label = std::string(first.text);
    if (!t.label.empty() && t.label[0] != '@') Push(ct_.body, NodeKind::kString, t.label);
  }
  if (!ParseSeq(ct_.body, false, 0)) return false;
  return FinishMacros();
}

bool Parser::ParseSeq(Seq& out, bool until_close, size_t open_offset) {
  if (++depth_ > kMaxNesting) {
    return Fail(open_offset,
                fmt::format("descriptors nested too deeply: at most {} levels", kMaxNesting));
  }
  while (true) {
    Token t = lex_.Next();
    if (t.kind == Tok::kEnd) {
      if (until_close) {
        return Fail(t.offset,
                    fmt::format("expected '}}' to close the '{{' at {}", PosText(open_offset)));
      }
      break;
    }
    if (t.kind == Tok::kClose) {
      if (until_close) break;
      return Fail(t.offset, "unexpected '}': no '{' is open");
    }
    if (t.space_before && !out.empty()) Push(out, NodeKind::kSeparator);
    if (!Item(out, t, true)) return false;
  }
  --depth_;
  return true;
}

bool Parser::Item(Seq& out, const Token& t, bool allow_switch) {
  switch (t.kind) {
    case Tok::kError:
      return Fail(t.offset, std::string(t.text));
    case Tok::kString:
      Push(out, NodeKind::kString, t.text);
      return true;
    case Tok::kBackquote:
      return Backquote(out, t);
    case Tok::kTab:
      Push(out, NodeKind::kTab);
      return true;
    case Tok::kNewline:
      Push(out, NodeKind::kNewline);
      return true;
    case Tok::kWildcard:
      Push(out, NodeKind::kText, "*");
      return true;
    case Tok::kEscaped:
      Push(out, NodeKind::kText, t.text);
      return true;
    case Tok::kComma:
      Push(out, NodeKind::kText, ",");
      return true;
    case Tok::kOpenExpr:
      return Statement(out, t.offset);
    case Tok::kOpen: {
      Node group;
      group.kind = NodeKind::kGroup;
      if (!ParseSeq(group.children, true, t.offset)) return false;
      out.push_back(std::move(group));
      return true;
    }
    case Tok::kMacro:
      return MacroItem(out, t, allow_switch);
    case Tok::kWord:
      return WordItem(out, t, allow_switch);
    case Tok::kBuiltin: {
      Node n;
      n.kind = NodeKind::kBuiltin;
      if (!BuiltinCall(t.text, t.offset, n.builtin)) return false;
      out.push_back(std::move(n));
      return true;
    }
    case Tok::kClose:
      return Fail(t.offset, "expected a descriptor, found '}'");
    default:
      return Fail(t.offset, "expected a descriptor");
  }
}

bool Parser::MacroItem(Seq& out, const Token& t, bool allow_switch) {
  if (t.format.empty()) {
    if (auto action = FindAction(t.text)) {
      Node n;
      if (*action == Action::kDefault) {
        n.kind = NodeKind::kCall;
        n.call_id16 = 0x0080;  // $DEFAULT is $008
      } else {
        n.kind = NodeKind::kAction;
        n.action = *action;
      }
      out.push_back(std::move(n));
      return true;
    }
    if (IsSubroutineName(t.text)) {
      uint64_t id = 0;
      ParseUnsigned(t.text, 16, id);
      Node n;
      n.kind = NodeKind::kCall;
      n.call_id16 = static_cast<uint16_t>(id << 4);
      out.push_back(std::move(n));
      return true;
    }
  }
  Value v;
  if (!MacroValue(t, v)) return false;
  if (allow_switch && PeekComma()) {
    lex_.Next();
    return SwitchItem(out, v);
  }
  Node n;
  n.kind = NodeKind::kMacro;
  n.value = v;
  out.push_back(std::move(n));
  return true;
}

bool Parser::MacroValue(const Token& t, Value& v) {
  if (FindAction(t.text)) {
    return Fail(t.offset, fmt::format("${} is an action, not a value", t.text));
  }
  if (auto special = FindSpecial(t.text)) {
    v.source = Value::Source::kSpecial;
    v.special = *special;
  } else {
    v.source = Value::Source::kMacro;
    if (!MacroIndex(t.text, false, t.offset, v.macro)) return false;
  }
  if (!t.format.empty()) v.format = ParseMacroFormat(t.format);
  return true;
}

bool Parser::WordItem(Seq& out, const Token& t, bool allow_switch) {
  if (t.text == "LOOP") return Loop(out, t);
  if (t.text == "BITFLAGS") return Bitflags(out, t);
  CodeParse p = ParseFormatCode(t.text);
  if (p.match == CodeMatch::kInvalid) return Fail(t.offset, p.error);
  if (p.match == CodeMatch::kNotCode) {
    Push(out, NodeKind::kText, t.text);
    return true;
  }
  Value v;
  v.source = Value::Source::kCode;
  v.code = p.code;
  if (!IsPointerCode(p.code.kind) && allow_switch && PeekComma()) {
    lex_.Next();
    return SwitchItem(out, v);
  }
  Node n;
  n.kind = NodeKind::kCode;
  n.value = v;
  out.push_back(std::move(n));
  return true;
}

bool Parser::SubjectValue(const Token& t, Value& v, std::string_view what) {
  if (t.kind == Tok::kMacro) return MacroValue(t, v);
  if (t.kind == Tok::kWord) {
    CodeParse p = ParseFormatCode(t.text);
    if (p.match == CodeMatch::kInvalid) return Fail(t.offset, p.error);
    if (p.match == CodeMatch::kCode) {
      v.source = Value::Source::kCode;
      v.code = p.code;
      return true;
    }
    uint64_t number = 0;
    if (ParseExprNumber(t.text, number)) {
      v.source = Value::Source::kConstant;
      v.constant = static_cast<int64_t>(number);
      return true;
    }
  }
  if (t.kind == Tok::kError) return Fail(t.offset, std::string(t.text));
  return Fail(t.offset, fmt::format("expected a format code, $macro or number after {}", what));
}

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
bool Parser::Body(Seq& out, const Token& t, std::string_view what) {
  if (t.kind == Tok::kOpen) return ParseSeq(out, true, t.offset);
  if (t.kind == Tok::kEnd || t.kind == Tok::kClose || t.kind == Tok::kComma) {
    return Fail(t.offset, fmt::format("expected {}", what));
  }
  if (t.space_before) Push(out, NodeKind::kSeparator);
  return Item(out, t, false);
}

bool Parser::SwitchItem(Seq& out, Value subject) {
  auto sw = std::make_unique<Switch>();
  Base base = BaseOf(subject);
  sw->compare = base == Base::kText    ? CompareAs::kText
                : base == Base::kFloat ? CompareAs::kFloat
                                       : CompareAs::kNumber;
  while (true) {
    Lexer before = lex_;
    Token label = lex_.Next();
    if ((label.kind == Tok::kEnd || label.kind == Tok::kClose) && !sw->cases.empty()) {
      lex_ = before;  // a trailing comma after the last case
      break;
    }
    Case c;
    if (!CaseLabelOf(label, base, c.label)) return false;
    before = lex_;
    Token body = lex_.Next();
    if (body.kind == Tok::kComma) {
      sw->cases.push_back(std::move(c));
      continue;
    }
    if (body.kind == Tok::kEnd || body.kind == Tok::kClose) {
      lex_ = before;
      sw->cases.push_back(std::move(c));
      break;
    }
    if (!Body(c.body, body, "a case string or {descriptor}")) return false;
    sw->cases.push_back(std::move(c));
    before = lex_;
    if (lex_.Next().kind != Tok::kComma) {
      lex_ = before;
      break;
    }
  }
  Node n;
  n.kind = NodeKind::kSwitch;
  n.value = subject;
  n.cases = std::move(sw);
  out.push_back(std::move(n));
  return true;
}

bool Parser::Loop(Seq& out, const Token& keyword) {
  (void)keyword;
  Node n;
  n.kind = NodeKind::kLoop;
  if (!SubjectValue(lex_.Next(), n.value, "LOOP")) return false;
  if (!Body(n.children, lex_.Next(), "'{' and the descriptor to repeat after the LOOP count")) {
    return false;
  }
  out.push_back(std::move(n));
  return true;
}

bool Parser::Bitflags(Seq& out, const Token& keyword) {
  (void)keyword;
  Node n;
  n.kind = NodeKind::kBitflags;
  Token subject = lex_.Next();
  if (!SubjectValue(subject, n.value, "BITFLAGS")) return false;
  Token comma = lex_.Next();
  if (comma.kind != Tok::kComma) {
    return Fail(comma.offset, "expected ',' after the BITFLAGS format code or register");
  }
  n.flags = std::make_unique<std::vector<FlagEntry>>();
  auto number = [&](const Token& t, uint64_t& v, std::string_view what) {
    if (t.kind == Tok::kWord && ParseFlagNumber(t.text, v)) return true;
    return Fail(t.offset,
                fmt::format("expected a {} (hex, oNNN octal or 0xNNN hex) in BITFLAGS", what));
  };
  while (true) {
    Lexer before = lex_;
    Token e = lex_.Next();
    if ((e.kind == Tok::kEnd || e.kind == Tok::kClose) && !n.flags->empty()) {
      lex_ = before;
      break;
    }
    FlagEntry entry;
    if (e.kind == Tok::kWord && e.text.starts_with("&")) {
      entry.masked = true;
      Token mask = e;
      mask.text.remove_prefix(1);
      if (mask.text.empty()) mask = lex_.Next();
      if (!number(mask, entry.mask, "mask")) return false;
      if (!number(lex_.Next(), entry.value, "field value")) return false;
    } else if (!number(e, entry.value, "flag value or '& mask value'")) {
      return false;
    }
    if (!Body(entry.set, lex_.Next(), "the string to print for this flag")) return false;
    Token clear = lex_.Peek();
    if (!entry.masked &&
        (clear.kind == Tok::kString || clear.kind == Tok::kBackquote || clear.kind == Tok::kOpen)) {
      if (!Body(entry.clear, lex_.Next(), "the string to print when the flag is clear")) {
        return false;
      }
    }
    n.flags->push_back(std::move(entry));
    before = lex_;
    if (lex_.Next().kind != Tok::kComma) {
      lex_ = before;
      break;
    }
  }
  out.push_back(std::move(n));
  return true;
}

bool Parser::Statement(Seq& out, size_t open_offset) {
  Token t = lex_.NextExpr();
  auto expect_close = [&] {
    Token c = lex_.NextExpr();
    if (c.kind == Tok::kCloseExpr) return true;
    if (c.kind == Tok::kError) return Fail(c.offset, std::string(c.text));
    return Fail(c.offset, fmt::format("expected '}}}}' to end the expression opened at {}",
                                      PosText(open_offset)));
  };
  if (t.kind == Tok::kMacro) {
    if (FindAction(t.text)) {
      return Fail(t.offset, fmt::format("${} is an action and cannot be assigned", t.text));
    }
    auto special = FindSpecial(t.text);
    if (special && !IsAssignable(*special)) {
      return Fail(t.offset, fmt::format("${} cannot be assigned: only $DATAPOINTER and "
                                        "$BASEPOINTER of the special macros can",
                                        t.text));
    }
    if (!t.format.empty()) {
      return Fail(t.offset, fmt::format("expected '=' after ${}: a macro being assigned takes "
                                        "no %format",
                                        t.text));
    }
    Value target;
    if (special) {
      target.source = Value::Source::kSpecial;
      target.special = *special;
    } else {
      target.source = Value::Source::kMacro;
      if (!MacroIndex(t.text, true, t.offset, target.macro)) return false;
    }
    Token op = lex_.NextExpr();
    if (op.kind == Tok::kCloseExpr) return true;  // {{ $x }} only declares $x
    if (op.kind != Tok::kPunct || op.text != "=") {
      return Fail(op.offset, fmt::format("expected '=' or '}}}}' after ${}", t.text));
    }
    Node n;
    n.kind = NodeKind::kAssign;
    n.value = target;
    n.expr = std::make_unique<Expr>();
    if (!Expression(*n.expr) || !expect_close()) return false;
    out.push_back(std::move(n));
    return true;
  }
  if (t.kind == Tok::kWord && lex_.PeekExpr().kind == Tok::kPunct && lex_.PeekExpr().text == "(") {
    Node n;
    n.kind = NodeKind::kBuiltin;
    if (!BuiltinCall(t.text, t.offset, n.builtin) || !expect_close()) return false;
    out.push_back(std::move(n));
    return true;
  }
  if (t.kind == Tok::kError) return Fail(t.offset, std::string(t.text));
  return Fail(t.offset, "expected '$macro = expression', '$macro' or a built-in call after '{{'");
}

bool Parser::BuiltinCall(std::string_view name, size_t offset, std::unique_ptr<Builtin>& out) {
  auto b = std::make_unique<Builtin>();
  b->name = std::string(name);
  Token open = lex_.NextExpr();
  if (open.kind != Tok::kPunct || open.text != "(") {
    return Fail(open.offset, fmt::format("expected '(' after the built-in {}", name));
  }
  if (!IsKnownBuiltin(name)) {
    // Parsed (its parentheses balanced) but not run: the evaluator warns once.
    b->kind = BuiltinKind::kUnsupported;
    std::string_view text = lex_.text();
    size_t i = lex_.offset();
    int depth = 1;
    char quote = '\0';
    for (; i < text.size() && depth > 0; ++i) {
      char c = text[i];
      if (quote != '\0') {
        if (c == quote) quote = '\0';
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')') {
        --depth;
      }
    }
    if (depth > 0) {
      return Fail(offset, fmt::format("expected ')' to close the arguments of {}", name));
    }
    lex_.Advance(i - lex_.offset());
    out = std::move(b);
    return true;
  }
  b->kind = name == "starttimer" ? BuiltinKind::kStartTimer
            : name == "endtimer" ? BuiltinKind::kEndTimer
                                 : BuiltinKind::kPidInstall;
  Token next = lex_.PeekExpr();
  if (next.kind == Tok::kPunct && next.text == ")") {
    lex_.NextExpr();
  } else {
    while (true) {
      BuiltinArg arg;
      Token a = lex_.PeekExpr();
      bool text_code = false;
      if (a.kind == Tok::kWord) {
        CodeParse p = ParseFormatCode(a.text);
        text_code = p.match == CodeMatch::kCode &&
                    (p.code.kind == CodeKind::kAscii || p.code.kind == CodeKind::kString);
      }
      bool text_macro =
          a.kind == Tok::kMacro &&
          ((!a.format.empty() && a.format[0] == 'S') ||
           (FindSpecial(a.text) && StyleOf(*FindSpecial(a.text)) == SpecialStyle::kText));
      if (a.kind == Tok::kString) {
        lex_.NextExpr();
        arg.is_text = true;
        Push(arg.text, NodeKind::kText, a.text);
      } else if (text_code || text_macro) {
        lex_.NextExpr();
        arg.is_text = true;
        Node n;
        n.kind = text_code ? NodeKind::kCode : NodeKind::kMacro;
        if (text_code) {
          n.value.source = Value::Source::kCode;
          n.value.code = ParseFormatCode(a.text).code;
        } else if (!MacroValue(a, n.value)) {
          return false;
        }
        arg.text.push_back(std::move(n));
      } else if (!Expression(arg.expr)) {
        return false;
      }
      b->args.push_back(std::move(arg));
      Token sep = lex_.NextExpr();
      if (sep.kind == Tok::kPunct && sep.text == ")") break;
      if (sep.kind != Tok::kPunct || sep.text != ",") {
        return Fail(sep.offset, fmt::format("expected ',' or ')' in the arguments of {}", name));
      }
    }
  }
  size_t want_min = b->kind == BuiltinKind::kPidInstall ? 2 : 1;
  size_t want_max = b->kind == BuiltinKind::kPidInstall ? 2 : 8;
  if (b->args.size() < want_min || b->args.size() > want_max) {
    return Fail(offset, b->kind == BuiltinKind::kPidInstall
                            ? std::string("pidinstall expects 2 arguments: (pid, path)")
                            : fmt::format("{} expects 1 to 8 arguments (the timer's key)", name));
  }
  if (b->kind == BuiltinKind::kPidInstall && b->args[0].is_text) {
    return Fail(offset, "pidinstall expects a number as its first argument (the pid)");
  }
  out = std::move(b);
  return true;
}

bool Parser::Expression(Expr& e) {
  if (!Additive(e, 0)) return false;
  // Depth of the postfix stack; calls push one value each.
  uint32_t depth = 0, max_depth = 0;
  for (const ExprStep& s : e.steps) {
    switch (s.op) {
      case ExprStep::Op::kPush:
      case ExprStep::Op::kCall:
        ++depth;
        break;
      case ExprStep::Op::kNeg:
        break;
      default:
        --depth;
        break;
    }
    max_depth = std::max(max_depth, depth);
  }
  e.max_stack = max_depth;
  if (max_depth > kMaxExprStack) return Fail(lex_.offset(), "expression too complex");
  return true;
}

bool Parser::Additive(Expr& e, int depth) {
  if (!Multiplicative(e, depth)) return false;
  while (true) {
    Token t = lex_.PeekExpr();
    if (t.kind != Tok::kPunct || (t.text != "+" && t.text != "-")) return true;
    lex_.NextExpr();
    if (!Multiplicative(e, depth)) return false;
    e.steps.push_back({t.text == "+" ? ExprStep::Op::kAdd : ExprStep::Op::kSub, 0});
  }
}

bool Parser::Multiplicative(Expr& e, int depth) {
  if (!Unary(e, depth)) return false;
  while (true) {
    Token t = lex_.PeekExpr();
    if (t.kind != Tok::kPunct || (t.text != "*" && t.text != "/")) return true;
    lex_.NextExpr();
    if (!Unary(e, depth)) return false;
    e.steps.push_back({t.text == "*" ? ExprStep::Op::kMul : ExprStep::Op::kDiv, 0});
  }
}

bool Parser::Unary(Expr& e, int depth) {
  if (depth > kMaxNesting) {
    return Fail(lex_.offset(),
                fmt::format("expression nested too deeply: at most {} levels", kMaxNesting));
  }
  Token t = lex_.PeekExpr();
  if (t.kind == Tok::kPunct && (t.text == "-" || t.text == "+")) {
    lex_.NextExpr();
    if (!Unary(e, depth + 1)) return false;
    if (t.text == "-") e.steps.push_back({ExprStep::Op::kNeg, 0});
    return true;
  }
  return Primary(e, depth);
}

bool Parser::Primary(Expr& e, int depth) {
  Token t = lex_.NextExpr();
  auto push_value = [&](const Value& v) {
    e.steps.push_back({ExprStep::Op::kPush, static_cast<uint32_t>(e.values.size())});
    e.values.push_back(v);
  };
  switch (t.kind) {
    case Tok::kPunct:
      if (t.text == "(") {
        if (!Additive(e, depth + 1)) return false;
        Token close = lex_.NextExpr();
        if (close.kind != Tok::kPunct || close.text != ")") {
          return Fail(close.offset,
                      fmt::format("expected ')' to match the '(' at {}", PosText(t.offset)));
        }
        return true;
      }
      break;
    case Tok::kMacro: {
      Value v;
      if (!MacroValue(t, v)) return false;
      push_value(v);
      return true;
    }
    case Tok::kWord: {
      Token next = lex_.PeekExpr();
      if (next.kind == Tok::kPunct && next.text == "(") {
        std::unique_ptr<Builtin> b;
        if (!BuiltinCall(t.text, t.offset, b)) return false;
        e.steps.push_back({ExprStep::Op::kCall, static_cast<uint32_t>(e.builtins.size())});
        e.builtins.push_back(std::move(b));
        return true;
      }
      Value v;
      if (std::isdigit(static_cast<unsigned char>(t.text[0]))) {
        uint64_t number = 0;
        if (!ParseExprNumber(t.text, number)) {
          return Fail(t.offset, fmt::format("expected a number (decimal, or hex with 0x), found "
                                            "'{}'",
                                            t.text));
        }
        v.source = Value::Source::kConstant;
        v.constant = static_cast<int64_t>(number);
        push_value(v);
        return true;
      }
      CodeParse p = ParseFormatCode(t.text);
      if (p.match == CodeMatch::kInvalid) return Fail(t.offset, p.error);
      if (p.match == CodeMatch::kCode) {
        v.source = Value::Source::kCode;
        v.code = p.code;
        push_value(v);
        return true;
      }
      return Fail(t.offset, fmt::format("unknown name '{}' in expression: expected a number, "
                                        "$macro, format code or built-in call",
                                        t.text));
    }
    case Tok::kError:
      return Fail(t.offset, std::string(t.text));
    default:
      break;
  }
  return Fail(t.offset, "expected a number, $macro, format code or '(' in expression");
}

bool Parser::Backquote(Seq& out, const Token& t) {
  Node n;
  n.kind = NodeKind::kBackquote;
  std::string_view content = t.text;
  size_t base = t.offset + 1;
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) Push(n.children, NodeKind::kText, literal);
    literal.clear();
  };
  size_t i = 0;
  while (i < content.size()) {
    char c = content[i];
    if (c == '$') {
      Lexer sub(src_.text(), base + i);
      Token m = sub.Next();
      if (m.kind == Tok::kError) return Fail(m.offset, std::string(m.text));
      flush();
      if (!MacroItem(n.children, m, false)) return false;
      i = sub.offset() - base;
      continue;
    }
    if (c == '\\' && i + 1 < content.size() && (content[i + 1] == 't' || content[i + 1] == 'n')) {
      flush();
      Push(n.children, content[i + 1] == 't' ? NodeKind::kTab : NodeKind::kNewline);
      i += 2;
      continue;
    }
    if (!IsBlank(c) && c != '\\' && (i == 0 || IsBlank(content[i - 1]))) {
      size_t j = i;
      while (j < content.size() && !IsBlank(content[j]) && content[j] != '$' &&
             content[j] != '\\') {
        ++j;
      }
      std::string_view word = content.substr(i, j - i);
      bool whole = j == content.size() || IsBlank(content[j]);
      CodeParse p = ParseFormatCode(word);
      if (whole && p.match == CodeMatch::kInvalid) return Fail(base + i, p.error);
      if (whole && p.match == CodeMatch::kCode) {
        flush();
        Node code;
        code.kind = NodeKind::kCode;
        code.value.source = Value::Source::kCode;
        code.value.code = p.code;
        n.children.push_back(std::move(code));
      } else {
        literal.append(word);
      }
      i = j;
      continue;
    }
    literal.push_back(c);
    ++i;
  }
  flush();
  out.push_back(std::move(n));
  return true;
}

bool Parser::MacroIndex(std::string_view name, bool defining, size_t offset, uint16_t& index) {
  std::string key = Lower(name);
  auto it = std::find(ct_.macro_names.begin(), ct_.macro_names.end(), key);
  if (it == ct_.macro_names.end()) {
    if (ct_.macro_names.size() >= kMaxMacros) {
      return Fail(offset, fmt::format("too many macros: at most {} per template", kMaxMacros));
    }
    ct_.macro_names.push_back(key);
    defined_.push_back(false);
    it = ct_.macro_names.end() - 1;
  }
  index = static_cast<uint16_t>(it - ct_.macro_names.begin());
  if (defining && !defined_[index]) {
    defined_[index] = true;
    definition_order_.push_back(index);
  }
  return true;
}

bool Parser::FinishMacros() {
  ct_.slot_of_macro.assign(ct_.macro_names.size(), 0);
  uint8_t slot = 0;
  for (uint16_t index : definition_order_) ct_.slot_of_macro[index] = slot++;
  for (size_t i = 0; i < ct_.macro_names.size(); ++i) {
    if (!defined_[i]) ct_.slot_of_macro[i] = slot++;
  }
  return true;
}

}  // namespace

bool ParseTemplate(const SourceText& source, std::string_view file, Template& out,
                   Diagnostic& diagnostic) {
  auto compiled = std::make_shared<CompiledTemplate>();
  Parser parser(source, *compiled);
  Template t;
  t.file = std::string(file);
  t.line = source.first_line();
  t.source = std::string(source.text());
  if (!parser.Header(t) || !parser.Body(t)) {
    SourcePos pos = source.PosAt(parser.error_offset());
    diagnostic.file = std::string(file);
    diagnostic.line = pos.line;
    diagnostic.column = pos.column;
    diagnostic.message = parser.error_message();
    diagnostic.warning = false;
    return false;
  }
  t.compiled = std::move(compiled);
  out = std::move(t);
  return true;
}

}  // namespace rastrace::tmpl
