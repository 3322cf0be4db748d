// Fuzzes the x86-64 length decoder, the return finder, the decoder and the emulator: any bytes
// decode to nothing or to an instruction no longer than the input (and 15 bytes), emulating it on a
// small fake memory never crashes, and an emulation refused for a fault changes nothing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dyntrace/x86_emulator.h"
#include "dyntrace/x86_length.h"

namespace {

class SmallMemory : public rastrace::dyntrace::EmulatedMemory {
 public:
  bool Read(uint64_t address, std::span<uint8_t> out) override {
    if (address < kBase || address - kBase > bytes_.size() - out.size()) return false;
    std::memcpy(out.data(), bytes_.data() + (address - kBase), out.size());
    return true;
  }
  bool Write(uint64_t address, std::span<const uint8_t> in) override {
    if (address < kBase || address - kBase > bytes_.size() - in.size()) return false;
    std::memcpy(bytes_.data() + (address - kBase), in.data(), in.size());
    return true;
  }
  bool Same(const SmallMemory& other) const { return bytes_ == other.bytes_; }

 private:
  static constexpr uint64_t kBase = 0x1000;
  std::array<uint8_t, 64> bytes_{};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto length = rastrace::dyntrace::X86InstructionLength({data, size});
  if (length && (*length == 0 || *length > size || *length > 15)) std::abort();
  if (auto returns = rastrace::dyntrace::FindReturns({data, size})) {
    for (size_t at : *returns) {
      if (at >= size) std::abort();
    }
  }
  auto decoded = rastrace::dyntrace::DecodeX86({data, size});
  if (!decoded) return 0;
  if (decoded->length == 0 || decoded->length > size || decoded->length > 15) std::abort();
  rastrace::dyntrace::X86State state;
  for (size_t i = 0; i < state.gpr.size(); ++i) state.gpr[i] = 0x1000 + 8 * i;
  state.rip = 0x400000;
  state.rflags = 0x202 | (size > 0 ? data[0] & 0xD5 : 0);
  state.fs_base = 0x1000;
  SmallMemory memory;
  const rastrace::dyntrace::X86State before = state;
  const SmallMemory memory_before = memory;
  if (!rastrace::dyntrace::EmulateX86(*decoded, state, memory)) {
    // A refused emulation (a fault) must leave registers and memory as they were.
    if (state.gpr != before.gpr || state.rip != before.rip || state.rflags != before.rflags ||
        !memory.Same(memory_before)) {
      std::abort();
    }
  }
  return 0;
}
