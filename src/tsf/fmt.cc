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

bool RecordReader::TakeBytes(size_t n, std::span<const uint8_t>& bytes) {
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

RecordReader::Prefix RecordReader::ConsumePrefix(FmtTake& bad) {
  if (in_record_) cursor_ = std::max(cursor_, record_end_);
  in_record_ = false;
  std::span<const uint8_t> prefix;
  if (!TakeBytes(3, prefix)) return Prefix::kMissing;
  const uint8_t status = prefix[0];
  const size_t length = Load16(prefix.data() + 1, ByteOrder::kLittle);
  record_end_ = std::min(cursor_ + length, record_.data.size());
  in_record_ = true;
  if (status == 0) return Prefix::kOk;
  // The tracepoint stored the pointer it could not follow instead of the data, and nothing after.
  uint64_t pointer = 0;
  const size_t have = std::min<size_t>(record_end_ - cursor_, 8);
  for (size_t k = 0; k < have; ++k) pointer |= uint64_t{record_.data[cursor_ + k]} << (8 * k);
  bad.kind = FmtTake::Kind::kBadPointer;
  bad.status = status;
  bad.pointer = pointer;
  cursor_ = record_end_;
  stopped_ = true;
  return Prefix::kBad;
}

FmtTake RecordReader::Take(const FmtItem& item) {
  FmtTake take;
  switch (item.control) {
    case FmtControl::kLiteral:
    case FmtControl::kMajor:
    case FmtControl::kMinor:
      return take;
    default:
      break;
  }
  const bool shows = item.control != FmtControl::kSkip && item.control != FmtControl::kPrefixOnly;
  const auto missing = [&] {
    take.kind = shows ? FmtTake::Kind::kMissing : FmtTake::Kind::kNothing;
    return take;
  };
  if (stopped_) return missing();
  if (item.prefixed) {
    switch (ConsumePrefix(take)) {
      case Prefix::kOk:
        break;
      case Prefix::kMissing:
        // A lone %P that finds no prefix shows nothing; a control after %P shows `?`.
        take.kind = item.control == FmtControl::kPrefixOnly ? FmtTake::Kind::kNothing
                                                            : FmtTake::Kind::kMissing;
        return take;
      case Prefix::kBad:
        return take;
    }
  }
  const auto fixed = [&](size_t n) {
    take.kind = TakeBytes(n, take.bytes) ? FmtTake::Kind::kData : FmtTake::Kind::kMissing;
    return take;
  };
  switch (item.control) {
    case FmtControl::kPrefixOnly:
      return take;
    case FmtControl::kSkip:
      (void)TakeBytes(item.skip, take.bytes);
      take.bytes = {};
      return take;
    case FmtControl::kByte:
    case FmtControl::kChar:
      return fixed(1);
    case FmtControl::kWord:
      return fixed(2);
    case FmtControl::kDwordWords:
    case FmtControl::kDword:
    case FmtControl::kFarPointer:
      return fixed(4);
    case FmtControl::kQword:
      return fixed(8);
    case FmtControl::kHexBytes: {
      const size_t end = item.prefixed ? record_end_ : record_.data.size();
      if (cursor_ >= end) return missing();
      take.kind = FmtTake::Kind::kData;
      take.bytes = record_.data.subspan(cursor_, end - cursor_);
      cursor_ = end;
      return take;
    }
    case FmtControl::kString: {
      size_t length = 0;
      if (item.prefixed) {
        length = record_end_ > cursor_ ? record_end_ - cursor_ : 0;
      } else if (record_.kernel_generated) {
        // Seed 000: a reserved byte, the length as a word, then the string.
        std::span<const uint8_t> header;
        if (!TakeBytes(3, header)) return missing();
        length = Load16(header.data() + 1, ByteOrder::kLittle);
        if (length > record_.data.size() - cursor_) {
          cursor_ = record_.data.size();
          return missing();
        }
      } else {
        const size_t end = in_record_ && cursor_ < record_end_ ? record_end_ : record_.data.size();
        if (cursor_ >= end) return missing();
        size_t n = 0;
        while (cursor_ + n < end && record_.data[cursor_ + n] != 0) ++n;
        take.kind = FmtTake::Kind::kData;
        take.bytes = record_.data.subspan(cursor_, n);
        cursor_ += std::min(n + 1, end - cursor_);  // the NUL belongs to the string
        return take;
      }
      take.kind = FmtTake::Kind::kData;
      take.bytes = record_.data.subspan(cursor_, length);
      cursor_ += length;
      return take;
    }
    default:
      return take;
  }
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
  const FmtTake take = reader_.Take(item);
  switch (take.kind) {
    case FmtTake::Kind::kNothing:
      return;
    case FmtTake::Kind::kMissing:
      out += '?';
      return;
    case FmtTake::Kind::kBadPointer:
      switch (take.status) {
        case 1:
          out += fmt::format("<page not present: 0x{:x}>", take.pointer);
          break;
        case 2:
          out += fmt::format("<invalid address: 0x{:x}>", take.pointer);
          break;
        default:
          out += fmt::format("<status {}: 0x{:x}>", take.status, take.pointer);
          break;
      }
      return;
    case FmtTake::Kind::kData:
      break;
  }
  const std::span<const uint8_t> b = take.bytes;
  switch (item.control) {
    case FmtControl::kByte:
      out += fmt::format("{:02X}", b[0]);
      return;
    case FmtControl::kChar:
      out += Printable(b[0]);
      return;
    case FmtControl::kWord:
      out += fmt::format("{:04X}", Load16(b.data(), le));
      return;
    case FmtControl::kDwordWords:
      out += fmt::format("{:04X} {:04X}", Load16(b.data() + 2, le), Load16(b.data(), le));
      return;
    case FmtControl::kDword:
      out += fmt::format("{:08X}", Load32(b.data(), le));
      return;
    case FmtControl::kQword:
      out += fmt::format("{:016X}", Load64(b.data(), le));
      return;
    case FmtControl::kFarPointer:
      out += fmt::format("{:04X}:{:04X}", Load16(b.data() + 2, le), Load16(b.data(), le));
      return;
    case FmtControl::kHexBytes:
      out += HexBytes(b);
      return;
    case FmtControl::kString:
      for (const uint8_t c : b) {
        if (c == 0) break;
        out += Printable(c);
      }
      return;
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
