// {{ }} statements: assignments, declarations, expressions and built-in calls.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "template/parser_impl.h"

namespace rastrace::tmpl::parse {

bool Parser::Statement(Seq& out, size_t open_offset) {
  Token t = lex_.NextExpr();
  auto expect_close = [&] {
    Token c = lex_.NextExpr();
    if (c.kind == Tok::kCloseExpr) return true;
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
    Expr expr;
    if (!Expression(expr) || !expect_close()) return false;
    Node n;
    n.kind = NodeKind::kAssign;
    n.value = AddValue(target);
    n.detail = AddTo(ct_.exprs, std::move(expr));
    out.push_back(n);
    return true;
  }
  if (t.kind == Tok::kWord && lex_.PeekExpr().kind == Tok::kPunct && lex_.PeekExpr().text == "(") {
    std::unique_ptr<Builtin> builtin;
    if (!BuiltinCall(t.text, t.offset, builtin) || !expect_close()) return false;
    Node n;
    n.kind = NodeKind::kBuiltin;
    n.detail = AddTo(ct_.builtins, std::move(*builtin));
    out.push_back(n);
    return true;
  }
  if (t.kind == Tok::kError) return Fail(t.offset, std::string(t.text));
  return Fail(t.offset, "expected '$macro = expression', '$macro' or a built-in call after '{{'");
}

bool Parser::BuiltinCall(std::string_view name, size_t offset, std::unique_ptr<Builtin>& out) {
  Nest nest(*this);
  if (nest.too_deep()) return TooDeep(offset);
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
        Value v;
        if (text_code) {
          v.source = Value::Source::kCode;
          v.code = ParseFormatCode(a.text).code;
        } else if (!MacroValue(a, v)) {
          return false;
        }
        PushValue(arg.text, text_code ? NodeKind::kCode : NodeKind::kMacro, v);
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
  Nest nest(*this);
  if (nest.too_deep()) return TooDeep(lex_.offset());
  if (!Bitwise(e, 0)) return false;
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

// '&' and '|' (an extension: "HT & 7" as the seed writes it) bind more loosely than + and -.
bool Parser::Bitwise(Expr& e, int depth) {
  if (!Additive(e, depth)) return false;
  while (true) {
    Token t = lex_.PeekExpr();
    if (t.kind != Tok::kPunct || (t.text != "&" && t.text != "|")) return true;
    lex_.NextExpr();
    if (!Additive(e, depth)) return false;
    e.steps.push_back({t.text == "&" ? ExprStep::Op::kAnd : ExprStep::Op::kOr, 0});
  }
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
  auto push_value = [&](const Value& v) { e.steps.push_back({ExprStep::Op::kPush, AddValue(v)}); };
  switch (t.kind) {
    case Tok::kPunct:
      if (t.text == "(") {
        if (!Bitwise(e, depth + 1)) return false;
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

}  // namespace rastrace::tmpl::parse
