#include "dyntrace/record_builder.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>

namespace rastrace::dyntrace {
namespace {

using tsf::DataKind;

// Memory made of regions; reads outside them fail with `status_outside`.
class FakeMemory : public TargetMemory {
 public:
  void Put(uint64_t address, std::vector<uint8_t> bytes) { regions_[address] = std::move(bytes); }
  void PutPointer(uint64_t address, uint64_t pointer) {
    std::vector<uint8_t> bytes(8);
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(pointer >> (8 * i));
    Put(address, bytes);
  }
  ReadStatus Read(uint64_t address, std::span<uint8_t> out) override {
    for (const auto& [start, bytes] : regions_) {
      if (address >= start && address + out.size() <= start + bytes.size()) {
        std::memcpy(out.data(), bytes.data() + (address - start), out.size());
        return ReadStatus::kOk;
      }
    }
    return status_outside;
  }
  ReadStatus status_outside = ReadStatus::kInvalidAddress;

 private:
  std::map<uint64_t, std::vector<uint8_t>> regions_;
};

CompiledData Regs(std::vector<RegisterSlot> slots) {
  CompiledData data;
  data.kind = DataKind::kRegs;
  data.registers = std::move(slots);
  return data;
}

CompiledData Mem(uint64_t address, uint32_t length, uint8_t levels = 0) {
  CompiledData data;
  data.kind = DataKind::kMem32;
  data.address.base_address = address;
  data.address.levels = levels;
  data.length = length;
  return data;
}

CompiledData Asciiz(uint64_t address, uint32_t length) {
  CompiledData data = Mem(address, length);
  data.kind = DataKind::kAsciiz32;
  return data;
}

std::vector<uint8_t> Build(const std::vector<CompiledData>& items, TargetMemory& memory,
                           BuiltRecord* built = nullptr, uint16_t max = 512,
                           const RegisterFile& registers = {}) {
  CompiledTracepoint tracepoint;
  tracepoint.data = items;
  tracepoint.max_data_length = max;
  std::vector<uint8_t> out;
  BuiltRecord result = BuildRecord(tracepoint, registers, memory, out);
  if (built != nullptr) *built = result;
  return out;
}

TEST(RecordBuilder, RegistersAreStoredWithoutPrefixAtTheirWidth) {
  RegisterFile registers;
  registers.Set(Reg::kRax, 0x1122334455667788);
  registers.Set(Reg::kRsi, 0xAABBCCDDEEFF0011);
  FakeMemory memory;
  auto eax = *LookupRegister("eax");
  auto si = *LookupRegister("SI");
  auto rax = *LookupRegister("RAX");
  auto out = Build({Regs({eax, si, rax})}, memory, nullptr, 512, registers);
  std::vector<uint8_t> expected = {0x88, 0x77, 0x66, 0x55, 0x11, 0x00, 0x88,
                                   0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  EXPECT_EQ(out, expected);
}

TEST(RecordBuilder, RegisterNamesFollowTheX8664Mapping) {
  EXPECT_EQ(LookupRegister("EIP")->reg, Reg::kRip);
  EXPECT_EQ(LookupRegister("EIP")->size, 4);
  EXPECT_EQ(LookupRegister("EFLAGS")->reg, Reg::kEflags);
  EXPECT_EQ(LookupRegister("di")->size, 2);
  EXPECT_EQ(LookupRegister("R15")->size, 8);
  EXPECT_EQ(LookupRegister("RIP")->reg, Reg::kRip);
  EXPECT_FALSE(LookupRegister("XMM0"));
}

TEST(RecordBuilder, MemoryRecordsCarryTheThreeBytePrefix) {
  FakeMemory memory;
  memory.Put(0x1000, {1, 2, 3, 4, 5, 6});
  auto out = Build({Mem(0x1002, 3)}, memory);
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 3, 0, 3, 4, 5}));
}

