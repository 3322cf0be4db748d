#include "schema/declarations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "schema/names.h"

namespace rastrace::schema {

namespace {

// A template file line longer than this is no declaration (and is not kept).
constexpr size_t kMaxLineBytes = 64 * 1024;

struct Word {
  std::string_view text;
  size_t column = 0;  // 1-based
};

std::vector<Word> Split(std::string_view text) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back({text.substr(start, i - start), start + 1});
  }
  return words;
}

std::optional<uint32_t> Hex(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  uint32_t value = 0;
  for (char c : text) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  return value;
}

// "101" -> 0x1010, "1234" -> 0x1234 (as trcrpt -d reads them).
std::optional<uint16_t> HookId(std::string_view text) {
  if (text.size() != 3 && text.size() != 4) return std::nullopt;
  const auto value = Hex(text, 4);
  if (!value) return std::nullopt;
  return static_cast<uint16_t>(text.size() == 3 ? *value << 4 : *value);
}

struct IdAndSubhook {
  uint16_t hook_id = 0;
  std::optional<uint16_t> subhook;
};

std::optional<IdAndSubhook> ParseId(std::string_view text) {
  IdAndSubhook out;
  const size_t slash = text.find('/');
  const auto id = HookId(text.substr(0, slash));
  if (!id) return std::nullopt;
  out.hook_id = *id;
  if (slash != std::string_view::npos) {
    const auto subhook = Hex(text.substr(slash + 1), 4);
    if (!subhook) return std::nullopt;
    out.subhook = static_cast<uint16_t>(*subhook);
  }
  return out;
}

bool IsIdentifier(std::string_view text) {
  return !text.empty() && Identifier(text) == text;
}

class Parser {
 public:
  Parser(std::string_view where) : where_(where) {}

  Error Fail(size_t column, std::string_view message) const {
    return MakeError("{}:{}: {}", where_, column, message);
  }

  Result<EventMatch> Match(const Word& w, std::string_view value, size_t value_column) const {
    EventMatch m;
    if (value.starts_with("name:")) {
      value.remove_prefix(5);
      if (!IsIdentifier(value)) {
        return Fail(value_column + 5, fmt::format("'{}' is not a schema name (lowercase letters, "
                                                  "digits and '_')",
                                                  value));
      }
      m.schema = std::string(value);
      return m;
    }
    if (const auto id = ParseId(value)) {
      m.hook_id = id->hook_id;
      m.subhook = id->subhook;
      return m;
    }
    if (IsIdentifier(value)) {
      m.schema = std::string(value);
      return m;
    }
    (void)w;
    return Fail(value_column,
                fmt::format("expected a hook id (3 or 4 hex digits, optionally /SUBHOOK) or a schema "
                            "name, found '{}'",
                            value));
  }

  // key=value arguments after the name; `allowed` lists the keys.
  Result<void> Arguments(const std::vector<Word>& words, size_t from,
                         std::initializer_list<std::string_view> allowed,
                         std::vector<std::pair<Word, Word>>& out) const {
    for (size_t i = from; i < words.size(); ++i) {
      const Word& w = words[i];
      const size_t eq = w.text.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == w.text.size()) {
        return Fail(w.column, fmt::format("expected key=value, found '{}'", w.text));
      }
      const std::string_view key = w.text.substr(0, eq);
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string keys;
        for (auto k : allowed) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
        return Fail(w.column, fmt::format("unknown key '{}' (expected one of {})", key, keys));
      }
      for (const auto& [k, v] : out) {
        if (k.text == key) return Fail(w.column, fmt::format("'{}' given twice", key));
      }
      out.push_back({Word{key, w.column}, Word{w.text.substr(eq + 1), w.column + eq + 1}});
    }
    return Ok();
  }

 private:
  std::string_view where_;
};

const Word* Find(const std::vector<std::pair<Word, Word>>& args, std::string_view key) {
  for (const auto& [k, v] : args) {
    if (k.text == key) return &v;
  }
  return nullptr;
}

}  // namespace

bool EventMatch::Matches(const event::Event& e, const Schema& s) const {
  if (hook_id) return e.hook_id == *hook_id && (!subhook || e.subhook == *subhook);
  return s.name == schema;
}

const EventDeclaration* Declarations::FindEvent(uint16_t hook_id,
                                                std::optional<uint16_t> subhook) const {
  const EventDeclaration* without = nullptr;
  for (const auto& d : events) {
    if (d.hook_id != hook_id) continue;
    if (d.subhook && subhook && *d.subhook == *subhook) return &d;
    if (!d.subhook && without == nullptr) without = &d;
  }
  return without;
}

