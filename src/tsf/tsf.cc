#include "tsf/tsf.h"

#include <fmt/format.h>

#include "common/input_file.h"

namespace rastrace::tsf {

std::string Diagnostic::ToString() const {
  return fmt::format("{}:{}:{}: {}: {}", file, where.line, where.column,
                     is_error() ? "error" : "warning", message);
}

bool DataStatement::HasPrefix() const {
  return kind == DataKind::kMem32 || kind == DataKind::kMem || kind == DataKind::kAsciiz32 ||
         kind == DataKind::kAsciiz;
}

bool DataStatement::Segmented() const {
  if (kind == DataKind::kMem || kind == DataKind::kAsciiz) return true;
  if (kind == DataKind::kRegs) return false;
  return address.base == Address::Base::kSegmentRegister ||
         indirection == Indirection::kIndirectSegmented ||
         indirection == Indirection::kIndirectFlat;
}

uint32_t Tracepoint::MaxDataBytes(uint16_t max_data_length) const {
  uint32_t total = 0;
  for (const DataStatement& d : data) {
    switch (d.kind) {
      case DataKind::kRegs:
        for (const Register& r : d.registers) total += r.size;
        break;
      case DataKind::kLen:
        break;
      default:
        total += 3 + (d.length_from_len ? max_data_length : d.length);
        break;
    }
  }
  return total;
}

const Tracepoint* Module::FindMinor(uint16_t minor) const {
  for (const Tracepoint& tp : tracepoints) {
    if (tp.minor == minor) return &tp;
  }
  return nullptr;
}

bool ParseOutput::HasErrors() const {
  for (const Diagnostic& d : diagnostics) {
    if (d.is_error()) return true;
  }
  return false;
}

Result<ParseOutput> ParseTsfFile(const std::string& path) {
  auto text = ReadInputFile(path, kMaxTextInputBytes, "trace source files");
  if (!text) return text.error();
  return ParseTsf(*text, path);
}

}  // namespace rastrace::tsf
