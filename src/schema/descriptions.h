// Everything that describes events, loaded from the -t paths of trcrpt and `rastrace export`
// (docs/trcrpt.md, "Template files and format files"): trcfmt template files and the declarations
// in them, directories of TFF format files, and the tracefs formats of system calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "schema/declarations.h"
#include "schema/decoder.h"
#include "schema/syscalls.h"
#include "template/template.h"
#include "tsf/format_path.h"

namespace rastrace::schema {

struct DescriptionPaths {
  // The -t values in order; each may be a ':'-separated search path. A regular file is a template
  // file (several are loaded in order; later templates of an id replace earlier ones), a directory
  // holds TRCxxxx.TFF format files (searched in order).
  std::vector<std::string> given;
  // Loaded when `given` names no template file; empty: none.
  std::string default_template_file;
  // Searched for TFF files when `given` names no directory (tracefmt's default: ".").
  std::vector<std::string> default_format_dirs;
  // A tracefs events directory for system call formats; empty: none.
  std::string tracefs_events;
};

struct Descriptions {
  tmpl::TemplateSet templates;
  std::vector<std::string> template_files;  // loaded, in order
  Declarations declarations;
  tsf::FormatPath tracepoints;
  std::vector<std::string> format_dirs;
  std::unique_ptr<SyscallFormats> syscalls;

  DecoderSources sources() {
    return {&templates, &declarations, &tracepoints, syscalls.get()};
  }
};

// Diagnostics of what loaded: template errors and warnings ("file:line:col: error: ..."),
// declaration errors, format files that exist but do not load. `errors` counts those that are
// errors (a report or an export still runs, then exits 1).
struct DescriptionProblems {
  std::vector<std::string> messages;
  size_t errors = 0;
};

// Fails when a given path does not exist, is neither a file nor a directory, cannot be read, or is
// a directory that holds no format file: an unusable -t is an error, not an empty description.
Result<std::unique_ptr<Descriptions>> LoadDescriptions(const DescriptionPaths& paths,
                                                       DescriptionProblems& problems);

}  // namespace rastrace::schema
