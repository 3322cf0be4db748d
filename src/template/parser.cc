#include "template/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <functional>

#include "template/parser_impl.h"

namespace rastrace::tmpl {
namespace parse {

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
  ResolveLongCalls();
  ShrinkTables();
  return FinishMacros();
}

namespace {

// Every field that makes two values differ, in a fixed place (no padding bytes).
using ValueKey = std::array<char, 24>;
ValueKey KeyOf(const Value& v) {
  ValueKey key{};
  size_t at = 0;
  auto put = [&](const auto& field) {
    std::memcpy(key.data() + at, &field, sizeof field);
    at += sizeof field;
  };
  auto put_code = [&](const FormatCode& c) {
    put(c.kind);
    put(c.word_sized);
    put(c.has_n);
    put(c.m);
    put(c.n);
  };
  put(v.source);
  switch (v.source) {
    case Value::Source::kCode:
      put_code(v.code);
      break;
    case Value::Source::kConstant:
      put(v.constant);
      break;
    case Value::Source::kMacro:
    case Value::Source::kSpecial:
      put(v.macro);
      put(v.special);
      put(v.format.kind);
      put(v.format.low_bit);
      put(v.format.high_bit);
      put_code(v.format.code);
      break;
  }
  return key;
}

uint32_t HashOf(std::string_view bytes) {
  return static_cast<uint32_t>(std::hash<std::string_view>()(bytes));
}

}  // namespace

uint32_t Parser::AddValue(const Value& v) {
  const ValueKey key = KeyOf(v);
  const auto [index, added] = value_index_.FindOrAdd(
      HashOf(std::string_view(key.data(), key.size())), static_cast<uint32_t>(ct_.values.size()),
      [&](uint32_t i) { return KeyOf(ct_.values[i]) == key; });
  if (added) ct_.values.push_back(v);
  return index;
}

uint32_t Parser::AddText(std::string_view text) {
  const auto [index, added] =
      text_index_.FindOrAdd(HashOf(text), static_cast<uint32_t>(ct_.texts.size()), [&](uint32_t i) {
        const TextRef& t = ct_.texts[i];
        return std::string_view(ct_.text_pool).substr(t.offset, t.size) == text;
      });
  if (added) {
    ct_.texts.push_back(
        {static_cast<uint32_t>(ct_.text_pool.size()), static_cast<uint32_t>(text.size())});
    ct_.text_pool.append(text);
  }
  return index;
}

void Parser::ShrinkTables() {
  ct_.body.shrink_to_fit();
  ct_.values.shrink_to_fit();
  ct_.text_pool.shrink_to_fit();
  ct_.texts.shrink_to_fit();
  ct_.seqs.shrink_to_fit();
  ct_.switches.shrink_to_fit();
  ct_.flag_lists.shrink_to_fit();
  ct_.exprs.shrink_to_fit();
  ct_.builtins.shrink_to_fit();
}

bool Parser::ParseSeq(Seq& out, bool until_close, size_t open_offset) {
  if (++depth_ > kMaxNesting) {
    return Fail(open_offset,
                fmt::format("descriptors nested too deeply: at most {} levels", kMaxNesting));
  }
  bool pending_blank = false;
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
    if (t.space_before && !out.empty()) pending_blank = true;
    if (!SeqItem(out, t, true, pending_blank)) return false;
  }
  if (pending_blank) Push(out, NodeKind::kSeparator);
  out.shrink_to_fit();
  --depth_;
  return true;
}

bool Parser::SeqItem(Seq& out, const Token& t, bool allow_switch, bool& pending_blank) {
  const size_t before = out.size();
  if (!Item(out, t, allow_switch)) return false;
  if (pending_blank && out.size() > before) {
    out[before].blank_before = true;
    pending_blank = false;
  }
  return true;
}

