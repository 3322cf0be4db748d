// The compiled form of a template: a tree of nodes the evaluator walks without re-parsing. Every
// name is resolved at parse time (macros to slots, specials to enums, codes to FormatCode).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "template/format_code.h"
#include "template/special_macros.h"
#include "template/template.h"

namespace rastrace::tmpl {

// `$reg%X8`, `$reg%W24.27`, ...: how a macro prints (and, for %W, what value it has).
struct MacroFormat {
  enum class Kind : uint8_t {
    kDefault,  // no format: the macro's own style
    kCode,     // %X, %D, %U, %B: print as that code would print the value
    kBits,     // %Wa.b: bits a..b shifted down, printed like a macro
    kLength,   // %S: the value is the length of a string read at the DATA_POINTER
  };
  Kind kind = Kind::kDefault;
  uint8_t low_bit = 0, high_bit = 0;  // kBits
  FormatCode code;                    // kCode
};

// Something with a numeric value: a format code read from the event, a macro, or a constant.
struct Value {
  enum class Source : uint8_t { kCode, kMacro, kSpecial, kConstant };
  Source source = Source::kConstant;
  Special special = Special::kHookEnv;  // kSpecial
  uint16_t macro = 0;                   // kMacro: index into CompiledTemplate::slot_of_macro
  FormatCode code;                      // kCode
  MacroFormat format;                   // kMacro, kSpecial
  int64_t constant = 0;                 // kConstant
};
static_assert(sizeof(Value) <= 40);

struct Builtin;

// An expression in postfix order, evaluated on a small fixed stack.
struct ExprStep {
  enum class Op : uint8_t { kPush, kAdd, kSub, kMul, kDiv, kAnd, kOr, kNeg, kCall };
  Op op = Op::kPush;
  uint32_t index = 0;  // kPush: into CompiledTemplate::values; kCall: into builtins
};

struct Expr {
  std::vector<ExprStep> steps;
  std::vector<std::unique_ptr<Builtin>> builtins;
  uint32_t max_stack = 0;
};

enum class NodeKind : uint8_t {
  kText,       // a bare word: printed where it stands
  kString,     // "..." or '...': a blank goes before it
  kBackquote,  // `...`: children printed as one string, a blank before it
  kSeparator,  // whitespace that no item follows (else the item's blank_before)
  kTab,
  kNewline,
  kCode,    // a format code: moves the DATA_POINTER, most print
  kMacro,   // $name or a special macro, printed
  kCall,    // $hhh or $DEFAULT: a template subroutine
  kAction,  // $ERROR, $STOP, $BREAK, $SKIP
  kSwitch,
  kLoop,
  kBitflags,
  kAssign,   // {{ $x = expr }}
  kBuiltin,  // starttimer(...), endtimer(...), pidinstall(...), or an unsupported one
  kGroup,    // { descriptor }
};

// One descriptor. A template file is mostly these, so a node is small (16 bytes) and what a kind
// needs beyond it lives in tables of its CompiledTemplate, found by index: the parser's memory is a
// small multiple of the text it reads (docs/reliability.md, "Input sizes").
struct Node {
  NodeKind kind = NodeKind::kText;
  Action action = Action::kBreak;  // kAction
  bool blank_before = false;       // whitespace before it: a blank, at most one (seed 002)
  uint16_t call_id16 = 0;          // kCall
  // kCode, kMacro, the subject of kSwitch/kLoop/kBitflags, the target of kAssign: into values.
  uint32_t value = 0;
  // kText, kString: into texts; kGroup, kBackquote, kLoop: seqs; kSwitch: switches; kBitflags:
  // flag_lists; kAssign: exprs; kBuiltin: builtins.
  uint32_t detail = 0;
};
static_assert(sizeof(Node) == 16);
using Seq = std::vector<Node>;

struct CaseLabel {
  enum class Kind : uint8_t { kAny, kNumber, kText, kFloat };
  Kind kind = Kind::kAny;
  int64_t number = 0;
  double real = 0;
  std::string text;
};

struct Case {
  CaseLabel label;
  Seq body;
};

// How the subject of a SWITCH is compared with its cases.
enum class CompareAs : uint8_t { kNumber, kText, kFloat };

struct Switch {
  CompareAs compare = CompareAs::kNumber;
  uint64_t mask = ~uint64_t{0};  // `HT & 0x07, ...`: the subject is and-ed with it
  std::vector<Case> cases;
};

struct FlagEntry {
  bool masked = false;  // "& mask value string"
  uint64_t mask = 0;
  uint64_t value = 0;
  Seq set;    // printed when the flag (or field) matches
  Seq clear;  // printed when a plain flag is not set (optional)
};

enum class BuiltinKind : uint8_t { kStartTimer, kEndTimer, kPidInstall, kUnsupported };

struct BuiltinArg {
  bool is_text = false;
  Expr expr;  // numeric argument
  Seq text;   // text argument: printed into a scratch string
};

struct Builtin {
  BuiltinKind kind = BuiltinKind::kUnsupported;
  std::string name;
  std::vector<BuiltinArg> args;
};

inline constexpr size_t kMaxMacros = 255;

// Where a text of a node is in CompiledTemplate::text_pool.
struct TextRef {
  uint32_t offset = 0;
  uint32_t size = 0;
};

struct CompiledTemplate {
  Seq body;  // the label (unless it starts with '@') then the descriptors
  // Macro names in order of first appearance, and the shared slot each one uses: slots follow
  // the order of definition ({{ $x ... }}), so that a subroutine's first defined macro is its
  // caller's first defined macro (seed 002 section VII).
  std::vector<std::string> macro_names;
  std::vector<uint8_t> slot_of_macro;

  // What nodes refer to by index. Values and texts written the same way twice are kept once.
  std::vector<Value> values;
  std::string text_pool;
  std::vector<TextRef> texts;
  std::vector<Seq> seqs;
  std::vector<Switch> switches;
  std::vector<std::vector<FlagEntry>> flag_lists;
  std::vector<Expr> exprs;
  std::vector<Builtin> builtins;

  std::string_view TextOf(const Node& n) const {
    const TextRef& t = texts[n.detail];
    return std::string_view(text_pool).substr(t.offset, t.size);
  }
  const Value& ValueOf(const Node& n) const { return values[n.value]; }
  const Seq& ChildrenOf(const Node& n) const { return seqs[n.detail]; }
  const Switch& SwitchOf(const Node& n) const { return switches[n.detail]; }
  const std::vector<FlagEntry>& FlagsOf(const Node& n) const { return flag_lists[n.detail]; }
  const Expr& ExprOf(const Node& n) const { return exprs[n.detail]; }
  const Builtin& BuiltinOf(const Node& n) const { return builtins[n.detail]; }
};

}  // namespace rastrace::tmpl
