#include "report/template_path.h"

#include <cstdlib>
#include <filesystem>

namespace rastrace::report {

std::vector<std::string> TemplateFileCandidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("RASTRACE_TEMPLATES"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // <prefix>/bin/trcrpt -> <prefix>/share/rastrace/trcfmt
    candidates.push_back(
        (self.parent_path().parent_path() / "share" / "rastrace" / "trcfmt").string());
  }
  candidates.emplace_back(RASTRACE_INSTALL_DATADIR "/rastrace/trcfmt");
  candidates.emplace_back(RASTRACE_SOURCE_TREE "/templates/trcfmt");
  return candidates;
}

std::string FindDefaultTemplateFile() {
  // An explicit RASTRACE_TEMPLATES wins even when missing: loading it then names the file.
  if (const char* env = std::getenv("RASTRACE_TEMPLATES"); env != nullptr && *env != '\0') {
    return env;
  }
  for (const std::string& candidate : TemplateFileCandidates()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

}  // namespace rastrace::report
