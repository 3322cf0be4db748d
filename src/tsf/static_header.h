// `trcust --header`: a C/C++ header with one function per TP=@STATIC tracepoint that records the
// tracepoint's data statements into the system trace buffer (src/stda/c_api.h), or, for a MAJOR
// above 0xFF, into a rastrace log as generic hook 00C (include/rastrace/trchk.h).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "tsf/tsf.h"

namespace rastrace::tsf {

// The name of the function generated for a static tracepoint: trace_<module>_<minor as 4 hex
// digits>, <module> being MODNAME's file name without directory and extension, lower case, with
// every character outside [a-z0-9_] made '_' ("tsf" when MODNAME is missing).
std::string StaticFunctionName(const Module& module, const Tracepoint& tp);

// Fails when a static tracepoint uses something only a dynamic tracepoint has (registers as
// addresses, segmented data).
Result<std::string> GenerateStaticHeader(const Module& module);

}  // namespace rastrace::tsf
