#include "stda/report.h"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>

#include "tsf/fmt.h"

namespace rastrace::stda {

const tsf::FormatFile* FormatLibrary::Find(uint16_t major) {
  auto it = loaded_.find(major);
  if (it != loaded_.end()) return it->second.get();
  std::unique_ptr<tsf::FormatFile>& slot = loaded_[major];
  const std::string name = tsf::FormatFileName(major);
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string& candidate : {name, lower}) {
    const auto path = std::filesystem::path(directory_) / candidate;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    auto file = tsf::LoadFormatFile(path.string());
    if (!file) {
      errors_.push_back(file.error().message);
    } else if (file->major != major) {
      errors_.push_back(
          fmt::format("{}: holds major {:#06x}, not {:#06x}", path.string(), file->major, major));
    } else {
      slot = std::make_unique<tsf::FormatFile>(std::move(file.value()));
    }
    break;
  }
  return slot.get();
}

std::string TimestampText(const Record& r, Format format) {
  if (!r.time) return "-";
  const Timestamp& t = *r.time;
  if (format == Format::kGa) return fmt::format("{:02}.{:02}", t.seconds, t.hundredths);
  return fmt::format("{:02}:{:02}:{:02}.{:02}", t.hours, t.minutes, t.seconds, t.hundredths);
}

std::string HexDumpLines(std::span<const uint8_t> data, std::string_view indent) {
  std::string out;
  for (size_t i = 0; i < data.size(); i += 16) {
    out += fmt::format("{}{:04X}: {}\n", indent, i,
                       tsf::HexBytes(data.subspan(i, std::min<size_t>(16, data.size() - i))));
  }
  return out;
}

void AppendTracepointText(const tsf::TracepointFormat& format, const tsf::FmtRecord& record,
                          std::string& out) {
  if (format.desc.empty()) {
    fmt::format_to(std::back_inserter(out), "TRACEPOINT {:04X}:{:04X}", record.major, record.minor);
  } else {
    out += format.desc;
  }
  tsf::RecordFormatter formatter(record);
  for (const tsf::FmtLineItems& line : format.parsed) {
    out += '\n';
    formatter.FormatLine(line, out);
  }
}

bool AppendRecordText(size_t sequence, const Record& r, Format format,
                      const tsf::TracepointFormat* entry, std::string& out) {
  std::string flags;
  if (r.kernel_generated()) flags += " kernel";
  if (r.flags & flag::kDynamic) flags += " dynamic";
  if (r.flags & flag::kIncomplete) flags += " incomplete";
  if (r.flags & flag::kProtectMode) flags += " protect-mode";
  out += fmt::format("{:04}  Major {:#04x}  Minor {:#06x}  PID {}  Time {}", sequence, r.major,
                     r.minor, r.pid, TimestampText(r, format));
  if (!flags.empty()) out += fmt::format("  [{}]", flags.substr(1));
  if (entry && !entry->desc.empty()) out += "  " + entry->desc;
  out += '\n';
  if (!entry || entry->parsed.empty()) {
    if (!r.data.empty()) {
      out += fmt::format("  no format{}; {} data bytes:\n", entry ? " strings" : "", r.data.size());
      out += HexDumpLines(r.data, "    ");
    }
    return false;
  }
  tsf::RecordFormatter formatter({r.major, r.minor, r.kernel_generated(), r.data});
  for (const tsf::FmtLineItems& line : entry->parsed) {
    std::string text;
    formatter.FormatLine(line, text);
    out += text;
    out += '\n';
  }
  return true;
}

}  // namespace rastrace::stda
