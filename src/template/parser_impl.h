// The parser of one template, shared by parser.cc (descriptors), parser_switch.cc (SWITCH cases)
// and parser_expr.cc ({{ }} statements, expressions, built-in calls). Internal to the template
// part.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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
  // Turns the $hhhh calls of `seq` whose name the template defines as a macro back into that
  // macro: `$cafe` stays a variable in a template that assigns or declares it.
  void ResolveLongCalls(Seq& seq);
  void ResolveLongCalls(Expr& expr);
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
  int nesting_ = 0;
  size_t mask_offset_ = 0;  // of the last `& mask` of a SWITCH subject
  std::vector<bool> defined_;
  std::vector<uint16_t> definition_order_;
  bool failed_ = false;
  size_t error_offset_ = 0;
  std::string error_message_;
};

}  // namespace rastrace::tmpl::parse