bool Parser::Item(Seq& out, const Token& t, bool allow_switch) {
  Nest nest(*this);
  if (nest.too_deep()) return TooDeep(t.offset);
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
      Seq children;
      if (!ParseSeq(children, true, t.offset)) return false;
      Node group;
      group.kind = NodeKind::kGroup;
      group.detail = AddTo(ct_.seqs, std::move(children));
      out.push_back(group);
      return true;
    }
    case Tok::kMacro:
      return MacroItem(out, t, allow_switch);
    case Tok::kWord:
      return WordItem(out, t, allow_switch);
    case Tok::kBuiltin: {
      std::unique_ptr<Builtin> builtin;
      if (!BuiltinCall(t.text, t.offset, builtin)) return false;
      Node n;
      n.kind = NodeKind::kBuiltin;
      n.detail = AddTo(ct_.builtins, std::move(*builtin));
      out.push_back(n);
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
      out.push_back(n);
      return true;
    }
    if (IsSubroutineName(t.text)) {
      uint64_t id = 0;
      ParseUnsigned(t.text, 16, id);
      Node n;
      n.kind = NodeKind::kCall;
      n.call_id16 = static_cast<uint16_t>(id << 4);
      out.push_back(n);
      return true;
    }
    // A SWITCH needs a value, and a call has none: `$dead, ...` is a macro.
    if (IsLongSubroutineName(t.text) && !(allow_switch && PeekComma())) {
      uint64_t id = 0;
      ParseUnsigned(t.text, 16, id);
      Node n;
      n.kind = NodeKind::kCall;
      n.call_id16 = static_cast<uint16_t>(id);
      // Whether it is a macro after all is known at the end: its name, kept until then (detail
      // 0 is a call without one).
      n.detail = AddTo(long_call_names_, Lower(t.text)) + 1;
      out.push_back(n);
      return true;
    }
  }
  Value v;
  if (!MacroValue(t, v)) return false;
  if (allow_switch && PeekComma()) {
    lex_.Next();
    return SwitchItem(out, v);
  }
  uint64_t mask = 0;
  if (allow_switch && MaskedSwitchFollows(mask)) return SwitchItem(out, v, mask);
  PushValue(out, NodeKind::kMacro, v);
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
  uint64_t mask = 0;
  if (!IsPointerCode(p.code.kind) && allow_switch && MaskedSwitchFollows(mask)) {
    return SwitchItem(out, v, mask);
  }
  PushValue(out, NodeKind::kCode, v);
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

bool Parser::Body(Seq& out, const Token& t, std::string_view what) {
  if (t.kind == Tok::kOpen) return ParseSeq(out, true, t.offset);
  if (t.kind == Tok::kEnd || t.kind == Tok::kClose || t.kind == Tok::kComma) {
    return Fail(t.offset, fmt::format("expected {}", what));
  }
  bool pending_blank = t.space_before;
  if (!SeqItem(out, t, false, pending_blank)) return false;
  if (pending_blank) Push(out, NodeKind::kSeparator);
  return true;
}

bool Parser::Loop(Seq& out, const Token& keyword) {
  (void)keyword;
  Value count;
  if (!SubjectValue(lex_.Next(), count, "LOOP")) return false;
  Seq body;
  if (!Body(body, lex_.Next(), "'{' and the descriptor to repeat after the LOOP count")) {
    return false;
  }
  Node n;
  n.kind = NodeKind::kLoop;
  n.value = AddValue(count);
  n.detail = AddTo(ct_.seqs, std::move(body));
  out.push_back(n);
  return true;
}

