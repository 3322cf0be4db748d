#include "tsf/fmt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/byte_order.h"

namespace rastrace::tsf {
namespace {

constexpr std::string_view kControlList = "X Y B C W D F Q A S U P Innn %";

bool IsDataControl(char upper) {
  return std::string_view("BCWDFQASUI").find(upper) != std::string_view::npos;
}

FmtControl ControlFor(char upper) {
  switch (upper) {
    case 'X':
      return FmtControl::kMajor;
    case 'Y':
      return FmtControl::kMinor;
    case 'B':
      return FmtControl::kByte;
    case 'C':
      return FmtControl::kChar;
    case 'W':
      return FmtControl::kWord;
    case 'D':
      return FmtControl::kDwordWords;
    case 'F':
      return FmtControl::kDword;
    case 'Q':
      return FmtControl::kQword;
    case 'A':
      return FmtControl::kFarPointer;
    case 'S':
      return FmtControl::kString;
    case 'U':
      return FmtControl::kHexBytes;
    default:
      return FmtControl::kSkip;
  }
}

char Upper(char c) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

char Printable(uint8_t c) {
  return c >= 0x20 && c <= 0x7E ? static_cast<char>(c) : '.';
}

}  // namespace

int32_t FmtItem::FixedSize() const {
  switch (control) {
    case FmtControl::kByte:
    case FmtControl::kChar:
      return 1;
    case FmtControl::kWord:
      return 2;
    case FmtControl::kDwordWords:
    case FmtControl::kDword:
    case FmtControl::kFarPointer:
      return 4;
    case FmtControl::kQword:
      return 8;
    case FmtControl::kSkip:
      return static_cast<int32_t>(skip);
    case FmtControl::kString:
    case FmtControl::kHexBytes:
      return -1;
    default:
      return 0;
  }
}

Result<FmtLineItems> ParseFmt(std::string_view text) {
  FmtLineItems items;
  std::string literal;
  auto flush = [&] {
    if (literal.empty()) return;
    FmtItem item;
    item.literal = std::move(literal);
    literal.clear();
    items.push_back(std::move(item));
  };
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '%') {
      literal += text[i++];
      continue;
    }
    const size_t at = i++;
    if (i >= text.size()) {
      return MakeError("offset {}: '%' at the end of the FMT string; expected a control ({})", at,
                       kControlList);
    }
    char c = Upper(text[i]);
    if (c == '%') {
      literal += '%';
      ++i;
      continue;
    }
    FmtItem item;
    item.offset = static_cast<uint32_t>(at);
    if (c == 'P') {
      item.prefixed = true;
      ++i;
      // The control that goes with the prefix: `%P%W` or `%PW`.
      size_t j = i;
      if (j + 1 < text.size() && text[j] == '%' && IsDataControl(Upper(text[j + 1]))) ++j;
      if (j < text.size() && IsDataControl(Upper(text[j])) &&
          (j > i || Upper(text[j]) != 'I' ||
           (j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1]))))) {
        c = Upper(text[j]);
        i = j;
      } else {
        item.control = FmtControl::kPrefixOnly;
        flush();
        items.push_back(std::move(item));
        continue;
      }
    }
    if (c == 'I') {
      size_t digits = 0;
      uint32_t n = 0;
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 6) {
        n = n * 10 + static_cast<uint32_t>(text[i] - '0');
        ++i;
        ++digits;
      }
      if (digits == 0 || digits > 5) {
        return MakeError("offset {}: %I needs 1 to 5 decimal digits (the bytes to skip)", at);
      }
      if (i < text.size() && text[i] == ' ') ++i;  // the blank ends the control
      item.control = FmtControl::kSkip;
      item.skip = n;
    } else if (std::string_view("XYBCWDFQASU").find(c) != std::string_view::npos) {
      item.control = ControlFor(c);
      ++i;
    } else {
      return MakeError("offset {}: unknown control '%{}' (expected one of {})", at, text[i],
                       kControlList);
    }
    flush();
    items.push_back(std::move(item));
  }
  flush();
  return items;
}

bool RecordFormatter::Take(size_t n, std::span<const uint8_t>& bytes) {
  const size_t size = record_.data.size();
  if (in_record_ && cursor_ >= record_end_) in_record_ = false;
  const size_t limit = in_record_ ? record_end_ : size;
  if (cursor_ > limit || n > limit - cursor_) {
    cursor_ = limit;
    return false;
  }
  bytes = record_.data.subspan(cursor_, n);
  cursor_ += n;
  return true;
}

