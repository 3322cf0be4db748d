#include "template/special_macros.h"

#include <strings.h>

#include <array>
#include <utility>

namespace rastrace::tmpl {
namespace {

bool EqualNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

constexpr std::array<std::pair<std::string_view, Special>, 37> kSpecials = {{
    {"HOOKENV", Special::kHookEnv},
    {"TRACEENV", Special::kTraceEnv},
    {"RELLINENO", Special::kRelLineNo},
    {"D1", Special::kD1},
    {"D2", Special::kD2},
    {"D3", Special::kD3},
    {"D4", Special::kD4},
    {"D5", Special::kD5},
    {"L1", Special::kL1},
    {"L2", Special::kL2},
    {"L3", Special::kL3},
    {"L4", Special::kL4},
    {"L5", Special::kL5},
    {"HD", Special::kHookData},
    {"HL", Special::kHookLength},
    {"WORDSIZE", Special::kWordSize},
    {"GENERIC", Special::kGeneric},
    {"TOTALCPUS", Special::kTotalCpus},
    {"TRACEDCPUS", Special::kTracedCpus},
    {"REPORTEDCPUS", Special::kReportedCpus},
    {"LARGEDATATYPES", Special::kLargeDataTypes},
    {"SVC", Special::kSvc},
    {"EXECPATH", Special::kExecPath},
    {"PID", Special::kPid},
    {"TID", Special::kTid},
    {"CPUID", Special::kCpuId},
    {"PRI", Special::kPri},
    {"LOGIDX", Special::kLogIdx},
    {"LOGIDX0", Special::kLogIdx0},
    {"LOGFILE", Special::kLogFile},
    {"TRACEID", Special::kTraceId},
    {"DATAPOINTER", Special::kDataPointer},
    {"BASEPOINTER", Special::kBasePointer},
    {"IPADDR", Special::kIpAddr},
    {"BUFF", Special::kBuff},
    // The seed writes both DATA_POINTER and $DATAPOINTER; accept the spelled-out forms too.
    {"DATA_POINTER", Special::kDataPointer},
    {"BASE_POINTER", Special::kBasePointer},
}};

constexpr std::array<std::pair<std::string_view, Action>, 5> kActions = {{
    {"ERROR", Action::kError},
    {"STOP", Action::kStop},
    {"BREAK", Action::kBreak},
    {"SKIP", Action::kSkip},
    {"DEFAULT", Action::kDefault},
}};

}  // namespace

std::optional<Special> FindSpecial(std::string_view name) {
  for (const auto& [text, special] : kSpecials) {
    if (EqualNoCase(text, name)) return special;
  }
  return std::nullopt;
}

std::optional<Action> FindAction(std::string_view name) {
  for (const auto& [text, action] : kActions) {
    if (EqualNoCase(text, name)) return action;
  }
  return std::nullopt;
}

SpecialStyle StyleOf(Special special) {
  switch (special) {
    case Special::kHookEnv:
    case Special::kTraceEnv:
      return SpecialStyle::kLayout;
    case Special::kSvc:
    case Special::kExecPath:
    case Special::kLogFile:
      return SpecialStyle::kText;
    default:
      return SpecialStyle::kHex;
  }
}

}  // namespace rastrace::tmpl
