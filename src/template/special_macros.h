// The special macros of seed 002 section VI ($HOOKENV, $D1, $PID, ...) and the action macros
// ($ERROR, $STOP, $BREAK, $SKIP, $DEFAULT). Names are case-insensitive, like every macro name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rastrace::tmpl {

enum class Special : uint8_t {
  kHookEnv,
  kTraceEnv,
  kRelLineNo,
  kD1,
  kD2,
  kD3,
  kD4,
  kD5,
  kL1,
  kL2,
  kL3,
  kL4,
  kL5,
  kHookData,
  kHookLength,
  kWordSize,
  kGeneric,
  kTotalCpus,
  kTracedCpus,
  kReportedCpus,
  kLargeDataTypes,
  kSvc,
  kExecPath,
  kPid,
  kTid,
  kCpuId,
  kPri,
  kLogIdx,
  kLogIdx0,
  kLogFile,
  kTraceId,
  kDataPointer,
  kBasePointer,
  kIpAddr,
  kBuff,
};

enum class Action : uint8_t { kError, kStop, kBreak, kSkip, kDefault };

// How a special macro prints when no %format is given. Seed 002 section II: a macro prints like
// %04X; only the macros the seed gives as text differ.
enum class SpecialStyle : uint8_t {
  kHex,     // like a user macro: %04X ($PID, $RELLINENO, $TRACEID, $IPADDR, ...)
  kText,    // $SVC, $EXECPATH, $LOGFILE
  kLayout,  // $HOOKENV, $TRACEENV: "32" or "64"
};

std::optional<Special> FindSpecial(std::string_view name);
std::optional<Action> FindAction(std::string_view name);
SpecialStyle StyleOf(Special special);
// Only $DATAPOINTER and $BASEPOINTER can be assigned.
inline bool IsAssignable(Special s) {
  return s == Special::kDataPointer || s == Special::kBasePointer;
}

}  // namespace rastrace::tmpl
