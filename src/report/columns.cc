#include "report/columns.h"

#include <cstdlib>

namespace rastrace::report {

namespace {

constexpr std::string_view kLevelHeading = "APPL    SYSCALL KERNEL  INTERRUPT";

std::string_view TimeHeading(TimestampStyle style) {
  switch (style) {
    case TimestampStyle::kElapsedAndDeltaMsec:
      return "   ELAPSED_SEC     DELTA_MSEC   ";
    case TimestampStyle::kElapsedUsec:
      return "    ELAPSED   ";
    case TimestampStyle::kElapsedAndDeltaUsec:
      return "   ELAPSED_SEC     DELTA_USEC   ";
    case TimestampStyle::kNone:
      return "";
  }
  return "";
}

// Digits of `value`, least significant first, into `digits`; returns how many.
int ToDigits(uint64_t value, char* digits) {
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  return n;
}

void AppendPaddedText(std::string_view text, size_t width, std::string& out) {
  if (text.size() > width) text = text.substr(0, width);
  out.append(text);
  out.append(width - text.size(), ' ');
}

// Left-aligned decimal padded with blanks to `width` (printf %-Nd for unsigned values).
void AppendLeftDecimal(uint64_t value, size_t width, std::string& out) {
  char digits[24];
  int n = ToDigits(value, digits);
  for (int i = n - 1; i >= 0; --i) out.push_back(digits[i]);
  if (static_cast<size_t>(n) < width) out.append(width - n, ' ');
}

// A signed value printed as printf("%Wd.%0Fd", whole, fraction) would, keeping the sign of
// values between -1 and 0 (which printf's %d of the whole part would lose). Built right to left
// in a small buffer: this runs for every event line.
template <uint64_t unit, int fraction_digits>
void AppendFixed(int64_t value, int whole_width, std::string& out) {
  bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  uint64_t whole = magnitude / unit;
  uint64_t fraction = magnitude % unit;
  char buffer[64];
  char* end = buffer + sizeof buffer;
  char* p = end;
  for (int i = 0; i < fraction_digits; ++i) {
    *--p = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  *--p = '.';
  char* whole_end = p;
  do {
    *--p = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole != 0);
  if (negative) *--p = '-';
  while (whole_end - p < whole_width) *--p = ' ';
  out.append(p, end);
}

void AppendSignedDecimal(int64_t value, int width, std::string& out) {
  bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  char buffer[32];
  char* end = buffer + sizeof buffer;
  char* p = end;
  do {
    *--p = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) *--p = '-';
  while (end - p < width) *--p = ' ';
  out.append(p, end);
}

constexpr char kHexDigits[] = "0123456789ABCDEF";

}  // namespace

void AppendDecimal(uint64_t value, int width, std::string& out) {
  char digits[24];
  int n = ToDigits(value, digits);
  if (n < width) out.append(width - n, ' ');
  for (int i = n - 1; i >= 0; --i) out.push_back(digits[i]);
}

std::string ColumnHeader(const LayoutOptions& layout) {
  std::string header;
  if (layout.ids) header += "ID  ";
  if (layout.exec) header += "PROCESS NAME   ";
  if (layout.cpuid) header += "CPU ";
  if (layout.pid) header += "PID      ";
  if (layout.tid) header += "TID      ";
  if (layout.exec || layout.pid) header += "I ";
  if (layout.svc) header += "SYSTEM CALL ";
  header += TimeHeading(layout.timestamp);
  header += kLevelHeading;
  return header;
}

size_t PrefixWidth(const LayoutOptions& layout) {
  return ColumnHeader(layout).size() - kLevelHeading.size();
}

void AppendHookId(uint16_t id16, std::string& out) {
  if ((id16 & 0xF) == 0) {
    out.push_back(kHexDigits[(id16 >> 12) & 0xF]);
    out.push_back(kHexDigits[(id16 >> 8) & 0xF]);
    out.push_back(kHexDigits[(id16 >> 4) & 0xF]);
  } else {
    for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHexDigits[(id16 >> shift) & 0xF]);
  }
  out.push_back(' ');
}

void AppendTimeField(TimestampStyle style, int64_t elapsed_ns, int64_t delta_ns, bool timestamped,
                     std::string& out) {
  // The `*` of an untimestamped event takes the first blank after the elapsed time, so the
  // columns stay aligned.
  const char* after_elapsed = timestamped ? "  " : "* ";
  switch (style) {
    case TimestampStyle::kElapsedAndDeltaMsec:  // %4d.%09d  %6d.%06d
      AppendFixed<1'000'000'000, 9>(elapsed_ns, 4, out);
      out += after_elapsed;
      AppendFixed<1'000'000, 6>(delta_ns, 6, out);
      out += "   ";
      return;
    case TimestampStyle::kElapsedUsec:  // %4d.%06d
      AppendFixed<1'000'000, 6>(elapsed_ns / 1000, 4, out);
      out += timestamped ? "   " : "*  ";
      return;
    case TimestampStyle::kElapsedAndDeltaUsec:  // %4d.%09d  %13d
      AppendFixed<1'000'000'000, 9>(elapsed_ns, 4, out);
      out += after_elapsed;
      AppendSignedDecimal(delta_ns / 1000, 13, out);
      out += "   ";
      return;
    case TimestampStyle::kNone:
      return;
  }
}

void AppendPrefix(const LayoutOptions& layout, const PrefixFields& fields, std::string& out) {
  if (layout.ids) {
    AppendHookId(fields.hook_id, out);
  }
  if (layout.exec) {
    if (layout.full_exec_path && fields.process_name.size() > 14) {
      out += fields.process_name;
    } else {
      AppendPaddedText(fields.process_name, 14, out);
    }
    out.push_back(' ');
  }
  if (layout.cpuid) {
    AppendLeftDecimal(fields.cpu, 2, out);
    out += "  ";
  }
  if (layout.pid) {
    AppendLeftDecimal(fields.pid, 8, out);
    out.push_back(' ');
  }
  if (layout.tid) {
    AppendLeftDecimal(fields.tid, 8, out);
    out.push_back(' ');
  }
  if (layout.exec || layout.pid) out += "  ";
  if (layout.svc) {
    AppendPaddedText(fields.svc, 11, out);
    out.push_back(' ');
  }
  AppendTimeField(layout.timestamp, fields.elapsed_ns, fields.delta_ns, fields.timestamped, out);
}

}  // namespace rastrace::report
