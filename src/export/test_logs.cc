#include "export/test_logs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "event/encode.h"
#include "event/format.h"
#include "event/s2.h"
#include "event/timebase.h"

namespace rastrace::exporter::testing {

LogBuilder::LogBuilder(ByteOrder order, event::Layout layout) : order_(order), layout_(layout) {
  event::EncodeMagic(layout, order, bytes_);
}

std::vector<uint8_t> LogBuilder::S2(std::string_view text) const {
  std::vector<uint8_t> out;
  event::AppendS2(text, order_, out);
  return out;
}

LogBuilder& LogBuilder::Fields(const event::EventFields& fields) {
  auto encoded = event::Encode(fields, layout_, order_, bytes_);
  if (!encoded.ok()) throw std::runtime_error(encoded.error().message);
  return *this;
}

LogBuilder& LogBuilder::TimeConversion(uint64_t multiplier, uint64_t divisor) {
  const auto buffer = event::EncodeTimeConversion({multiplier, divisor, 2}, order_);
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilTimeConversion;
  f.generic = true;
  f.buffer = buffer;
  return Fields(f);
}

LogBuilder& LogBuilder::Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path) {
  std::vector<uint8_t> buffer(16);
  Store<uint64_t>(buffer.data(), ppid, order_);
  Store<uint64_t>(buffer.data() + 8, tid, order_);
  const auto s2 = S2(path);
  buffer.insert(buffer.end(), s2.begin(), s2.end());
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilProcess;
  f.generic = true;
  f.generic_word = pid;
  f.buffer = buffer;
  return Fields(f);
}

LogBuilder& LogBuilder::Exec(uint64_t pid, std::string_view path) {
  const auto buffer = S2(path);
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilExec;
  f.generic = true;
  f.generic_word = pid;
  f.buffer = buffer;
  return Fields(f);
}

LogBuilder& LogBuilder::ThreadName(uint64_t tid, std::string_view name) {
  const auto buffer = S2(name);
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilThreadName;
  f.generic = true;
  f.generic_word = tid;
  f.buffer = buffer;
  return Fields(f);
}

LogBuilder& LogBuilder::Cpu(uint64_t tid, uint32_t cpu, uint64_t ticks) {
  return Hook(event::kHookUtil, event::kUtilCpu, tid, ticks, {cpu});
}

LogBuilder& LogBuilder::TracepointDef(uint16_t major, uint16_t minor, uint16_t kind,
                                      std::string_view name) {
  const auto buffer = S2(name);
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilTracepointDef;
  f.generic = true;
  f.generic_word = major | uint64_t{minor} << 16 | uint64_t{kind} << 32;
  f.buffer = buffer;
  return Fields(f);
}

LogBuilder& LogBuilder::TracepointHit(uint16_t major, uint16_t minor, uint32_t pid, uint64_t tid,
                                      uint64_t ticks, std::string_view data) {
  return Generic(event::kHookDynamicTracepoint, minor, tid, ticks, major | uint64_t{pid} << 32,
                 data);
}

LogBuilder& LogBuilder::Source(uint64_t number, std::string_view name, uint64_t ticks) {
  const auto buffer = S2(name);
  event::EventFields f;
  f.hook_id = event::kHookUtil;
  f.subhook = event::kUtilSource;
  f.generic = true;
  f.generic_word = number;
  f.buffer = buffer;
  f.timestamped = true;
  f.timestamp = ticks;
  return Fields(f);
}

LogBuilder& LogBuilder::Hook(uint16_t hook_id, uint16_t subhook, uint64_t tid, uint64_t ticks,
                             std::initializer_list<uint64_t> words, bool timestamped) {
  event::EventFields f;
  f.hook_id = hook_id;
  f.subhook = subhook;
  f.thread_id = tid;
  f.timestamped = timestamped;
  f.timestamp = timestamped ? ticks : 0;
  for (uint64_t w : words) f.words[f.word_count++] = w;
  return Fields(f);
}

LogBuilder& LogBuilder::Generic(uint16_t hook_id, uint16_t subhook, uint64_t tid, uint64_t ticks,
                                uint64_t data_word, std::string_view buffer, bool timestamped) {
  event::EventFields f;
  f.hook_id = hook_id;
  f.subhook = subhook;
  f.thread_id = tid;
  f.timestamped = timestamped;
  f.timestamp = timestamped ? ticks : 0;
  f.generic = true;
  f.generic_word = data_word;
  f.buffer = std::span(reinterpret_cast<const uint8_t*>(buffer.data()), buffer.size());
  return Fields(f);
}

void LogBuilder::WriteTo(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes_.data()),
            static_cast<std::streamsize>(bytes_.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TMPDIR");
  path_ = fmt::format("{}/rastrace_export_test_{}_{}", base != nullptr ? base : "/tmp", ::getpid(),
                      counter++);
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

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
