// trcrpt: formats a report from trace logs with trcfmt templates (docs/trcrpt.md).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/exit_status.h"
#include "common/output_file.h"
#include "report/options.h"
#include "report/report.h"
#include "report/template_path.h"
#include "schema/descriptions.h"
#include "template/template.h"

namespace {

using rastrace::report::ReportOptions;

// Loads the template files and format file directories of -t (else the default template file and
// the format files of the current directory); prints their diagnostics unless `quiet`. Returns
// null when they cannot be loaded at all; `errors` counts diagnostics that are errors.
std::unique_ptr<rastrace::schema::Descriptions> LoadDescriptions(const ReportOptions& options,
                                                                 bool quiet, size_t& errors) {
  rastrace::schema::DescriptionPaths paths;
  paths.given = options.template_paths;
  paths.default_format_dirs = {"."};
  bool names_a_file = false;
  for (const std::string& value : options.template_paths) {
    for (size_t start = 0; start <= value.size();) {
      const size_t colon = value.find(':', start);
      const std::string entry =
          value.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::error_code ec;
      if (!entry.empty() && !std::filesystem::is_directory(entry, ec)) names_a_file = true;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  if (!names_a_file) {
    paths.default_template_file = rastrace::report::FindDefaultTemplateFile();
    if (paths.default_template_file.empty()) {
      std::fprintf(stderr, "trcrpt: no template file: give one with -t; looked for:\n");
      for (const auto& candidate : rastrace::report::TemplateFileCandidates()) {
        std::fprintf(stderr, "  %s\n", candidate.c_str());
      }
      return nullptr;
    }
  }
  rastrace::schema::DescriptionProblems problems;
  auto loaded = rastrace::schema::LoadDescriptions(paths, problems);
  if (!loaded) {
    std::fprintf(stderr, "trcrpt: %s\n", loaded.error().message.c_str());
    return nullptr;
  }
  errors = problems.errors;
  if (!quiet) {
    for (const auto& message : problems.messages) std::fprintf(stderr, "%s\n", message.c_str());
  }
  return std::move(loaded).value();
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
  size_t errors = 0;
  auto descriptions =
      LoadDescriptions(options, options.quiet && options.check_templates, errors);
  if (!descriptions) return 1;
  if (options.verbose) {
    for (const auto& file : descriptions->template_files) {
      std::fprintf(stderr, "trcrpt: templates %s\n", file.c_str());
    }
    for (const auto& dir : descriptions->format_dirs) {
      std::fprintf(stderr, "trcrpt: format files from %s (%zu)\n", dir.c_str(),
                   descriptions->tracepoints.size());
    }
  }
  const rastrace::tmpl::TemplateSet& templates = descriptions->templates;
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
  int status =
      rastrace::report::RunReport(options, templates, out, stderr, &descriptions->tracepoints);
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
