// Where trcrpt and trcupdate find the template file when -t is not given (docs/trcrpt.md):
// $RASTRACE_TEMPLATES, then the installed share/rastrace/trcfmt (next to the running binary,
// then the configured install prefix), then the source tree's templates/trcfmt.
#pragma once

#include <string>
#include <vector>

namespace rastrace::report {

// The candidates in search order (for messages).
std::vector<std::string> TemplateFileCandidates();

// The first candidate that exists, or empty when none does.
std::string FindDefaultTemplateFile();

}  // namespace rastrace::report
