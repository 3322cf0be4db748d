#include "template/lexer.h"

#include <cctype>

namespace rastrace::tmpl {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Characters that end a bare word in descriptor mode.
bool EndsWord(char c) {
  switch (c) {
    case '{':
    case '}':
    case ',':
    case '$':
    case '"':
    case '`':
    case '\\':
      return true;
    default:
      return IsBlank(c);
  }
}

}  // namespace

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool IsKnownBuiltin(std::string_view name) {
  return name == "starttimer" || name == "endtimer" || name == "pidinstall";
}

bool Lexer::SkipSpace() {
  size_t start = pos_;
  while (pos_ < text_.size() && IsBlank(text_[pos_])) ++pos_;
  return pos_ != start;
}

Token Lexer::Quoted(char quote, Tok kind, bool space_before) {
  Token t;
  t.offset = pos_;
  t.space_before = space_before;
  size_t close = text_.find(quote, pos_ + 1);
  if (close == std::string_view::npos) {
    t.kind = Tok::kError;
    t.text = quote == '`'   ? "unterminated backquoted string: expected a closing '`'"
             : quote == '"' ? "unterminated string: expected a closing '\"'"
                            : "unterminated string: expected a closing \"'\"";
    pos_ = text_.size();
    return t;
  }
  t.kind = kind;
  t.text = text_.substr(pos_ + 1, close - pos_ - 1);
  pos_ = close + 1;
  return t;
}

Token Lexer::Macro(bool space_before) {
  Token t;
  t.offset = pos_;
  t.space_before = space_before;
  size_t start = ++pos_;
  while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
  if (pos_ == start) {
    t.kind = Tok::kError;
    t.text = "expected a macro name after '$'";
    return t;
  }
  t.kind = Tok::kMacro;
  t.text = text_.substr(start, pos_ - start);
  if (pos_ < text_.size() && text_[pos_] == '%') {
    size_t fstart = ++pos_;
    while (pos_ < text_.size() && (IsNameChar(text_[pos_]) || text_[pos_] == '.')) ++pos_;
    t.format = text_.substr(fstart, pos_ - fstart);
    if (t.format.empty()) {
      t.kind = Tok::kError;
      t.offset = fstart;
      t.text = "expected a format (X, D, U, B, W or S) after '%'";
    }
  }
  return t;
}

Token Lexer::Next() {
  Token t;
  t.space_before = SkipSpace();
  t.offset = pos_;
  if (pos_ >= text_.size()) return t;
  char c = text_[pos_];
  char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  switch (c) {
    case '{':
      t.kind = next == '{' ? Tok::kOpenExpr : Tok::kOpen;
      pos_ += next == '{' ? 2 : 1;
      return t;
    case '}':
      t.kind = Tok::kClose;
      ++pos_;
      return t;
    case ',':
      t.kind = Tok::kComma;
      ++pos_;
      return t;
    case '"':
    case '\'':
      return Quoted(c, Tok::kString, t.space_before);
    case '`':
      return Quoted(c, Tok::kBackquote, t.space_before);
    case '$':
      return Macro(t.space_before);
    case '\\':
      if (next == '\0') {
        t.kind = Tok::kEscaped;
        t.text = text_.substr(pos_, 1);
        ++pos_;
        return t;
      }
      t.kind = next == 't'   ? Tok::kTab
               : next == 'n' ? Tok::kNewline
               : next == '*' ? Tok::kWildcard
                             : Tok::kEscaped;
      t.text = text_.substr(pos_ + 1, 1);
      pos_ += 2;
      return t;
    default:
      break;
  }
  size_t start = pos_;
  while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '(' &&
      IsKnownBuiltin(text_.substr(start, pos_ - start))) {
    t.kind = Tok::kBuiltin;
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  while (pos_ < text_.size() && !EndsWord(text_[pos_])) ++pos_;
  t.kind = Tok::kWord;
  t.text = text_.substr(start, pos_ - start);
  return t;
}

Token Lexer::NextExpr() {
  Token t;
  t.space_before = SkipSpace();
  t.offset = pos_;
  if (pos_ >= text_.size()) return t;
  char c = text_[pos_];
  if (c == '}' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '}') {
    t.kind = Tok::kCloseExpr;
    pos_ += 2;
    return t;
  }
  if (c == '$') return Macro(t.space_before);
  if (c == '"' || c == '\'') return Quoted(c, Tok::kString, t.space_before);
  if (IsNameChar(c)) {
    size_t start = pos_;
    while (pos_ < text_.size() && (IsNameChar(text_[pos_]) || text_[pos_] == '.')) ++pos_;
    t.kind = Tok::kWord;
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  switch (c) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '&':
    case '|':
    case '(':
    case ')':
    case '=':
    case ',':
      t.kind = Tok::kPunct;
      t.text = text_.substr(pos_, 1);
      ++pos_;
      return t;
    default:
      t.kind = Tok::kError;
      t.text =
          "unexpected character in expression: expected a number, $macro, format code, "
          "operator or '}}'";
      return t;
  }
}

}  // namespace rastrace::tmpl
