// The two jobs of trcust: compiling a TSF, and combining format files. Each returns the exit
// status and reports on stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rastrace::trcust {

// Writes OUTDIR/TRCxxxx.TFF and OUTDIR/TRCxxxx.TDF when `output_dir` is set, and the static
// header when `header` is set. 0: written (warnings allowed); 1: errors.
int Compile(const std::string& tsf, const std::string& output_dir, const std::string& header);

// `inputs` are .TFF files or list files naming one per line. 0: written; 1: errors.
int Combine(const std::vector<std::string>& inputs, const std::string& destination);

// Writes `text` to `path` (replacing it, never through a symlink); false after a message.
bool WriteText(const std::filesystem::path& path, const std::string& text);

}  // namespace rastrace::trcust
