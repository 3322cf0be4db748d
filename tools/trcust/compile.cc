#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "actions.h"
#include "common/output_file.h"
#include "tsf/definition_file.h"
#include "tsf/format_file.h"
#include "tsf/static_header.h"
#include "tsf/tsf.h"

namespace rastrace::trcust {

bool WriteText(const std::filesystem::path& path, const std::string& text) {
  // Never through a symlink: the output directory may be shared.
  if (auto written = WriteWholeFile(path.string(), text); !written) {
    fmt::print(stderr, "trcust: {}\n", written.error().message);
    return false;
  }
  return true;
}

int Compile(const std::string& tsf_path, const std::string& output_dir, const std::string& header) {
  auto parsed = tsf::ParseTsfFile(tsf_path);
  if (!parsed) {
    fmt::print(stderr, "trcust: {}\n", parsed.error().message);
    return 1;
  }
  for (const tsf::Diagnostic& d : parsed->diagnostics) fmt::print(stderr, "{}\n", d.ToString());
  if (!parsed->module) return 1;
  const tsf::Module& module = *parsed->module;

  if (!header.empty()) {
    auto text = tsf::GenerateStaticHeader(module);
    if (!text) {
      fmt::print(stderr, "{}\n", text.error().message);
      return 1;
    }
    if (!WriteText(header, *text)) return 1;
  }
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) {
      fmt::print(stderr, "trcust: {}: cannot create the directory: {}\n", output_dir, ec.message());
      return 1;
    }
    const auto dir = std::filesystem::path(output_dir);
    const auto tff = dir / tsf::FormatFileName(module.major);
    const auto tdf = dir / tsf::DefinitionFileName(module.major);
    if (!WriteText(tff, tsf::WriteFormatText(tsf::MakeFormatFile(module))) ||
        !WriteText(tdf, tsf::WriteDefinitionText(module))) {
      return 1;
    }
    fmt::print("trcust: {}: major {:#06x}, {} tracepoints -> {}, {}\n", tsf_path, module.major,
               module.tracepoints.size(), tff.string(), tdf.string());
  }
  return 0;
}

}  // namespace rastrace::trcust
