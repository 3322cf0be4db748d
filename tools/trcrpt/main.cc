// trcrpt: formats a report from trace logs with trcfmt templates (docs/trcrpt.md).
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/exit_status.h"
#include "common/output_file.h"
#include "report/options.h"
#include "report/report.h"
#include "report/template_path.h"
#include "template/template.h"

namespace {

using rastrace::report::ReportOptions;

// Loads the template file; prints its diagnostics unless `quiet`. Returns false when the file
// cannot be read at all; `errors` counts diagnostics that are errors.
bool LoadTemplates(const std::string& path, bool quiet, rastrace::tmpl::TemplateSet& templates,
                   size_t& errors) {
  std::vector<rastrace::tmpl::Diagnostic> diagnostics;
  auto added = templates.AddFile(path, diagnostics);
  if (!added) {
    std::fprintf(stderr, "trcrpt: %s\n", added.error().message.c_str());
    return false;
  }
  errors = 0;
  for (const auto& diagnostic : diagnostics) {
    if (!diagnostic.warning) ++errors;
    if (!quiet) std::fprintf(stderr, "%s\n", diagnostic.ToString().c_str());
  }
  if (*added == 0 && diagnostics.empty()) {
    // Nothing to format any event with: every event would be "UNDEFINED TRACE ID".
    std::fprintf(stderr, "trcrpt: %s: no templates in the file\n", path.c_str());
    return false;
  }
  return true;
}

std::string TemplatePath(const ReportOptions& options) {
  if (!options.template_file.empty()) return options.template_file;
  std::string found = rastrace::report::FindDefaultTemplateFile();
  if (found.empty()) {
    std::fprintf(stderr, "trcrpt: no template file: give one with -t; looked for:\n");
    for (const auto& candidate : rastrace::report::TemplateFileCandidates()) {
      std::fprintf(stderr, "  %s\n", candidate.c_str());
    }
  }
  return found;
}

void ListIds(const rastrace::tmpl::TemplateSet& templates, std::FILE* out) {
  for (const auto* t : templates.All()) {
    std::string_view label = t->label;
    if (!label.empty() && label.front() == '@') label.remove_prefix(1);
    std::fprintf(out, "%s %.*s\n", t->id_text.c_str(), static_cast<int>(label.size()),
                 label.data());
  }
}

int Run(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  auto parsed = rastrace::report::ParseReportOptions(args);
  if (!parsed) {
    std::fprintf(stderr, "trcrpt: %s\n(trcrpt --help lists the flags)\n",
                 parsed.error().message.c_str());
    return rastrace::kExitUsage;
  }
  ReportOptions& options = *parsed;
  if (options.help) {
    std::fputs(rastrace::report::UsageText().data(), stdout);
    return 0;
  }
  std::string template_path = TemplatePath(options);
  if (template_path.empty()) return 1;
  if (options.verbose) std::fprintf(stderr, "trcrpt: templates %s\n", template_path.c_str());
  rastrace::tmpl::TemplateSet templates;
  size_t errors = 0;
  if (!LoadTemplates(template_path, options.quiet && options.check_templates, templates, errors)) {
    return 1;
  }
  if (options.check_templates) return errors == 0 ? 0 : 1;
  if (options.list_ids) {
    ListIds(templates, stdout);
    if (auto finished = rastrace::FinishOutput(stdout); !finished) {
      std::fprintf(stderr, "trcrpt: %s\n", finished.error().message.c_str());
      return 1;
    }
    return 0;
  }
  if (options.logs.empty()) options.logs.emplace_back("/var/adm/ras/trcfile");

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  std::FILE* out = stdout;
  if (!options.output_file.empty() && options.output_file != "-") {
    auto opened = rastrace::OpenOutputStream(options.output_file);
    if (!opened) {
      std::fprintf(stderr, "trcrpt: %s\n", opened.error().message.c_str());
      return 1;
    }
    file.reset(*opened);
    out = file.get();
  }
  // RunReport checks its own writes ("error writing the report", status 1).
  int status = rastrace::report::RunReport(options, templates, out, stderr);
  if (file && std::fclose(file.release()) != 0) {
    std::perror(("trcrpt: " + options.output_file).c_str());
    return 1;
  }
  // The report went on past templates that did not load; the exit status still says so.
  if (status == 0 && errors > 0) return 1;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trcrpt: %s\n", e.what());
    return 1;
  }
}
