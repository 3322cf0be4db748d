#include "schema/descriptions.h"

#include <fmt/format.h>

#include <filesystem>

namespace rastrace::schema {

namespace {

std::vector<std::string> SplitPath(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t colon = value.find(':', start);
    const size_t end = colon == std::string::npos ? value.size() : colon;
    if (end > start) out.push_back(value.substr(start, end - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return out;
}

bool HoldsFormatFiles(const std::string& directory) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    uint16_t major = 0;
    if (tsf::IsFormatFileName(entry.path().filename().string(), major)) return true;
  }
  return false;
}

Result<void> LoadTemplateFile(const std::string& path, Descriptions& d,
                              DescriptionProblems& problems) {
  std::vector<tmpl::Diagnostic> diagnostics;
  auto added = d.templates.AddFile(path, diagnostics);
  if (!added) return added.error();
  for (const auto& diagnostic : diagnostics) {
    if (!diagnostic.warning) ++problems.errors;
    problems.messages.push_back(diagnostic.ToString());
  }
  const auto declared = [&d] {
    return d.declarations.events.size() + d.declarations.slices.size() +
           d.declarations.counters.size();
  };
  const size_t declared_before = declared();
  std::vector<std::string> declaration_errors;
  if (auto read = LoadDeclarations(path, d.declarations, declaration_errors); !read) {
    return read.error();
  }
  if (*added == 0 && diagnostics.empty() && declaration_errors.empty() &&
      declared() == declared_before) {
    // Nothing to format or describe any event with: every event would be "UNDEFINED TRACE ID".
    return MakeError("{}: no templates in the file", path);
  }
  for (auto& error : declaration_errors) {
    ++problems.errors;
    problems.messages.push_back(std::move(error));
  }
  d.template_files.push_back(path);
  return Ok();
}

}  // namespace

Result<std::unique_ptr<Descriptions>> LoadDescriptions(const DescriptionPaths& paths,
                                                       DescriptionProblems& problems) {
  auto d = std::make_unique<Descriptions>();
  std::vector<std::string> files;
  for (const std::string& value : paths.given) {
    const std::vector<std::string> entries = SplitPath(value);
    if (entries.empty()) return MakeError("-t '{}': names no file or directory", value);
    for (const std::string& entry : entries) {
      std::error_code ec;
      const auto status = std::filesystem::status(entry, ec);
      if (ec || !std::filesystem::exists(status)) {
        return MakeError("{}: no such template file or format file directory", entry);
      }
      if (std::filesystem::is_directory(status)) {
        if (!HoldsFormatFiles(entry)) {
          return MakeError(
              "{}: a directory, but it holds no format file (TRCxxxx.TFF); a template file is a "
              "file",
              entry);
        }
        d->format_dirs.push_back(entry);
      } else if (std::filesystem::is_regular_file(status) ||
                 std::filesystem::is_character_file(status) || std::filesystem::is_fifo(status)) {
        files.push_back(entry);
      } else {
        return MakeError("{}: neither a template file nor a directory of format files", entry);
      }
    }
  }
  if (files.empty() && !paths.default_template_file.empty()) {
    files.push_back(paths.default_template_file);
  }
  for (const std::string& file : files) {
    if (auto loaded = LoadTemplateFile(file, *d, problems); !loaded) return loaded.error();
  }
  if (d->format_dirs.empty()) d->format_dirs = paths.default_format_dirs;
  d->tracepoints = tsf::FormatPath::Load(d->format_dirs);
  for (const std::string& error : d->tracepoints.errors()) {
    ++problems.errors;
    problems.messages.push_back(error);
  }
  d->syscalls = std::make_unique<SyscallFormats>(paths.tracefs_events);
  return d;
}

}  // namespace rastrace::schema