TEST(RecordBuilder, StringsStopAtTheirNulWhichIsNotStored) {
  FakeMemory memory;
  std::string text = "CONFIG.SYS";
  std::vector<uint8_t> page(4096, 0x7F);  // readable bytes continue after the NUL
  std::copy(text.begin(), text.end() + 1, page.begin());
  memory.Put(0x2000, page);
  auto out = Build({Asciiz(0x2000, 128)}, memory);
  ASSERT_EQ(out.size(), 3 + text.size());
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1] | out[2] << 8, static_cast<int>(text.size()));
  EXPECT_EQ(std::string(out.begin() + 3, out.end()), text);
  // The declared maximum cuts a longer string.
  auto cut = Build({Asciiz(0x2000, 4)}, memory);
  EXPECT_EQ(std::string(cut.begin() + 3, cut.end()), "CONF");
}

TEST(RecordBuilder, IndirectFollowsPointersAndAddsEachLevelsOffset) {
  FakeMemory memory;
  memory.PutPointer(0x3000, 0x4000);  // the variable holds a pointer
  memory.PutPointer(0x4008, 0x5000);  // *p + 8 holds another
  memory.Put(0x5004, {0xAA, 0xBB});
  CompiledData two_levels = Mem(0x3000, 2, 2);
  two_levels.address.level_offsets = {8, 4};
  EXPECT_EQ(Build({two_levels}, memory), (std::vector<uint8_t>{0, 2, 0, 0xAA, 0xBB}));
  // {+|-}(n) is added after the last pointer was followed.
  CompiledData final_offset = Mem(0x3000, 1, 1);
  final_offset.address.final_displacement = 0x10;
  memory.Put(0x4010, {0x42});
  EXPECT_EQ(Build({final_offset}, memory), (std::vector<uint8_t>{0, 1, 0, 0x42}));
}

TEST(RecordBuilder, RegisterBasedAddressesUseTheWholeRegister) {
  FakeMemory memory;
  memory.Put(0x7FFF00001010, {9, 8, 7, 6});
  RegisterFile registers;
  registers.Set(Reg::kRsp, 0x7FFF00001000);
  CompiledData data = Mem(0, 4);
  data.address.register_base = true;
  data.address.base_register = Reg::kRsp;
  data.address.displacement = 0x10;
  EXPECT_EQ(Build({data}, memory, nullptr, 512, registers),
            (std::vector<uint8_t>{0, 4, 0, 9, 8, 7, 6}));
}

TEST(RecordBuilder, LenSuppliesTheLengthOfTheNextRecord) {
  FakeMemory memory;
  memory.Put(0x6000, {0xAB, 0xCD, 5, 0, 1, 2, 3, 4});
  CompiledData len;
  len.kind = DataKind::kLen;
  len.address.base_address = 0x6000;
  len.address.displacement = 2;
  CompiledData variable = Mem(0x6000, 0);
  variable.length_from_len = true;
  EXPECT_EQ(Build({len, variable}, memory), (std::vector<uint8_t>{0, 5, 0, 0xAB, 0xCD, 5, 0, 1}));
}

TEST(RecordBuilder, BadPointerStoresStatusAndPointerThenStops) {
  FakeMemory memory;
  memory.PutPointer(0x3000, 0x10);  // a pointer variable holding a bad pointer
  memory.Put(0x1000, {7});
  RegisterFile registers;
  registers.Set(Reg::kRax, 0x99);
  BuiltRecord built;
  auto out =
      Build({Mem(0x1000, 1), Mem(0x3000, 4, 1), Mem(0x1000, 1), Regs({*LookupRegister("AX")})},
            memory, &built, 512, registers);
  std::vector<uint8_t> expected = {0, 1, 0, 7, 2, 8, 0, 0x10, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(out, expected);
  EXPECT_TRUE(built.faulted);
  EXPECT_FALSE(built.incomplete);
}

TEST(RecordBuilder, NotPresentPagesGiveStatusOne) {
  FakeMemory memory;
  memory.status_outside = ReadStatus::kNotPresent;
  auto out = Build({Mem(0xDEAD0000, 4)}, memory);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 8, 0, 0, 0, 0xAD, 0xDE, 0, 0, 0, 0}));
}

