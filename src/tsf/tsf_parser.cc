// The TSF syntax: a hand-written scanner over the text, because the language mixes free-form
// values (MODNAME, @file), addresses and strings in ways a fixed token set does not fit.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "tsf/parser_internal.h"
#include "tsf/tsf.h"

namespace rastrace::tsf {
namespace internal {

void DiagnosticSink::Error(Location where, std::string message) {
  if (++errors_ > kMaxKept) {
    if (errors_ == kMaxKept + 1) first_dropped_error_ = where;
    return;
  }
  out_.push_back({Diagnostic::Severity::kError, file_, where, std::move(message)});
}

void DiagnosticSink::Warning(Location where, std::string message) {
  if (++warnings_ > kMaxKept) {
    if (warnings_ == kMaxKept + 1) first_dropped_warning_ = where;
    return;
  }
  out_.push_back({Diagnostic::Severity::kWarning, file_, where, std::move(message)});
}

void DiagnosticSink::GiveUp(Location where) {
  out_.push_back({Diagnostic::Severity::kError, file_, where, "too many errors; giving up"});
}

void DiagnosticSink::Finish() {
  const size_t errors = errors_ > kMaxKept ? errors_ - kMaxKept : 0;
  const size_t warnings = warnings_ > kMaxKept ? warnings_ - kMaxKept : 0;
  if (errors == 0 && warnings == 0) return;
  out_.push_back(
      {errors != 0 ? Diagnostic::Severity::kError : Diagnostic::Severity::kWarning, file_,
       errors != 0 ? first_dropped_error_ : first_dropped_warning_,
       fmt::format("{} more error{} and {} more warning{} not shown (at most {} of each "
                   "are)",
                   errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", kMaxKept)});
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace internal

namespace {

using internal::DiagnosticSink;
using internal::ToUpper;
using internal::TracepointExtras;

constexpr std::string_view kTraceKeywords =
    "MINOR, TP, OPCODE, TYPE, GROUP, DESC, FMT, REGS, MEM32, MEM, ASCIIZ32, ASCIIZ or LEN";

// A character as an error message shows it: control and non-ASCII bytes as \xNN, so a binary
// file does not put raw bytes (or a NUL) on the terminal.
std::string Shown(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7F) return std::string(1, c);
  return fmt::format("\\x{:02x}", byte);
}

bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

bool IsHeaderKeyword(std::string_view up) {
  return up == "MODNAME" || up == "MAJOR" || up == "MAXDATALENGTH" || up == "MAXDATALEN";
}
bool IsTraceKeyword(std::string_view up) {
  for (std::string_view k : {"MINOR", "TP", "OPCODE", "TYPE", "GROUP", "DESC", "FMT", "REGS",
                             "MEM32", "MEM", "ASCIIZ32", "ASCIIZ", "LEN"}) {
    if (up == k) return true;
  }
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file, std::vector<Diagnostic>& diagnostics)
      : text_(text), sink_(file, diagnostics) {
    module_.file = std::string(file);
  }

  std::optional<Module> Run();

 private:
  struct Mark {
    size_t pos;
    uint32_t line, column;
  };

  // --- scanning ---
  char Peek(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void Advance() {
    if (AtEnd()) return;
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  Location Here() const { return {line_, column_}; }
  Mark Save() const { return {pos_, line_, column_}; }
  void Restore(Mark m) {
    pos_ = m.pos;
    line_ = m.line;
    column_ = m.column;
  }
  void Skip();
  std::string ReadName();
  std::string PeekNameUpper();
  bool Expect(char c, std::string_view context);
  std::optional<uint64_t> ReadNumber(std::string_view what);
  std::optional<std::string> ReadString(std::vector<uint32_t>* columns);
  void RecoverInTrace();
  void SkipLine();

  // --- statements ---
  void ParseHeader(const std::string& up, Location at);
  void ParseIdList(bool types, Location at);
  void ParseTrace(Location at);
  bool ParseTraceItem(const std::string& up, Location at, Tracepoint& tp, TracepointExtras& ex);
  bool ParseSite(Tracepoint& tp);
  bool ParseNameList(std::vector<std::string>& names, std::vector<Location>& where);
  bool ParseRegs(DataStatement& d);
  bool ParseAddress(Address& a);
  bool ParseIndirection(DataStatement& d);
  bool ParseMemory(DataStatement& d);
  // {+|-}n terms (and {+|-}(n) last when final_term is given; {+|-}register when registers is).
  bool ParseSignedTerms(int64_t& sum, std::optional<int64_t>* final_term,
                        std::vector<RegisterTerm>* registers = nullptr);
  bool ParseOffsetRegister(bool subtract, std::vector<RegisterTerm>& registers);

  void Error(Location at, std::string message) { sink_.Error(at, std::move(message)); }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
  DiagnosticSink sink_;
  Module module_;
  std::vector<TracepointExtras> extras_;
  std::optional<Location> modname_at_, major_at_, maxlen_at_;
  bool seen_trace_ = false;
  int paren_depth_ = 0;  // parentheses open in the current TRACE item, for error recovery
};

void Parser::Skip() {
  while (!AtEnd()) {
    const char c = Peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      Advance();
    } else if (c == ';') {
      SkipLine();
    } else if (c == '/' && Peek(1) == '*') {
      const Location start = Here();
      Advance();
      Advance();
      while (!AtEnd() && !(Peek() == '*' && Peek(1) == '/')) Advance();
      if (AtEnd()) {
        Error(start, "comment '/*' is not closed by '*/'");
        return;
      }
      Advance();
      Advance();
    } else {
      return;
    }
  }
}

void Parser::SkipLine() {
  while (!AtEnd() && Peek() != '\n') Advance();
}

std::string Parser::ReadName() {
  std::string name;
  if (!IsNameStart(Peek())) return name;
  while (!AtEnd()) {
    if (IsNameChar(Peek())) {
      name += Peek();
      Advance();
    } else if (Peek() == ':' && Peek(1) == ':' && IsNameStart(Peek(2))) {
      name += "::";  // C++ qualified names
      Advance();
      Advance();
    } else {
      break;
    }
  }
  return name;
}

std::string Parser::PeekNameUpper() {
  const Mark m = Save();
  Skip();
  std::string up = ToUpper(ReadName());
  Restore(m);
  return up;
}

bool Parser::Expect(char c, std::string_view context) {
  Skip();
  if (Peek() == c) {
    Advance();
    if (c == '(') ++paren_depth_;
    if (c == ')' && paren_depth_ > 0) --paren_depth_;
    return true;
  }
  if (AtEnd()) {
    Error(Here(), fmt::format("expected '{}' {}, found the end of the file", c, context));
  } else {
    Error(Here(), fmt::format("expected '{}' {}, found '{}'", c, context, Shown(Peek())));
  }
  return false;
}

std::optional<uint64_t> Parser::ReadNumber(std::string_view what) {
  Skip();
  const Location at = Here();
  if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
    Error(at, fmt::format("expected {} (a decimal or 0x hex number)", what));
    return std::nullopt;
  }
  uint64_t value = 0;
  bool overflow = false;
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
    Advance();
    Advance();
    if (!std::isxdigit(static_cast<unsigned char>(Peek()))) {
      Error(at, fmt::format("expected hex digits after 0x in {}", what));
      return std::nullopt;
    }
    while (std::isxdigit(static_cast<unsigned char>(Peek()))) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(Peek())));
      value = value * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
      overflow |= value > 0xFFFFFFFFu;
      Advance();
    }
  } else {
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      value = value * 10 + static_cast<uint64_t>(Peek() - '0');
      overflow |= value > 0xFFFFFFFFu;
      Advance();
    }
  }
  if (IsNameChar(Peek())) {
    Error(Here(), fmt::format("unexpected '{}' in {}", Peek(), what));
    return std::nullopt;
  }
  if (overflow) {
    Error(at, fmt::format("{} does not fit 32 bits", what));
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> Parser::ReadString(std::vector<uint32_t>* columns) {
  Skip();
  const Location at = Here();
  if (Peek() != '"') {
    Error(at, "expected a double-quoted string");
    return std::nullopt;
  }
  Advance();
  std::string out;
  while (true) {
    if (AtEnd() || Peek() == '\n') {
      Error(at, "string is not closed by '\"' on its line");
      return std::nullopt;
    }
    const char c = Peek();
    if (c == '"') {
      Advance();
      return out;
    }
    if (c == '\\' && (Peek(1) == '"' || Peek(1) == '\\')) Advance();
    if (columns) columns->push_back(column_);
    out += Peek();
    Advance();
  }
}

// Skips the rest of a broken TRACE item: to the next ',' outside parentheses and strings, or to
// the next TRACE keyword, so one mistake gives one error.
void Parser::RecoverInTrace() {
  int depth = paren_depth_;
  paren_depth_ = 0;
  while (true) {
    Skip();
    if (AtEnd()) return;
    const char c = Peek();
    if (c == '"') {
      Advance();
      while (!AtEnd() && Peek() != '"' && Peek() != '\n') Advance();
      Advance();
    } else if (c == '(') {
      ++depth;
      Advance();
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
      Advance();
    } else if (c == ',' && depth == 0) {
      Advance();
      return;
    } else if (IsNameStart(c)) {
      const Mark m = Save();
      const std::string up = ToUpper(ReadName());
      if (up == "TRACE" && depth == 0) {
        Restore(m);
        return;
      }
    } else {
      Advance();
    }
  }
}

std::optional<Module> Parser::Run() {
  while (!sink_.TooMany()) {
    Skip();
    if (AtEnd()) break;
    const Location at = Here();
    if (!IsNameStart(Peek())) {
      Error(at, fmt::format("expected a keyword (MODNAME, MAJOR, MAXDATALENGTH, TYPELIST, "
                            "GROUPLIST or TRACE), found '{}'",
                            Shown(Peek())));
      Advance();
      SkipLine();
      continue;
    }
    const std::string word = ReadName();
    const std::string up = ToUpper(word);
    if (up == "TRACE") {
      ParseTrace(at);
    } else if (IsHeaderKeyword(up) || up == "TYPELIST" || up == "GROUPLIST") {
      if (seen_trace_) {
        Error(at, fmt::format("{} must come before the first TRACE", up));
        SkipLine();
        continue;
      }
      if (up == "TYPELIST" || up == "GROUPLIST") {
        ParseIdList(up == "TYPELIST", at);
      } else {
        ParseHeader(up, at);
      }
      Skip();
      if (Peek() == ',') Advance();
    } else if (IsTraceKeyword(up)) {
      Error(at, fmt::format("{}= outside a TRACE statement (write TRACE before it)", up));
      SkipLine();
    } else {
      Error(at, fmt::format("unknown keyword '{}' (expected MODNAME, MAJOR, MAXDATALENGTH, "
                            "TYPELIST, GROUPLIST or TRACE)",
                            word));
      SkipLine();
    }
  }
  if (sink_.TooMany()) {
    sink_.GiveUp(Here());
    sink_.Finish();
    return std::nullopt;
  }
  internal::CheckModule(module_, extras_, major_at_.has_value(), sink_);
  sink_.Finish();
  if (sink_.errors() > 0) return std::nullopt;
  return std::move(module_);
}

void Parser::ParseHeader(const std::string& up, Location at) {
  if (!Expect('=', fmt::format("after {}", up))) {
    SkipLine();
    return;
  }
  auto twice = [&](std::optional<Location>& first) {
    if (first) {
      Error(at, fmt::format("{} given twice (first at line {})", up, first->line));
      return true;
    }
    first = at;
    return false;
  };
  if (up == "MODNAME") {
    Skip();
    std::string name;
    if (Peek() == '"') {
      auto s = ReadString(nullptr);
      if (!s) return SkipLine();
      name = *s;
    } else {
      while (!AtEnd() && !std::isspace(static_cast<unsigned char>(Peek())) && Peek() != ',' &&
             Peek() != ';' && !(Peek() == '/' && Peek(1) == '*')) {
        name += Peek();
        Advance();
      }
    }
    if (name.empty()) {
      Error(Here(), "expected a module name after MODNAME=");
      return SkipLine();
    }
    if (!twice(modname_at_)) module_.modname = name;
    return;
  }
  auto value = ReadNumber(up);
  if (!value) return SkipLine();
  if (up == "MAJOR") {
    if (*value < 1 || *value > 0xFFFF) {
      Error(at, fmt::format("MAJOR must be 1 to 0xFFFF, not {:#x}", *value));
      return;
    }
    if (!twice(major_at_)) module_.major = static_cast<uint16_t>(*value);
    return;
  }
  if (*value < 20 || *value > 4099) {
    Error(at, fmt::format("{} must be 20 to 4099, not {}", up, *value));
    return;
  }
  if (!twice(maxlen_at_)) module_.max_data_length = static_cast<uint16_t>(*value);
}

void Parser::ParseIdList(bool types, Location at) {
  const char* list = types ? "TYPELIST" : "GROUPLIST";
  auto& entries = types ? module_.types : module_.groups;
  bool any = false;
  while (true) {
    Skip();
    const Location entry_at = Here();
    std::string key = ToUpper(ReadName());
    if (key != "NAME") {
      Error(entry_at, fmt::format("expected NAME= in {}", list));
      return SkipLine();
    }
    if (!Expect('=', "after NAME")) return SkipLine();
    Skip();
    const Location name_at = Here();
    std::string name = ReadName();
    if (name.empty()) {
      Error(name_at, fmt::format("expected a name after NAME= in {}", list));
      return SkipLine();
    }
    if (!Expect(',', "between NAME= and ID=")) return SkipLine();
    Skip();
    const Location id_key_at = Here();
    if (ToUpper(ReadName()) != "ID") {
      Error(id_key_at, fmt::format("expected ID= after NAME={} in {}", name, list));
      return SkipLine();
    }
    if (!Expect('=', "after ID")) return SkipLine();
    Skip();
    const Location id_at = Here();
    auto id = ReadNumber("an ID");
    if (!id) return SkipLine();
    any = true;
    bool ok = true;
    if (name.size() > 8) {
      Error(name_at, fmt::format("name '{}' is longer than 8 characters", name));
      ok = false;
    }
    const std::string up = ToUpper(name);
    for (const auto* other_list : {&module_.types, &module_.groups}) {
      for (const NamedId& other : *other_list) {
        if (ToUpper(other.name) == up) {
          Error(name_at, fmt::format("name '{}' is already defined at line {} (names are unique "
                                     "across TYPELIST and GROUPLIST)",
                                     name, other.where.line));
          ok = false;
        }
      }
    }
    if (types && (*id == 0 || (*id & (*id - 1)) != 0)) {
      Error(id_at, fmt::format("type ID {:#x} of {} is not a power of two", *id, name));
      ok = false;
    }
    if (!types && (*id < 1 || *id > 0xFFFF)) {
      Error(id_at, fmt::format("group ID of {} must be 1 to 0xFFFF, not {:#x}", name, *id));
      ok = false;
    }
    for (const NamedId& other : entries) {
      if (ok && other.id == *id) {
        Error(id_at, fmt::format("{} ID {:#x} of {} is already used by {}",
                                 types ? "type" : "group", *id, name, other.name));
        ok = false;
      }
    }
    if (ok) entries.push_back({name, static_cast<uint32_t>(*id), name_at});
    Skip();
    if (Peek() != ',') break;
    const Mark m = Save();
    Advance();
    if (PeekNameUpper() != "NAME") {
      Restore(m);  // a trailing comma: the caller takes it
      break;
    }
  }
  if (!any) Error(at, fmt::format("{} needs at least one NAME=,ID= pair", list));
}

void Parser::ParseTrace(Location at) {
  seen_trace_ = true;
  Tracepoint tp;
  TracepointExtras ex;
  tp.where = at;
  while (!sink_.TooMany()) {
    Skip();
    if (AtEnd()) break;
    const Location item_at = Here();
    if (!IsNameStart(Peek())) {
      Error(item_at, fmt::format("expected a TRACE keyword ({}), found '{}'", kTraceKeywords,
                                 Shown(Peek())));
      Advance();
      RecoverInTrace();
      continue;
    }
    const Mark m = Save();
    const std::string word = ReadName();
    const std::string up = ToUpper(word);
    if (up == "TRACE") {
      Restore(m);
      break;
    }
    if (IsHeaderKeyword(up) || up == "TYPELIST" || up == "GROUPLIST") {
      Error(item_at, fmt::format("{} must come before the first TRACE", up));
      RecoverInTrace();
      continue;
    }
    if (!IsTraceKeyword(up)) {
      Error(item_at,
            fmt::format("unknown keyword '{}' in TRACE (expected {})", word, kTraceKeywords));
      RecoverInTrace();
      continue;
    }
    paren_depth_ = 0;
    if (!Expect('=', fmt::format("after {}", up)) || !ParseTraceItem(up, item_at, tp, ex)) {
      RecoverInTrace();
      continue;
    }
    Skip();
    if (Peek() == ',') {
      Advance();
    } else if (!AtEnd() && PeekNameUpper() != "TRACE") {
      Error(Here(), fmt::format("expected ',' after the {}= value", up));
    }
  }
  module_.tracepoints.push_back(std::move(tp));
  extras_.push_back(std::move(ex));
}

bool Parser::ParseTraceItem(const std::string& up, Location at, Tracepoint& tp,
                            TracepointExtras& ex) {
  auto once = [&](bool already) {
    if (already) Error(at, fmt::format("{}= given twice in one TRACE", up));
    return !already;
  };
  if (up == "MINOR") {
    if (!once(ex.has_minor)) return false;
    Skip();
    const Location value_at = Here();
    auto v = ReadNumber("MINOR");
    if (!v) return false;
    if (*v < 1 || *v > 0xFFFF) {
      Error(value_at, fmt::format("MINOR must be 1 to 0xFFFF, not {:#x}", *v));
      return false;
    }
    tp.minor = static_cast<uint16_t>(*v);
    ex.has_minor = true;
    ex.minor_where = value_at;
    return true;
  }
  if (up == "TP") {
    if (!once(ex.has_tp)) return false;
    ex.has_tp = true;
    return ParseSite(tp);
  }
  if (up == "OPCODE") {
    if (!once(tp.opcode.has_value())) return false;
    Skip();
    const Location value_at = Here();
    auto v = ReadNumber("OPCODE");
    if (!v) return false;
    if (*v > 0xFF) {
      Error(value_at, fmt::format("OPCODE is one instruction byte (0 to 0xFF), not {:#x}", *v));
      return false;
    }
    tp.opcode = static_cast<uint8_t>(*v);
    return true;
  }
  if (up == "TYPE") {
    if (!once(!tp.types.empty())) return false;
    return ParseNameList(tp.types, ex.type_where);
  }
  if (up == "GROUP") {
    if (!once(tp.group.has_value())) return false;
    std::vector<std::string> names;
    std::vector<Location> where;
    if (!ParseNameList(names, where)) return false;
    if (names.size() != 1) {
      Error(where[1], "GROUP= takes one group name");
      return false;
    }
    tp.group = names[0];
    ex.group_where = where[0];
    return true;
  }
  if (up == "DESC") {
    if (!once(!tp.desc.empty())) return false;
    auto s = ReadString(nullptr);
    if (!s) return false;
    tp.desc = *s;
    return true;
  }
  if (up == "FMT") {
    Skip();
    const Location quote_at = Here();
    std::vector<uint32_t> columns;
    auto s = ReadString(&columns);
    if (!s) return false;
    tp.fmt.push_back({*s, quote_at});
    ex.fmt_columns.push_back(std::move(columns));
    return true;
  }
  DataStatement d;
  d.where = at;
  if (up == "REGS") {
    d.kind = DataKind::kRegs;
    if (!ParseRegs(d)) return false;
  } else {
    d.kind = up == "MEM32"      ? DataKind::kMem32
             : up == "MEM"      ? DataKind::kMem
             : up == "ASCIIZ32" ? DataKind::kAsciiz32
             : up == "ASCIIZ"   ? DataKind::kAsciiz
                                : DataKind::kLen;
    if (!ParseMemory(d)) return false;
  }
  tp.data.push_back(std::move(d));
  return true;
}

bool Parser::ParseOffsetRegister(bool subtract, std::vector<RegisterTerm>& registers) {
  const Location at = Here();
  std::string name = ReadName();
  auto reg = FindRegister(name);
  if (!reg || reg->segment) {
    Error(at, fmt::format("expected a general register (BP, SP, SI, DI, AX, BX, CX, DX, IP) in "
                          "the segment's offset, not '{}'",
                          name));
    return false;
  }
  registers.push_back({*reg, subtract});
  return true;
}

bool Parser::ParseSignedTerms(int64_t& sum, std::optional<int64_t>* final_term,
                              std::vector<RegisterTerm>* registers) {
  while (true) {
    Skip();
    const char sign = Peek();
    if (sign != '+' && sign != '-') return true;
    const Location at = Here();
    Advance();
    Skip();
    const int64_t factor = sign == '-' ? -1 : 1;
    if (IsNameStart(Peek())) {
      if (!registers) {
        Error(Here(),
              "expected a displacement (a number); register terms (+DI) belong to "
              "segment-register addresses such as RDS+DI or SS:BP+6");
        return false;
      }
      if (final_term && final_term->has_value()) {
        Error(at, "the (n) displacement must be the last term of the address");
        return false;
      }
      if (!ParseOffsetRegister(sign == '-', *registers)) return false;
      continue;
    }
    if (Peek() == '(' && final_term) {
      if (final_term->has_value()) {
        Error(at, "only one (n) displacement is allowed, at the end of the address");
        return false;
      }
      Advance();
      ++paren_depth_;
      auto n = ReadNumber("the displacement in ( )");
      if (!n || !Expect(')', "after the displacement")) return false;
      *final_term = factor * static_cast<int64_t>(*n);
      continue;
    }
    if (final_term && final_term->has_value()) {
      Error(at, "the (n) displacement must be the last term of the address");
      return false;
    }
    auto n = ReadNumber("a displacement");
    if (!n) return false;
    sum += factor * static_cast<int64_t>(*n);
  }
}

bool Parser::ParseSite(Tracepoint& tp) {
  Skip();
  TracepointSite& site = tp.site;
  const Location at = Here();
  if (Peek() == '@') {
    Advance();
    std::string file;
    while (!AtEnd() && !std::isspace(static_cast<unsigned char>(Peek())) && Peek() != ',' &&
           Peek() != ';' && !(Peek() == '/' && Peek(1) == '*')) {
      file += Peek();
      Advance();
    }
    if (file.empty()) {
      Error(Here(), "expected STATIC or a source file name after TP=@");
      return false;
    }
    if (ToUpper(file) == "STATIC") {
      site.kind = TracepointSite::Kind::kStatic;
    } else {
      site.kind = TracepointSite::Kind::kFileLine;
      site.file = file;
      if (!Expect(',', fmt::format("between the file and the line number of TP=@{}", file))) {
        return false;
      }
      Skip();
      const Location line_at = Here();
      auto line = ReadNumber("a line number");
      if (!line) return false;
      if (*line == 0) {
        Error(line_at, "line numbers start at 1");
        return false;
      }
      site.line = static_cast<uint32_t>(*line);
    }
  } else {
    if (Peek() == '.') Advance();
    site.kind = TracepointSite::Kind::kSymbol;
    site.symbol = ReadName();
    if (site.symbol.empty()) {
      Error(at, "expected TP=@STATIC, TP=@file,line or TP=.name[+offset][,RETEP]");
      return false;
    }
    if (!ParseSignedTerms(site.offset, nullptr)) return false;
  }
  // `,RETEP` belongs to TP=; any other word after the comma is the next keyword.
  Skip();
  if (Peek() == ',') {
    const Mark m = Save();
    Advance();
    Skip();
    const Location retep_at = Here();
    const Mark before_word = Save();
    if (ToUpper(ReadName()) == "RETEP") {
      Skip();
      if (Peek() == '=') {
        Restore(m);
        return true;
      }
      if (site.kind != TracepointSite::Kind::kSymbol) {
        Error(retep_at, "RETEP needs a procedure: TP=.name,RETEP");
        return false;
      }
      site.retep = true;
      return true;
    }
    (void)before_word;
    Restore(m);
  }
  return true;
}

bool Parser::ParseNameList(std::vector<std::string>& names, std::vector<Location>& where) {
  Skip();
  const bool parens = Peek() == '(';
  if (parens) {
    Advance();
    ++paren_depth_;
  }
  while (true) {
    Skip();
    const Location at = Here();
    std::string name = ReadName();
    if (name.empty()) {
      Error(at, "expected a name");
      return false;
    }
    names.push_back(std::move(name));
    where.push_back(at);
    if (!parens) return true;
    Skip();
    if (Peek() == ',') {
      Advance();
      continue;
    }
    return Expect(')', "to close the name list");
  }
}

bool Parser::ParseRegs(DataStatement& d) {
  Skip();
  const bool parens = Peek() == '(';
  if (parens) {
    Advance();
    ++paren_depth_;
  }
  while (true) {
    Skip();
    const Location at = Here();
    if (Peek() == '.') {
      Advance();
      std::string name = ReadName();
      if (name.empty()) {
        Error(Here(), "expected a register variable name after '.'");
        return false;
      }
      d.registers.push_back(Register{name, 4, false, true});
    } else {
      std::string name = ReadName();
      auto reg = FindRegister(name);
      if (!reg) {
        Error(at, fmt::format("unknown register '{}' (expected AX..DI, IP, FLAGS, CS..GS, "
                              "EAX..EDI, EIP, EFLAGS, RAX..R15, RIP or .variable)",
                              name));
        return false;
      }
      d.registers.push_back(*reg);
    }
    if (!parens) return true;
    Skip();
    if (Peek() == ',') {
      Advance();
      continue;
    }
    return Expect(')', "to close REGS=(...)");
  }
}

bool Parser::ParseAddress(Address& a) {
  Skip();
  const Location at = Here();
  if (Peek() == '.') {
    Advance();
    a.base = Address::Base::kSymbol;
    a.symbol = ReadName();
    if (a.symbol.empty()) {
      Error(Here(), "expected a symbol name after '.'");
      return false;
    }
  } else if (IsNameStart(Peek())) {
    std::string name = ReadName();
    auto reg = FindRegister(name);
    // OS/2's segment register form: R and a segment register name, the segment at offset 0
    // ("RDS refers to data addressed by DS:0"), then the offset's register and number terms.
    std::optional<Register> r_segment;
    if (!reg && name.size() == 3 && (name[0] == 'R' || name[0] == 'r')) {
      r_segment = FindRegister(std::string_view(name).substr(1));
      if (r_segment && !r_segment->segment) r_segment.reset();
    }
    Skip();
    if (r_segment) {
      a.base = Address::Base::kSegmentRegister;
      a.segment = r_segment->name;
      return ParseSignedTerms(a.displacement, &a.final_displacement, &a.offset_registers);
    }
    if (reg && reg->segment) {
      if (Peek() != ':') {
        Error(at, fmt::format("segment register {} needs ':' and an offset (as in {}:SI+2), or "
                              "the R form (R{}+SI)",
                              reg->name, reg->name, reg->name));
        return false;
      }
      Advance();
      Skip();
      a.base = Address::Base::kSegmentRegister;
      a.segment = reg->name;
      if (IsNameStart(Peek())) {
        if (!ParseOffsetRegister(false, a.offset_registers)) return false;
      } else {
        auto n = ReadNumber("an offset");
        if (!n) return false;
        a.displacement = static_cast<int64_t>(*n);
      }
      return ParseSignedTerms(a.displacement, &a.final_displacement, &a.offset_registers);
    } else if (reg) {
      a.base = Address::Base::kRegister;
      a.reg = *reg;
    } else {
      a.base = Address::Base::kSymbol;  // seed 004 writes LEN=(var_struct+2,DIRECT)
      a.symbol = name;
    }
  } else {
    Error(at, "expected an address: .name, a register (EBP+8), RDS+DI or SEG:offset");
    return false;
  }
  return ParseSignedTerms(a.displacement, &a.final_displacement);
}

bool Parser::ParseIndirection(DataStatement& d) {
  Skip();
  const Location at = Here();
  const std::string up = ToUpper(ReadName());
  const bool flat_code = d.kind == DataKind::kMem32 || d.kind == DataKind::kAsciiz32;
  if (up == "D" || up == "DIRECT") {
    d.indirection = Indirection::kDirect;
  } else if (up == "I" || up == "INDIRECT") {
    d.indirection = Indirection::kIndirect;
    while (true) {
      Skip();
      if (Peek() != '*') break;
      Advance();
      int64_t offset = 0;
      Skip();
      if (Peek() == '+' || Peek() == '-') {
        const int64_t factor = Peek() == '-' ? -1 : 1;
        Advance();
        auto n = ReadNumber("an indirect offset");
        if (!n) return false;
        offset = factor * static_cast<int64_t>(*n);
      }
      d.indirect_offsets.push_back(offset);
    }
  } else if (up == "IF") {
    // Indirect flat: the address holds a flat pointer. From flat code (MEM32, ASCIIZ32) that is
    // what INDIRECT follows, so it is kept as INDIRECT and can be attached.
    d.indirection = flat_code ? Indirection::kIndirect : Indirection::kIndirectFlat;
  } else if (up == "IS") {
    d.indirection = Indirection::kIndirectSegmented;
  } else {
    Error(at, "expected DIRECT, INDIRECT[*[+-n]]..., IF or IS");
    return false;
  }
  return true;
}

bool Parser::ParseMemory(DataStatement& d) {
  if (!Expect('(', "before the address")) return false;
  if (!ParseAddress(d.address)) return false;
  if (!Expect(',', "after the address")) return false;
  if (!ParseIndirection(d)) return false;
  if (d.kind == DataKind::kLen) return Expect(')', "to close LEN=(address,flag)");
  if (!Expect(',', "before the length")) return false;
  Skip();
  const Location at = Here();
  const bool is_string = d.kind == DataKind::kAsciiz32 || d.kind == DataKind::kAsciiz;
  if (IsNameStart(Peek())) {
    const std::string up = ToUpper(ReadName());
    if (up != "LEN" || is_string) {
      Error(at, is_string ? "expected the string's maximum length (a number)"
                          : "expected a length (a number) or LEN");
      return false;
    }
    d.length_from_len = true;
  } else {
    auto n = ReadNumber(is_string ? "a maximum length" : "a length");
    if (!n) return false;
    if (*n == 0) {
      Error(at, "a length of 0 records nothing");
      return false;
    }
    d.length = static_cast<uint32_t>(*n);
  }
  return Expect(')', "to close the data statement");
}

}  // namespace

ParseOutput ParseTsf(std::string_view text, std::string_view file_name) {
  ParseOutput out;
  Parser parser(text, file_name, out.diagnostics);
  out.module = parser.Run();
  std::stable_sort(out.diagnostics.begin(), out.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return a.where.line != b.where.line ? a.where.line < b.where.line
                                                         : a.where.column < b.where.column;
                   });
  return out;
}

}  // namespace rastrace::tsf
