#include "export/test_json.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rastrace::exporter::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Json::Json() = default;
Json::Json(const Json&) = default;
Json::Json(Json&&) noexcept = default;
Json& Json::operator=(const Json&) = default;
Json& Json::operator=(Json&&) noexcept = default;
Json::~Json() = default;

bool Json::has(std::string_view key) const {
  for (const auto& [k, v] : object()) {
    if (k == key) return true;
  }
  return false;
}

const Json& Json::operator[](std::string_view key) const {
  for (const auto& [k, v] : object()) {
    if (k == key) return v;
  }
  throw std::runtime_error(fmt::format("no key '{}'", key));
}

namespace {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Json ParseDocument() {
    Json value = ParseValue();
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void Fail(std::string_view what) const {
    throw std::runtime_error(fmt::format("JSON offset {}: {}", pos_, what));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  void Expect(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) Fail(fmt::format("expected '{}'", c));
    ++pos_;
  }
  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Json ParseValue() {
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end");
    const char c = text_[pos_];
    Json out;
    if (c == '{') {
      ++pos_;
      Json::Object object;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
      } else {
        for (;;) {
          SkipSpace();
          std::string key = ParseString();
          Expect(':');
          object.emplace_back(std::move(key), ParseValue());
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            continue;
          }
          Expect('}');
          break;
        }
      }
      out.value = std::move(object);
    } else if (c == '[') {
      ++pos_;
      Json::Array array;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
      } else {
        for (;;) {
          array.push_back(ParseValue());
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            continue;
          }
          Expect(']');
          break;
        }
      }
      out.value = std::move(array);
    } else if (c == '"') {
      out.value = ParseString();
    } else if (Literal("true")) {
      out.value = true;
    } else if (Literal("false")) {
      out.value = false;
    } else if (Literal("null")) {
      out.value = nullptr;
    } else {
      const size_t start = pos_;
      if (text_[pos_] == '-') ++pos_;
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
              text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == '+' ||
              text_[pos_] == '-')) {
        ++pos_;
      }
      if (start == pos_) Fail("expected a value");
      out.number_text = std::string(text_.substr(start, pos_ - start));
      out.value = std::stod(out.number_text);
    }
    return out;
  }

  std::string ParseString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) Fail("control character in string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) Fail("bad escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("bad \\u escape");
          const unsigned code = std::stoul(std::string(text_.substr(pos_, 4)), nullptr, 16);
          pos_ += 4;
          if (code >= 0x80) Fail("\\u escape above 0x7F not expected from rastrace");
          out.push_back(static_cast<char>(code));
          break;
        }
        default:
          Fail("bad escape");
      }
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Json ParseJson(std::string_view text) {
  return JsonParser(text).ParseDocument();
}

}  // namespace rastrace::exporter::testing