Result<void> ParseDeclaration(std::string_view text, std::string_view where, Declarations& out) {
  const Parser p(where);
  const std::vector<Word> words = Split(text);
  if (words.empty()) return p.Fail(1, "expected event, slice or counter after '#@'");
  const Word& kind = words[0];
  const auto name_at = [&](size_t i, std::string_view what) -> Result<std::string> {
    if (i >= words.size()) {
      return p.Fail(text.size() + 1, fmt::format("expected {} after '{}'", what, kind.text));
    }
    if (!IsIdentifier(words[i].text)) {
      return p.Fail(words[i].column,
                    fmt::format("{} '{}' is not a name (lowercase letters, digits and '_', not "
                                "starting with a digit)",
                                what, words[i].text));
    }
    return std::string(words[i].text);
  };

  if (kind.text == "event") {
    if (words.size() < 2) return p.Fail(text.size() + 1, "expected ID[/SUBHOOK] after 'event'");
    const auto id = ParseId(words[1].text);
    if (!id) {
      return p.Fail(words[1].column,
                    fmt::format("expected a hook id (3 or 4 hex digits) with an optional /SUBHOOK, "
                                "found '{}'",
                                words[1].text));
    }
    auto name = name_at(2, "a schema name");
    if (!name) return name.error();
    EventDeclaration d{id->hook_id, id->subhook, std::move(name).value(), {}, std::string(where)};
    for (size_t i = 3; i < words.size(); ++i) {
      if (words[i].text != "-" && !IsIdentifier(words[i].text)) {
        return p.Fail(words[i].column,
                      fmt::format("field name '{}' is not a name (or '-' to keep the derived one)",
                                  words[i].text));
      }
      d.fields.emplace_back(words[i].text);
    }
    out.events.push_back(std::move(d));
    return Ok();
  }

  if (kind.text == "slice") {
    auto name = name_at(1, "a slice name");
    if (!name) return name.error();
    std::vector<std::pair<Word, Word>> args;
    if (auto parsed = p.Arguments(words, 2, {"begin", "end", "scope", "key", "title"}, args);
        !parsed) {
      return parsed.error();
    }
    SliceDeclaration d;
    d.name = std::move(name).value();
    d.where = std::string(where);
    for (std::string_view key : {"begin", "end"}) {
      const Word* v = Find(args, key);
      if (v == nullptr) return p.Fail(text.size() + 1, fmt::format("a slice needs {}=", key));
      auto match = p.Match(*v, v->text, v->column);
      if (!match) return match.error();
      (key == "begin" ? d.begin : d.end) = std::move(match).value();
    }
    if (const Word* scope = Find(args, "scope")) {
      if (scope->text != "thread" && scope->text != "global") {
        return p.Fail(scope->column,
                      fmt::format("scope is thread or global, not '{}'", scope->text));
      }
      d.global = scope->text == "global";
    }
    for (std::string_view key : {"key", "title"}) {
      if (const Word* v = Find(args, key)) {
        if (!IsIdentifier(v->text)) {
          return p.Fail(v->column, fmt::format("{}= takes a field name, not '{}'", key, v->text));
        }
        (key == "key" ? d.key : d.title) = std::string(v->text);
      }
    }
    out.slices.push_back(std::move(d));
    return Ok();
  }

  if (kind.text == "counter") {
    auto name = name_at(1, "a counter name");
    if (!name) return name.error();
    std::vector<std::pair<Word, Word>> args;
    if (auto parsed = p.Arguments(words, 2, {"on", "value"}, args); !parsed) return parsed.error();
    CounterDeclaration d;
    d.name = std::move(name).value();
    d.where = std::string(where);
    const Word* on = Find(args, "on");
    const Word* value = Find(args, "value");
    if (on == nullptr) return p.Fail(text.size() + 1, "a counter needs on=");
    if (value == nullptr) return p.Fail(text.size() + 1, "a counter needs value=");
    auto match = p.Match(*on, on->text, on->column);
    if (!match) return match.error();
    d.on = std::move(match).value();
    if (!IsIdentifier(value->text)) {
      return p.Fail(value->column, fmt::format("value= takes a field name, not '{}'", value->text));
    }
    d.value = std::string(value->text);
    out.counters.push_back(std::move(d));
    return Ok();
  }

  return p.Fail(kind.column,
                fmt::format("unknown declaration '{}' (expected event, slice or counter)", kind.text));
}

Result<void> LoadDeclarations(const std::string& path, Declarations& out,
                              std::vector<std::string>& errors) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("{}: cannot read template file: {}", path, std::strerror(errno));
  std::string line;
  int line_no = 0;
  bool continuing = false;
  std::string chunk(4096, '\0');
  bool overlong = false;
  const auto finish_line = [&] {
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    if (!continuing && !overlong && line.starts_with("#@")) {
      // Blanks in place of "#@" keep the columns of errors those of the line.
      line[0] = ' ';
      line[1] = ' ';
      if (auto parsed = ParseDeclaration(line, fmt::format("{}:{}", path, line_no), out);
          !parsed) {
        errors.push_back(parsed.error().message);
      }
    }
    continuing = !overlong && !line.empty() && line.back() == '\\';
    line.clear();
    overlong = false;
  };
  // Read in chunks so that a file without line ends (/dev/zero) cannot grow one line for ever.
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    const std::string_view got(chunk.data(), static_cast<size_t>(in.gcount()));
    size_t at = 0;
    while (at < got.size()) {
      const size_t eol = got.find('\n', at);
      const std::string_view part = got.substr(at, eol == std::string_view::npos ? got.npos : eol - at);
      if (!overlong) {
        if (line.size() + part.size() > kMaxLineBytes) {
          overlong = true;
          line.clear();
        } else {
          line.append(part);
        }
      }
      if (eol == std::string_view::npos) break;
      finish_line();
      at = eol + 1;
    }
  }
  if (in.bad()) return MakeError("{}: cannot read template file: {}", path, std::strerror(errno));
  if (!line.empty() || overlong) finish_line();
  return Ok();
}

}  // namespace rastrace::schema
