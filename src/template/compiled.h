// The compiled form of a template: a tree of nodes the evaluator walks without re-parsing. Every
// name is resolved at parse time (macros to slots, specials to enums, codes to FormatCode).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
  FormatCode code;                    // kCode
  uint8_t low_bit = 0, high_bit = 0;  // kBits
};

// Something with a numeric value: a format code read from the event, a macro, or a constant.
struct Value {
  enum class Source : uint8_t { kCode, kMacro, kSpecial, kConstant };
  Source source = Source::kConstant;
  FormatCode code;                      // kCode
  uint16_t macro = 0;                   // kMacro: index into CompiledTemplate::slot_of_macro
  Special special = Special::kHookEnv;  // kSpecial
  MacroFormat format;                   // kMacro, kSpecial
  int64_t constant = 0;                 // kConstant
};

struct Builtin;

// An expression in postfix order, evaluated on a small fixed stack.
struct ExprStep {
  enum class Op : uint8_t { kPush, kAdd, kSub, kMul, kDiv, kAnd, kOr, kNeg, kCall };
  Op op = Op::kPush;
  uint32_t index = 0;  // kPush: into values; kCall: into builtins
};

struct Expr {
  std::vector<ExprStep> steps;
  std::vector<Value> values;
  std::vector<std::unique_ptr<Builtin>> builtins;
  uint32_t max_stack = 0;
};

enum class NodeKind : uint8_t {
  kText,       // a bare word: printed where it stands
  kString,     // "..." or '...': a blank goes before it
  kBackquote,  // `...`: children printed as one string, a blank before it
  kSeparator,  // whitespace between two items: at most one blank
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

struct Node;
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

struct Node {
  NodeKind kind = NodeKind::kText;
  Action action = Action::kBreak;  // kAction
  uint16_t call_id16 = 0;          // kCall
  Value value;       // kCode (its code), kMacro, kSwitch/kLoop/kBitflags subject, kAssign target
  std::string text;  // kText, kString
  Seq children;      // kGroup, kBackquote, kLoop body
  std::unique_ptr<Switch> cases;                  // kSwitch
  std::unique_ptr<std::vector<FlagEntry>> flags;  // kBitflags
  std::unique_ptr<Expr> expr;                     // kAssign
  std::unique_ptr<Builtin> builtin;               // kBuiltin
};

inline constexpr size_t kMaxMacros = 255;

struct CompiledTemplate {
  Seq body;  // the label (unless it starts with '@') then the descriptors
  // Macro names in order of first appearance, and the shared slot each one uses: slots follow
  // the order of definition ({{ $x ... }}), so that a subroutine's first defined macro is its
  // caller's first defined macro (seed 002 section VII).
  std::vector<std::string> macro_names;
  std::vector<uint8_t> slot_of_macro;
};

}  // namespace rastrace::tmpl
