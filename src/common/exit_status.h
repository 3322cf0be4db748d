// One exit status convention for every command (docs/reliability.md, "Exit status"): 0 on
// success and after --help, 1 when the work failed (an input, an output, the system), 2 for a
// usage error. tracefmt also exits 2 when it reported corruption (OS/2's TRACEFMT did); a command
// that runs another (rastrace record, trace -x, trace on --) exits with that command's status.
#pragma once

namespace rastrace {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

}  // namespace rastrace