bool RecordFormatter::ConsumePrefix(std::string& out, const FmtItem& item) {
  if (in_record_) cursor_ = std::max(cursor_, record_end_);
  in_record_ = false;
  std::span<const uint8_t> prefix;
  if (!Take(3, prefix)) {
    if (item.control != FmtControl::kPrefixOnly) out += '?';
    return false;
  }
  const uint8_t status = prefix[0];
  const size_t length = Load16(prefix.data() + 1, ByteOrder::kLittle);
  record_end_ = std::min(cursor_ + length, record_.data.size());
  in_record_ = true;
  if (status == 0) return true;
  // The tracepoint stored the pointer it could not follow instead of the data, and nothing after.
  uint64_t pointer = 0;
  const size_t have = std::min<size_t>(record_end_ - cursor_, 8);
  for (size_t k = 0; k < have; ++k) pointer |= uint64_t{record_.data[cursor_ + k]} << (8 * k);
  switch (status) {
    case 1:
      out += fmt::format("<page not present: 0x{:x}>", pointer);
      break;
    case 2:
      out += fmt::format("<invalid address: 0x{:x}>", pointer);
      break;
    default:
      out += fmt::format("<status {}: 0x{:x}>", status, pointer);
      break;
  }
  cursor_ = record_end_;
  stopped_ = true;
  return false;
}

void RecordFormatter::FormatControl(const FmtItem& item, std::string& out) {
  const auto le = ByteOrder::kLittle;
  switch (item.control) {
    case FmtControl::kLiteral:
      out += item.literal;
      return;
    case FmtControl::kMajor:
      out += fmt::format("{:04X}", record_.major);
      return;
    case FmtControl::kMinor:
      out += fmt::format("{:04X}", record_.minor);
      return;
    default:
      break;
  }
  const bool prints = item.control != FmtControl::kSkip && item.control != FmtControl::kPrefixOnly;
  if (stopped_) {
    if (prints) out += '?';
    return;
  }
  if (item.prefixed && !ConsumePrefix(out, item)) return;
  std::span<const uint8_t> b;
  switch (item.control) {
    case FmtControl::kPrefixOnly:
      return;
    case FmtControl::kSkip:
      (void)Take(item.skip, b);
      return;
    case FmtControl::kByte:
      out += Take(1, b) ? fmt::format("{:02X}", b[0]) : "?";
      return;
    case FmtControl::kChar:
      out += Take(1, b) ? Printable(b[0]) : '?';
      return;
    case FmtControl::kWord:
      out += Take(2, b) ? fmt::format("{:04X}", Load16(b.data(), le)) : "?";
      return;
    case FmtControl::kDwordWords:
      if (!Take(4, b)) {
        out += '?';
        return;
      }
      out += fmt::format("{:04X} {:04X}", Load16(b.data() + 2, le), Load16(b.data(), le));
      return;
    case FmtControl::kDword:
      out += Take(4, b) ? fmt::format("{:08X}", Load32(b.data(), le)) : "?";
      return;
    case FmtControl::kQword:
      out += Take(8, b) ? fmt::format("{:016X}", Load64(b.data(), le)) : "?";
      return;
    case FmtControl::kFarPointer:
      if (!Take(4, b)) {
        out += '?';
        return;
      }
      out += fmt::format("{:04X}:{:04X}", Load16(b.data() + 2, le), Load16(b.data(), le));
      return;
    case FmtControl::kHexBytes: {
      const size_t end = item.prefixed ? record_end_ : record_.data.size();
      if (cursor_ >= end) {
        out += '?';
        return;
      }
      out += HexBytes(record_.data.subspan(cursor_, end - cursor_));
      cursor_ = end;
      return;
    }
    case FmtControl::kString: {
      size_t length = 0;
      if (item.prefixed) {
        length = record_end_ > cursor_ ? record_end_ - cursor_ : 0;
      } else if (record_.kernel_generated) {
        // Seed 000: a reserved byte, the length as a word, then the string.
        std::span<const uint8_t> header;
        if (!Take(3, header)) {
          out += '?';
          return;
        }
        length = Load16(header.data() + 1, le);
        if (length > record_.data.size() - cursor_) {
          cursor_ = record_.data.size();
          out += '?';
          return;
        }
      } else {
        const size_t end = in_record_ && cursor_ < record_end_ ? record_end_ : record_.data.size();
        if (cursor_ >= end) {
          out += '?';
          return;
        }
        size_t n = 0;
        while (cursor_ + n < end && record_.data[cursor_ + n] != 0) ++n;
        for (size_t k = 0; k < n; ++k) out += Printable(record_.data[cursor_ + k]);
        cursor_ += std::min(n + 1, end - cursor_);  // the NUL belongs to the string
        return;
      }
      for (size_t k = 0; k < length; ++k) {
        const uint8_t c = record_.data[cursor_ + k];
        if (c == 0) break;
        out += Printable(c);
      }
      cursor_ += length;
      return;
    }
    default:
      return;
  }
}

void RecordFormatter::FormatLine(std::span<const FmtItem> items, std::string& out) {
  for (const FmtItem& item : items) FormatControl(item, out);
}

std::vector<std::string> FormatRecord(std::span<const FmtLineItems> lines,
                                      const FmtRecord& record) {
  RecordFormatter formatter(record);
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const auto& line : lines) {
    std::string text;
    formatter.FormatLine(line, text);
    out.push_back(std::move(text));
  }
  return out;
}

std::string HexBytes(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 3);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ' ';
    fmt::format_to(std::back_inserter(out), "{:02X}", bytes[i]);
  }
  return out;
}

}  // namespace rastrace::tsf
