// Printing format codes and macros into the event's text.
#include <algorithm>

#include "template/evaluator_impl.h"
#include "template/value_format.h"

namespace rastrace::tmpl {

void Evaluator::Impl::PrintText(const uint8_t* p, size_t n, size_t width, bool pad) {
  std::string& out = w.Raw();
  size_t printed = 0;
  for (; printed < n && (!pad || printed < width); ++printed) {
    uint8_t c = p[printed];
    if (c == 0) break;
    out.push_back(c >= 0x20 && c <= 0x7E ? static_cast<char>(c) : '.');
  }
  if (pad && printed < width) out.append(width - printed, ' ');
}

void Evaluator::Impl::PrintBits(uint64_t value, unsigned nbits) {
  std::string& out = w.Raw();
  for (unsigned i = nbits; i > 0; --i) out.push_back(((value >> (i - 1)) & 1) ? '1' : '0');
}

void Evaluator::Impl::PrintCode(const FormatCode& c) {
  const uint8_t* p = nullptr;
  switch (c.kind) {
    case CodeKind::kGoto:
    case CodeKind::kOmit:
    case CodeKind::kReverse:
    case CodeKind::kWord:
      Move(c);
      return;
    case CodeKind::kAscii:
      if (!Take(c.m, p)) return;
      PrintText(p, c.m, c.n, c.has_n);
      return;
    case CodeKind::kString: {
      unsigned n = c.Bytes(word);
      if (!Take(n, p)) return;
      uint64_t length = LoadUnsigned(p, n, read_order);
      if (!Take(length, p)) return;
      PrintText(p, length, 0, false);
      return;
    }
    case CodeKind::kBinary: {
      uint64_t v = 0;
      unsigned nbits = c.m * 8 + c.n;
      if (!TakeBits(nbits, v)) return;
      PrintBits(v, nbits);
      CodeBlank();
      return;
    }
    case CodeKind::kHex: {
      unsigned n = c.word_sized ? word : std::max(c.m, 1u);
      if (!Take(n, p)) return;
      std::string& out = w.Raw();
      for (unsigned i = 0; i < n; ++i) {
        // Most significant byte first: the value in the log's byte order.
        uint8_t byte = read_order == ByteOrder::kBig ? p[i] : p[n - 1 - i];
        constexpr char kDigits[] = "0123456789ABCDEF";
        out.push_back(kDigits[byte >> 4]);
        out.push_back(kDigits[byte & 0xF]);
      }
      if (c.m != 0 || c.word_sized) CodeBlank();
      return;
    }
    default:
      break;
  }
  if (c.kind == CodeKind::kFloat) {
    if (!Take(c.m, p)) return;
    w.Format("{:.4E}", LoadFloat(p, c.m));
    CodeBlank();
    return;
  }
  uint64_t v = CodeValue(c);
  if (halt) return;
  switch (c.kind) {
    case CodeKind::kSigned:
      w.Format("{}", static_cast<int64_t>(v));
      break;
    case CodeKind::kUnsigned:
    case CodeKind::kBufferBytes:
      w.Format("{}", v);
      break;
    case CodeKind::kOctal:
      w.Format("{:o}", v);
      break;
    case CodeKind::kHookType:
      if (ev->layout == event::Layout::k32) {
        w.Format("{:X}", v);
      } else {
        w.Format("{:04X}", v);
      }
      break;
    case CodeKind::kTime:
      AppendCtime(v, w.Raw());
      break;
    case CodeKind::kErrno: {
      std::string_view name = ErrnoName(static_cast<int64_t>(v));
      if (name.empty()) {
        w.Format("{}", static_cast<int64_t>(v));
      } else {
        w.Text(name);
      }
      break;
    }
    case CodeKind::kPid: {
      std::string_view path = host.ExecPathOf(v);
      if (path.empty()) {
        w.Format("{}", v);
      } else {
        w.Text(path);
      }
      break;
    }
    default:
      break;
  }
  CodeBlank();
}

void Evaluator::Impl::PrintWithCode(uint64_t value, const FormatCode& c) {
  unsigned n = c.word_sized ? word : c.m;
  switch (c.kind) {
    case CodeKind::kSigned:
      w.Format("{}", SignExtend(MaskBytes(value, n), n));
      break;
    case CodeKind::kUnsigned:
      w.Format("{}", MaskBytes(value, n));
      break;
    case CodeKind::kBinary: {
      unsigned nbits = std::min(c.m * 8 + c.n, 64u);
      PrintBits(nbits < 64 ? value & ((uint64_t{1} << nbits) - 1) : value, nbits);
      break;
    }
    default: {  // X
      unsigned bytes_shown = std::clamp(n, 1u, 8u);
      w.Format("{:0{}X}", MaskBytes(value, bytes_shown), bytes_shown * 2);
      if (n == 0 && !c.word_sized) return;  // %X0: no blank, like X0
      break;
    }
  }
  CodeBlank();
}

void Evaluator::Impl::PrintValue(const Value& v) {
  if (v.format.kind == MacroFormat::Kind::kLength) {
    uint64_t length = ValueOf(v);
    const uint8_t* p = nullptr;
    if (!Take(length, p)) return;
    PrintText(p, length, 0, false);
    return;
  }
  if (v.format.kind == MacroFormat::Kind::kCode) {
    PrintWithCode(ValueOf(v), v.format.code);
    return;
  }
  if (v.source == Value::Source::kSpecial && v.format.kind == MacroFormat::Kind::kDefault) {
    switch (StyleOf(v.special)) {
      case SpecialStyle::kLayout:
        w.Format("{}", SpecialValue(v.special));
        return;
      case SpecialStyle::kText:
        w.Text(SpecialText(v.special));
        return;
      case SpecialStyle::kHex:
        break;
    }
  }
  w.Format("{:04X}", ValueOf(v));
}

}  // namespace rastrace::tmpl
