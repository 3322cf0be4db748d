// trcupdate: adds, replaces and deletes templates of a template file from an update file, or
// extracts templates (docs/trcrpt.md, "trcupdate").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "common/exit_status.h"
#include "common/input_file.h"
#include "common/output_file.h"
#include "report/id_list.h"
#include "report/template_path.h"
#include "report/update_file.h"
#include "template/template.h"

namespace {

constexpr std::string_view kUsage =
    "usage: trcupdate [-o] [-t TemplateFile] [-v] [-x IDList] [UpdateFile]\n"
    "  -o         replace templates whatever their versions\n"
    "  -t File    the template file to update (default: as trcrpt finds it)\n"
    "  -v         print every change\n"
    "  -x IDList  write the templates of these ids as an update file (to UpdateFile or stdout)\n";

struct Args {
  bool override_versions = false;
  bool verbose = false;
  std::string template_file;
  std::string extract_ids;
  bool extract = false;
  std::string update_file;
};

// Template and update files are read whole, up to common/input_file.h's limit.
rastrace::Result<std::string> ReadFile(const std::string& path, std::string_view what) {
  return rastrace::ReadInputFile(path, rastrace::kMaxTextInputBytes, what);
}

// Writes `text` to `path` whole, never through a symlink; false after a message.
bool WriteWholeFile(const std::string& path, const std::string& text) {
  auto written = rastrace::WriteWholeFile(path, text);
  if (!written) std::fprintf(stderr, "trcupdate: %s\n", written.error().message.c_str());
  return written.ok();
}

// Replaces `path` with `text` through a temporary file and rename, keeping the file's mode.
bool WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string temporary = path + ".trcupdate.tmp";
  if (!WriteWholeFile(temporary, text)) {
    ::unlink(temporary.c_str());
    return false;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) ::chmod(temporary.c_str(), st.st_mode & 07777);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "trcupdate: %s: %s\n", path.c_str(), std::strerror(errno));
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

bool ParseArgs(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-?") {
      std::fputs(kUsage.data(), stdout);
      std::exit(0);
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!args.update_file.empty()) {
        std::fprintf(stderr, "trcupdate: one update file only ('%s' and '%s')\n%s",
                     args.update_file.c_str(), argv[i], kUsage.data());
        return false;
      }
      args.update_file = arg;
      continue;
    }
    for (size_t at = 1; at < arg.size(); ++at) {
      char flag = arg[at];
      if (flag == 'o') {
        args.override_versions = true;
      } else if (flag == 'v') {
        args.verbose = true;
      } else if (flag == 't' || flag == 'x') {
        std::string value;
        if (at + 1 < arg.size()) {
          value = arg.substr(at + 1);
        } else if (i + 1 < argc) {
          value = argv[++i];
        } else {
          std::fprintf(stderr, "trcupdate: -%c: missing value\n%s", flag, kUsage.data());
          return false;
        }
        (flag == 't' ? args.template_file : args.extract_ids) = value;
        if (flag == 'x') args.extract = true;
        break;
      } else {
        std::fprintf(stderr, "trcupdate: unknown flag -%c\n%s", flag, kUsage.data());
        return false;
      }
    }
  }
  return true;
}

int Extract(const Args& args, const std::string& template_text) {
  rastrace::report::IdSet ids;
  auto parsed = rastrace::report::ParseIdList(args.extract_ids, ids);
  if (!parsed) {
    std::fprintf(stderr, "trcupdate: -x: %s\n", parsed.error().message.c_str());
    return 1;
  }
  std::string text = rastrace::report::ExtractTemplates(template_text, ids);
  if (args.update_file.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (auto finished = rastrace::FinishOutput(stdout); !finished) {
      std::fprintf(stderr, "trcupdate: %s\n", finished.error().message.c_str());
      return 1;
    }
    return 0;
  }
  return WriteWholeFile(args.update_file, text) ? 0 : 1;
}

int Run(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, args)) return rastrace::kExitUsage;
  std::string template_path =
      args.template_file.empty() ? rastrace::report::FindDefaultTemplateFile() : args.template_file;
  if (template_path.empty()) {
    std::fprintf(stderr, "trcupdate: no template file: give one with -t\n");
    return 1;
  }
  auto template_read = ReadFile(template_path, "template files");
  if (!template_read) {
    std::fprintf(stderr, "trcupdate: %s\n", template_read.error().message.c_str());
    return 1;
  }
  const std::string& template_text = *template_read;
  if (args.extract) return Extract(args, template_text);

  if (args.update_file.empty()) {
    std::fprintf(stderr, "trcupdate: no update file\n%s", kUsage.data());
    return rastrace::kExitUsage;
  }
  // As on AIX, "name" also finds "name.trc".
  std::string update_path = args.update_file;
  auto update_read = ReadFile(update_path, "update files");
  if (!update_read && access(update_path.c_str(), F_OK) != 0 &&
      access((update_path + ".trc").c_str(), F_OK) == 0) {
    update_path += ".trc";
    update_read = ReadFile(update_path, "update files");
  }
  if (!update_read) {
    std::fprintf(stderr, "trcupdate: %s\n", update_read.error().message.c_str());
    return 1;
  }
  const std::string& update_text = *update_read;
  auto ops = rastrace::report::ParseUpdateFile(update_text, update_path);
  if (!ops) {
    std::fprintf(stderr, "trcupdate: %s\n", ops.error().message.c_str());
    return 1;
  }
  // A template with a syntax error leaves the template file untouched.
  size_t errors = 0;
  for (const auto& op : *ops) {
    if (op.kind != rastrace::report::UpdateOp::Kind::kAdd) continue;
    rastrace::tmpl::TemplateSet check;
    std::vector<rastrace::tmpl::Diagnostic> diagnostics;
    check.AddText(op.text, update_path, diagnostics, op.line);
    for (const auto& diagnostic : diagnostics) {
      if (!diagnostic.warning) ++errors;
      std::fprintf(stderr, "%s\n", diagnostic.ToString().c_str());
    }
  }
  if (errors != 0) {
    std::fprintf(stderr, "trcupdate: %s not changed: %zu error(s) in %s\n", template_path.c_str(),
                 errors, update_path.c_str());
    return 1;
  }
  auto outcome =
      rastrace::report::ApplyUpdates(template_text, *ops, args.override_versions, update_path);
  for (const auto& message : outcome.messages) {
    if (args.verbose || message.problem) {
      std::fprintf(stderr, "trcupdate: %s\n", message.text.c_str());
    }
  }
  if (outcome.text != template_text && !WriteFileAtomically(template_path, outcome.text)) {
    return 1;
  }
  return outcome.refused ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trcupdate: %s\n", e.what());
    return 1;
  }
}