bool Parser::Bitflags(Seq& out, const Token& keyword) {
  (void)keyword;
  Value subject_value;
  Token subject = lex_.Next();
  if (!SubjectValue(subject, subject_value, "BITFLAGS")) return false;
  Token comma = lex_.Next();
  if (comma.kind != Tok::kComma) {
    return Fail(comma.offset, "expected ',' after the BITFLAGS format code or register");
  }
  std::vector<FlagEntry> flags;
  auto number = [&](const Token& t, uint64_t& v, std::string_view what) {
    if (t.kind == Tok::kWord && ParseFlagNumber(t.text, v)) return true;
    return Fail(t.offset,
                fmt::format("expected a {} (hex, oNNN octal or 0xNNN hex) in BITFLAGS", what));
  };
  while (true) {
    Lexer before = lex_;
    Token e = lex_.Next();
    if ((e.kind == Tok::kEnd || e.kind == Tok::kClose) && !flags.empty()) {
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
    flags.push_back(std::move(entry));
    before = lex_;
    if (lex_.Next().kind != Tok::kComma) {
      lex_ = before;
      break;
    }
  }
  Node n;
  n.kind = NodeKind::kBitflags;
  n.value = AddValue(subject_value);
  n.detail = AddTo(ct_.flag_lists, std::move(flags));
  out.push_back(n);
  return true;
}

bool Parser::Backquote(Seq& out, const Token& t) {
  Seq children;
  std::string_view content = t.text;
  size_t base = t.offset + 1;
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) Push(children, NodeKind::kText, literal);
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
      if (!MacroItem(children, m, false)) return false;
      i = sub.offset() - base;
      continue;
    }
    if (c == '\\' && i + 1 < content.size() && (content[i + 1] == 't' || content[i + 1] == 'n')) {
      flush();
      Push(children, content[i + 1] == 't' ? NodeKind::kTab : NodeKind::kNewline);
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
        Value code;
        code.source = Value::Source::kCode;
        code.code = p.code;
        PushValue(children, NodeKind::kCode, code);
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
  children.shrink_to_fit();
  Node n;
  n.kind = NodeKind::kBackquote;
  n.detail = AddTo(ct_.seqs, std::move(children));
  out.push_back(n);
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

void Parser::ResolveLongCalls() {
  // Every sequence of the template is in one of its tables (or is the body).
  ResolveLongCalls(ct_.body);
  for (Seq& seq : ct_.seqs) ResolveLongCalls(seq);
  for (Switch& sw : ct_.switches) {
    for (Case& c : sw.cases) ResolveLongCalls(c.body);
  }
  for (auto& list : ct_.flag_lists) {
    for (FlagEntry& e : list) {
      ResolveLongCalls(e.set);
      ResolveLongCalls(e.clear);
    }
  }
  for (Builtin& b : ct_.builtins) ResolveLongCalls(b);
  for (Expr& e : ct_.exprs) ResolveLongCalls(e);
  long_call_names_.clear();
}

void Parser::ResolveLongCalls(Seq& seq) {
  for (Node& n : seq) {
    if (n.kind != NodeKind::kCall || n.detail == 0) continue;
    const std::string& name = long_call_names_[n.detail - 1];
    n.detail = 0;
    auto it = std::find(ct_.macro_names.begin(), ct_.macro_names.end(), name);
    size_t index = static_cast<size_t>(it - ct_.macro_names.begin());
    if (it != ct_.macro_names.end() && defined_[index]) {
      Value v;
      v.source = Value::Source::kMacro;
      v.macro = static_cast<uint16_t>(index);
      n.kind = NodeKind::kMacro;
      n.value = AddValue(v);
    }
  }
}

// The recursion follows the parse, which nesting limits bound (kMaxItemNesting).
void Parser::ResolveLongCalls(Builtin& builtin) {
  for (BuiltinArg& a : builtin.args) {
    ResolveLongCalls(a.text);
    ResolveLongCalls(a.expr);
  }
}

void Parser::ResolveLongCalls(Expr& expr) {
  for (auto& b : expr.builtins) ResolveLongCalls(*b);
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

}  // namespace parse

bool ParseTemplate(const SourceText& source, std::string_view file, Template& out,
                   Diagnostic& diagnostic) {
  auto compiled = std::make_shared<CompiledTemplate>();
  parse::Parser parser(source, *compiled);
  Template t;
  t.file = std::string(file);
  t.line = source.first_line();
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
