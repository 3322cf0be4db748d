#include "dyntrace/record_builder.h"

#include <algorithm>
#include <span>

namespace rastrace::dyntrace {
namespace {

// Writes into a buffer of MAXDATALENGTH bytes, never past it.
class RecordWriter {
 public:
  explicit RecordWriter(std::vector<uint8_t>& out, size_t limit) : out_(out) { out_.resize(limit); }
  size_t room() const { return out_.size() - used_; }
  std::span<uint8_t> Reserve(size_t n) {
    std::span<uint8_t> span(out_.data() + used_, n);
    used_ += n;
    return span;
  }
  void Unreserve(size_t n) { used_ -= n; }
  void PutPrefix(size_t at, ReadStatus status, uint16_t length) {
    out_[at] = static_cast<uint8_t>(status);
    out_[at + 1] = static_cast<uint8_t>(length);
    out_[at + 2] = static_cast<uint8_t>(length >> 8);
  }
  size_t used() const { return used_; }
  void Finish() { out_.resize(used_); }

 private:
  std::vector<uint8_t>& out_;
  size_t used_ = 0;
};

void StorePointer(std::span<uint8_t> out, uint64_t pointer) {
  for (size_t i = 0; i < kPointerSize; ++i) out[i] = static_cast<uint8_t>(pointer >> (8 * i));
}

// Stores a faulted data record (status, the pointer). False when it does not fit.
bool StoreFault(RecordWriter& writer, ReadStatus status, uint64_t pointer) {
  if (writer.room() < kPrefixSize + kPointerSize) return false;
  size_t at = writer.used();
  writer.Reserve(kPrefixSize);
  writer.PutPrefix(at, status, kPointerSize);
  StorePointer(writer.Reserve(kPointerSize), pointer);
  return true;
}

}  // namespace

ReadStatus EvaluateAddress(const CompiledAddress& address, const RegisterFile& registers,
                           TargetMemory& memory, uint64_t& result) {
  uint64_t at = address.register_base ? registers.Get(address.base_register) : address.base_address;
  at += static_cast<uint64_t>(address.displacement);
  for (uint8_t level = 0; level < address.levels; ++level) {
    uint8_t pointer[kPointerSize];
    ReadStatus status = memory.Read(at, pointer);
    if (status != ReadStatus::kOk) {
      result = at;
      return status;
    }
    uint64_t next = 0;
    for (size_t i = 0; i < kPointerSize; ++i) next |= uint64_t{pointer[i]} << (8 * i);
    at = next;
    if (level < address.level_offsets.size()) {
      at += static_cast<uint64_t>(address.level_offsets[level]);
    }
  }
  result = at + static_cast<uint64_t>(address.final_displacement);
  return ReadStatus::kOk;
}

BuiltRecord BuildRecord(const CompiledTracepoint& tracepoint, const RegisterFile& registers,
                        TargetMemory& memory, std::vector<uint8_t>& out) {
  RecordWriter writer(out, tracepoint.max_data_length);
  BuiltRecord built;
  // LEN's word, or the failure that reading it met, for the MEM32 right after it.
  uint32_t pending_length = 0;
  ReadStatus pending_status = ReadStatus::kOk;
  uint64_t pending_pointer = 0;

  for (const CompiledData& data : tracepoint.data) {
    if (data.kind == tsf::DataKind::kRegs) {
      for (RegisterSlot slot : data.registers) {
        if (writer.room() < slot.size) {
          built.incomplete = true;
          writer.Finish();
          return built;
        }
        StoreRegister(registers, slot, writer.Reserve(slot.size));
      }
      continue;
    }

    uint64_t address = 0;
    ReadStatus status = EvaluateAddress(data.address, registers, memory, address);

    if (data.kind == tsf::DataKind::kLen) {
      pending_status = status;
      pending_pointer = address;
      pending_length = 0;
      if (status == ReadStatus::kOk) {
        uint8_t word[2];
        pending_status = memory.Read(address, word);
        pending_length = word[0] | (uint32_t{word[1]} << 8);
      }
      continue;
    }

    if (status == ReadStatus::kOk && data.length_from_len && pending_status != ReadStatus::kOk) {
      status = pending_status;
      address = pending_pointer;
    }
    if (status != ReadStatus::kOk) {
      built.faulted = true;
      if (!StoreFault(writer, status, address)) built.incomplete = true;
      writer.Finish();
      return built;
    }

    if (writer.room() < kPrefixSize) {
      built.incomplete = true;
      writer.Finish();
      return built;
    }
    size_t prefix_at = writer.used();
    writer.Reserve(kPrefixSize);
    uint32_t wanted = data.length_from_len ? pending_length : data.length;
    size_t length = std::min<size_t>(wanted, writer.room());
    if (length < wanted) built.incomplete = true;
    std::span<uint8_t> bytes = writer.Reserve(length);

    size_t stored = length;
    if (data.kind == tsf::DataKind::kAsciiz32) {
      status = memory.ReadString(address, bytes, stored);
      // A string cut by MAXDATALENGTH is only incomplete when it did not end in time.
      if (built.incomplete && stored < length) built.incomplete = false;
    } else {
      status = memory.Read(address, bytes);
    }
    if (status != ReadStatus::kOk) {
      writer.Unreserve(kPrefixSize + length);
      built.faulted = true;
      if (!StoreFault(writer, status, address)) built.incomplete = true;
      writer.Finish();
      return built;
    }
    writer.Unreserve(length - stored);
    writer.PutPrefix(prefix_at, ReadStatus::kOk, static_cast<uint16_t>(stored));
    if (built.incomplete) break;
  }
  writer.Finish();
  return built;
}

}  // namespace rastrace::dyntrace
