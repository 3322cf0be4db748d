#include <algorithm>
#include <array>
#include <cctype>

#include "tsf/tsf.h"

namespace rastrace::tsf {
namespace {

struct RegisterInfo {
  std::string_view name;
  uint8_t size;
  bool segment;
};

// OS/2's 16- and 32-bit registers, and the x86-64 registers as an extension (docs/spec os2.md).
constexpr std::array<RegisterInfo, 44> kRegisters = {{
    {"AX", 2, false},  {"BX", 2, false},     {"CX", 2, false},  {"DX", 2, false},
    {"SP", 2, false},  {"BP", 2, false},     {"SI", 2, false},  {"DI", 2, false},
    {"IP", 2, false},  {"FLAGS", 2, false},  {"CS", 2, true},   {"DS", 2, true},
    {"SS", 2, true},   {"ES", 2, true},      {"FS", 2, true},   {"GS", 2, true},
    {"EAX", 4, false}, {"EBX", 4, false},    {"ECX", 4, false}, {"EDX", 4, false},
    {"ESP", 4, false}, {"EBP", 4, false},    {"ESI", 4, false}, {"EDI", 4, false},
    {"EIP", 4, false}, {"EFLAGS", 4, false}, {"RAX", 8, false}, {"RBX", 8, false},
    {"RCX", 8, false}, {"RDX", 8, false},    {"RSP", 8, false}, {"RBP", 8, false},
    {"RSI", 8, false}, {"RDI", 8, false},    {"R8", 8, false},  {"R9", 8, false},
    {"R10", 8, false}, {"R11", 8, false},    {"R12", 8, false}, {"R13", 8, false},
    {"R14", 8, false}, {"R15", 8, false},    {"RIP", 8, false}, {"RFLAGS", 8, false},
}};

}  // namespace

std::optional<Register> FindRegister(std::string_view name) {
  if (name.size() > 8) return std::nullopt;
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const RegisterInfo& r : kRegisters) {
    if (r.name == upper) return Register{upper, r.size, r.segment, false};
  }
  return std::nullopt;
}

}  // namespace rastrace::tsf