TEST(RecordBuilder, MaxDataLengthCutsTheRecordAndMarksItIncomplete) {
  FakeMemory memory;
  memory.Put(0x1000, std::vector<uint8_t>(64, 0x5A));
  BuiltRecord built;
  auto out = Build({Mem(0x1000, 16), Mem(0x1000, 16)}, memory, &built, 25);
  ASSERT_EQ(out.size(), 25u);
  EXPECT_EQ(out[19], 0);                 // second prefix: status 0...
  EXPECT_EQ(out[20] | out[21] << 8, 3);  // ...and the 3 bytes that fit
  EXPECT_TRUE(built.incomplete);
  auto fits = Build({Mem(0x1000, 16)}, memory, &built, 20);
  EXPECT_EQ(fits.size(), 19u);
  EXPECT_FALSE(built.incomplete);
}

TEST(RecordBuilder, SteadyStateDoesNotReallocate) {
  FakeMemory memory;
  memory.Put(0x1000, std::vector<uint8_t>(64, 1));
  CompiledTracepoint tracepoint;
  tracepoint.data = {Mem(0x1000, 32)};
  std::vector<uint8_t> out;
  (void)BuildRecord(tracepoint, {}, memory, out);
  const uint8_t* storage = out.data();
  for (int i = 0; i < 100; ++i) (void)BuildRecord(tracepoint, {}, memory, out);
  EXPECT_EQ(out.data(), storage);
}

TEST(ProcessMemory, ReadsLiveMemoryAndClassifiesFailures) {
  ProcessMemory memory(getpid());
  const char text[] = "live bytes";
  uint8_t buffer[sizeof text];
  EXPECT_EQ(memory.Read(reinterpret_cast<uint64_t>(text), buffer), ReadStatus::kOk);
  EXPECT_EQ(std::memcmp(buffer, text, sizeof text), 0);
  EXPECT_EQ(memory.Read(0x10, buffer), ReadStatus::kInvalidAddress);
  // A mapping without read permission is not readable data either.
  long page = sysconf(_SC_PAGESIZE);
  void* guard = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(guard, MAP_FAILED);
  EXPECT_EQ(memory.Read(reinterpret_cast<uint64_t>(guard), buffer), ReadStatus::kInvalidAddress);
  munmap(guard, page);
}

TEST(ProcessMemory, APageBeyondTheEndOfAMappedFileIsNotPresent) {
  long page = sysconf(_SC_PAGESIZE);
  char path[] = "/tmp/dyntrace-short-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(ftruncate(fd, page), 0);
  // Two pages of a one-page file: the second is mapped and readable, but has no page behind it.
  void* map = mmap(nullptr, 2 * page, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(map, MAP_FAILED);
  ProcessMemory memory(getpid());
  uint8_t byte = 0;
  EXPECT_EQ(memory.Read(reinterpret_cast<uint64_t>(map), {&byte, 1}), ReadStatus::kOk);
  EXPECT_EQ(memory.Read(reinterpret_cast<uint64_t>(map) + page, {&byte, 1}),
            ReadStatus::kNotPresent);
  munmap(map, 2 * page);
}

TEST(ProcessMemory, StringsEndingJustBeforeAnUnmappedPageAreRead) {
  long page = sysconf(_SC_PAGESIZE);
  auto* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  munmap(pages + page, page);
  std::memcpy(pages + page - 4, "abc", 4);
  ProcessMemory memory(getpid());
  uint8_t buffer[64];
  size_t length = 0;
  EXPECT_EQ(memory.ReadString(reinterpret_cast<uint64_t>(pages + page - 4), buffer, length),
            ReadStatus::kOk);
  EXPECT_EQ(length, 3u);
  munmap(pages, page);
}

}  // namespace
}  // namespace rastrace::dyntrace
