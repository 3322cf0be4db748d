// The parser of one template, shared by parser.cc (descriptors), parser_switch.cc (SWITCH cases)
// and parser_expr.cc ({{ }} statements, expressions, built-in calls). Internal to the template
// part.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/compiled.h"
#include "template/lexer.h"
#include "template/source_text.h"

namespace rastrace::tmpl::parse {

// Nesting of braces and parentheses the parser follows before giving up (keeps its stack small
// whatever the input).
inline constexpr int kMaxNesting = 64;
// Items, built-in calls and expressions inside one another (LOOP 1 LOOP 1 ... needs no braces).
inline constexpr int kMaxItemNesting = 128;
// The evaluator's fixed expression stack.
inline constexpr uint32_t kMaxExprStack = 128;

// How the case values of a SWITCH are written.
enum class Base : uint8_t { kHex, kDecimal, kOctal, kBinary, kText, kFloat, kErrno };

std::string Lower(std::string_view s);
bool IsHexDigit(char c);
// "$90F": three hex digits name a template subroutine.
bool IsSubroutineName(std::string_view name);
// "$1A2B": four hex digits name the subroutine of that 16-bit id, unless the template defines a
// macro of that name (Parser::ResolveLongCalls).
bool IsLongSubroutineName(std::string_view name);
bool ParseUnsigned(std::string_view text, int base, uint64_t& out);
// A number in an expression or a LOOP count: decimal, or hex with 0x.
bool ParseExprNumber(std::string_view text, uint64_t& out);
// BITFLAGS numbers: hex by default, a leading 'o' for octal, 0x for hex.
bool ParseFlagNumber(std::string_view text, uint64_t& out);
bool IsPointerCode(CodeKind k);
// What follows '%' in $reg%X8.
MacroFormat ParseMacroFormat(std::string_view text);

// Finds an item equal to one added before, by index: 8 bytes a slot, at most half of them in use.
// It keeps no copy of the items: `same(index)` compares with the caller's item at `index`.
class InternTable {
 public:
  // The index of the equal item, or `next` (which the caller then adds) and true.
  template <class Same>
  std::pair<uint32_t, bool> FindOrAdd(uint32_t hash, uint32_t next, const Same& same) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t at = hash & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.index_plus_one == 0) {
        slot = {hash, next + 1};
        ++used_;
        return {next, true};
      }
      if (slot.hash == hash && same(slot.index_plus_one - 1)) {
        return {slot.index_plus_one - 1, false};
      }
    }
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t index_plus_one = 0;  // 0: empty
  };
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.index_plus_one == 0) continue;
      size_t at = slot.hash & mask;
      while (slots_[at].index_plus_one != 0) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

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
  bool SwitchItem(Seq& out, Value subject, uint64_t mask = ~uint64_t{0});
  // After a SWITCH subject: `& mask,` (seed 002: "HT & 0x07 masks off the timestamp bit").
  // Consumes it and gives the mask when it is there; otherwise reads nothing.
  bool MaskedSwitchFollows(uint64_t& mask);
  bool CaseLabelOf(const Token& t, Base base, CaseLabel& label);
  bool Body(Seq& out, const Token& t, std::string_view what);
  bool Loop(Seq& out, const Token& keyword);
  bool Bitflags(Seq& out, const Token& keyword);
  bool Statement(Seq& out, size_t open_offset);
  bool Backquote(Seq& out, const Token& t);
  bool BuiltinCall(std::string_view name, size_t offset, std::unique_ptr<Builtin>& out);
  bool Expression(Expr& e);
  bool Bitwise(Expr& e, int depth);
  bool Additive(Expr& e, int depth);
  bool Multiplicative(Expr& e, int depth);
  bool Unary(Expr& e, int depth);
  bool Primary(Expr& e, int depth);
  bool MacroIndex(std::string_view name, bool defining, size_t offset, uint16_t& index);
  // Turns the $hhhh calls whose name the template defines as a macro back into that macro:
  // `$cafe` stays a variable in a template that assigns or declares it.
  void ResolveLongCalls();
  void ResolveLongCalls(Seq& seq);
  void ResolveLongCalls(Builtin& builtin);
  void ResolveLongCalls(Expr& expr);
  // Gives back what the tables reserved beyond their contents.
  void ShrinkTables();
  bool FinishMacros();
  // Counts one level of nesting (a descriptor item, a built-in call, an expression) for as long
  // as it lives, so that no input can nest deeper than kMaxNesting and overflow the stack.
  class Nest {
   public:
    explicit Nest(Parser& p) : p_(p) { ++p_.nesting_; }
    ~Nest() { --p_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    bool too_deep() const { return p_.nesting_ > kMaxItemNesting; }

   private:
    Parser& p_;
  };
  bool TooDeep(size_t offset) {
    return Fail(offset,
                fmt::format("template nested too deeply: at most {} levels", kMaxItemNesting));
  }
  bool PeekComma() const { return lex_.Peek().kind == Tok::kComma; }
  // A node without a value or detail, or (kText, kString) with its text.
  void Push(Seq& out, NodeKind kind, std::string_view text = {}) {
    Node n;
    n.kind = kind;
    if (kind == NodeKind::kText || kind == NodeKind::kString) n.detail = AddText(text);
    out.push_back(n);
  }
  void PushValue(Seq& out, NodeKind kind, const Value& v) {
    Node n;
    n.kind = kind;
    n.value = AddValue(v);
    out.push_back(n);
  }
  // Into the tables of the template being compiled; a value or text seen before is kept once.
  uint32_t AddValue(const Value& v);
  uint32_t AddText(std::string_view text);
  template <class T>
  static uint32_t AddTo(std::vector<T>& table, T item) {
    table.push_back(std::move(item));
    return static_cast<uint32_t>(table.size() - 1);
  }
  // Items of a sequence: whitespace before an item becomes its blank_before (one node less for
  // every blank of the template); whitespace no item follows stays a kSeparator node.
  bool SeqItem(Seq& out, const Token& t, bool allow_switch, bool& pending_blank);

  const SourceText& src_;
  Lexer lex_;
  CompiledTemplate& ct_;
  int depth_ = 0;
  int nesting_ = 0;
  size_t mask_offset_ = 0;  // of the last `& mask` of a SWITCH subject
  std::vector<bool> defined_;
  std::vector<uint16_t> definition_order_;
  // kCall nodes of $hhhh whose name may turn out to be a macro: the name, by the node's detail.
  std::vector<std::string> long_call_names_;
  InternTable value_index_;  // into ct_.values
  InternTable text_index_;   // into ct_.texts
  bool failed_ = false;
  size_t error_offset_ = 0;
  std::string error_message_;
};

}  // namespace rastrace::tmpl::parse
