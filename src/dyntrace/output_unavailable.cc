// Stand-ins used when a part the output needs is not built (RASTRACE_PARTS without it).
#include "dyntrace/record_output.h"

namespace rastrace::dyntrace {

#ifndef RASTRACE_DYNTRACE_HAVE_STDA
Result<std::unique_ptr<RecordOutput>> OpenStdaOutput(const std::string&, size_t) {
  return MakeError("STDA output needs the stda part, which this build leaves out");
}
#endif

#ifndef RASTRACE_DYNTRACE_HAVE_LOG
Result<std::unique_ptr<RecordOutput>> OpenLogOutput(const std::string&) {
  return MakeError("rastrace log output needs the event part, which this build leaves out");
}
#endif

}  // namespace rastrace::dyntrace
