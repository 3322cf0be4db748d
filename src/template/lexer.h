// Splits the joined text of one template into tokens. There are two modes because the language
// has two: descriptors (words, strings, codes, braces) and expressions inside {{ }}. The parser
// picks the mode; a Lexer is a cheap value, so the parser looks ahead by copying it.
#pragma once

#include <cstddef>
#include <string_view>

namespace rastrace::tmpl {

enum class Tok : unsigned char {
  kEnd,
  kError,      // `text` is the message, `offset` where
  kWord,       // bare word (descriptor mode) or identifier/code/number (expression mode)
  kString,     // "..." or '...': `text` is the inside
  kBackquote,  // `...`: `text` is the inside
  kMacro,      // $name: `text` is the name, `format` what follows '%'
  kOpenExpr,   // {{
  kCloseExpr,  // }}
  kOpen,       // {
  kClose,      // }
  kComma,
  kTab,       // \t
  kNewline,   // \n
  kWildcard,  // \*
  kEscaped,   // \x for another x: `text` is x
  kBuiltin,   // name( of a known built-in, descriptor mode: `text` is the name; '(' not consumed
  kPunct,     // expression mode: + - * / & | ( ) = , ; `text` is the character
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;  // of the first character of the token in the joined text
  std::string_view text;
  std::string_view format;  // kMacro: after '%', empty when none
  bool space_before = false;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text, size_t offset = 0) : text_(text), pos_(offset) {}

  Token Next();      // descriptor mode
  Token NextExpr();  // expression mode
  Token Peek() const { return Lexer(*this).Next(); }
  Token PeekExpr() const { return Lexer(*this).NextExpr(); }

  size_t offset() const { return pos_; }
  std::string_view text() const { return text_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char PeekChar() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Advance(size_t n) { pos_ += n; }
  bool SkipSpace();

 private:
  Token Quoted(char quote, Tok kind, bool space_before);
  Token Macro(bool space_before);

  std::string_view text_;
  size_t pos_;
};

bool IsBlank(char c);
// The built-ins the evaluator runs (starttimer, endtimer, pidinstall).
bool IsKnownBuiltin(std::string_view name);

}  // namespace rastrace::tmpl
