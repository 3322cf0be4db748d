#include "session/syscall_table.h"

#include <algorithm>
#include <cstring>

#include "session/event_builder.h"

namespace rastrace::session {

namespace {

constexpr size_t kMaxNameBytes = 255;  // an S1 length

struct SyscallEntry {
  uint16_t nr;
  const char* name;
};

// Generated at build time from <asm/unistd_64.h> (src/session/CMakeLists.txt).
constexpr SyscallEntry kSyscalls[] = {
#include "syscall_names.inc"
};

std::vector<SyscallArgument> UnnamedArguments() {
  std::vector<SyscallArgument> arguments;
  for (uint32_t i = 0; i < kSyscallMaxArguments; ++i) {
    arguments.push_back({"arg" + std::to_string(i + 1), 16 + 8 * i, 8});
  }
  return arguments;
}

}  // namespace

std::string_view SyscallName(uint64_t nr, std::string& scratch) {
  // The table is sorted by number (the header defines them in order); search it.
  size_t low = 0, high = std::size(kSyscalls);
  while (low < high) {
    const size_t mid = (low + high) / 2;
    if (kSyscalls[mid].nr < nr) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low < std::size(kSyscalls) && kSyscalls[low].nr == nr) return kSyscalls[low].name;
  scratch = "nr" + std::to_string(nr);
  return scratch;
}

SyscallSignature::SyscallSignature(std::string name, std::vector<SyscallArgument> arguments,
                                   bool described)
    : name_(std::move(name)), arguments_(std::move(arguments)), described_(described) {
  if (arguments_.size() > kSyscallMaxArguments) arguments_.resize(kSyscallMaxArguments);
  for (const SyscallEntry& entry : kSyscalls) {
    if (name_ == entry.name) number_ = entry.nr;
  }
  AppendS2(name_, names_);
  names_.push_back(static_cast<uint8_t>(arguments_.size()));
  for (const SyscallArgument& argument : arguments_) {
    const size_t length = std::min(argument.name.size(), kMaxNameBytes);
    names_.push_back(static_cast<uint8_t>(length));
    names_.insert(names_.end(), argument.name.begin(), argument.name.begin() + length);
  }
}

void SyscallSignature::AppendBuffer(std::span<const uint64_t> values,
                                    std::vector<uint8_t>& out) const {
  const size_t at = out.size();
  out.resize(at + kSyscallMaxArguments * 8 + names_.size());
  uint8_t* slots = out.data() + at;
  const size_t n = std::min(values.size(), arguments_.size());
  std::memcpy(slots, values.data(), n * 8);
  std::memset(slots + n * 8, 0, (kSyscallMaxArguments - n) * 8);
  std::memcpy(slots + kSyscallMaxArguments * 8, names_.data(), names_.size());
}

Result<SyscallSignature> SignatureFromFormat(const RawFormat& format) {
  constexpr std::string_view kPrefix = "sys_enter_";
  if (!format.name.starts_with(kPrefix) || format.name.size() == kPrefix.size()) {
    return MakeError("event {}: not a system call entry (sys_enter_<name>)", format.name);
  }
  const auto nr = format.fields.find("__syscall_nr");
  if (nr == format.fields.end()) return MakeError("event {}: no __syscall_nr field", format.name);
  std::vector<SyscallArgument> arguments;
  // In the order the file declares them (the offsets order them below), with their C types; a
  // format parsed without its declarations (built by hand) has only the fields.
  std::vector<RawFormat::Declared> declared = format.declared;
  if (declared.empty()) {
    for (const auto& [name, field] : format.fields) declared.push_back({name, "", field});
  }
  for (const auto& [name, type, field] : declared) {
    if (name.starts_with("common_") || name == "__syscall_nr") continue;
    // Strings a newer kernel may copy from user memory (__data_loc) are not arguments.
    if (field.data_loc || field.offset <= nr->second.offset) continue;
    if (field.size != 8 && field.size != 4) {
      return MakeError("event {}: argument {} has {} bytes, not a word", format.name, name,
                       field.size);
    }
    arguments.push_back({name, field.offset, field.size, type, field.is_signed});
  }
  std::sort(arguments.begin(), arguments.end(),
            [](const SyscallArgument& a, const SyscallArgument& b) { return a.offset < b.offset; });
  if (arguments.size() > kSyscallMaxArguments) {
    return MakeError("event {}: {} arguments, a system call takes at most {}", format.name,
                     arguments.size(), kSyscallMaxArguments);
  }
  return SyscallSignature(format.name.substr(kPrefix.size()), std::move(arguments));
}

Result<SyscallSignature> ReadSyscallFormat(const std::string& events_dir, std::string_view name) {
  auto format =
      ReadEventFormat(events_dir + "/syscalls/sys_enter_" + std::string(name) + "/format");
  if (!format) return format.error();
  return SignatureFromFormat(*format);
}

const SyscallSignature* SyscallTable::Keep(SyscallSignature signature) {
  storage_.push_back(std::move(signature));
  const SyscallSignature* kept = &storage_.back();
  by_name_[kept->name()] = kept;
  return kept;
}

Result<const SyscallSignature*> SyscallTable::AddFormat(const RawFormat& format) {
  auto signature = SignatureFromFormat(format);
  if (!signature) return signature.error();
  return Add(std::move(*signature));
}

const SyscallSignature* SyscallTable::Add(SyscallSignature signature) {
  if (auto it = by_name_.find(signature.name()); it != by_name_.end()) return it->second;
  return Keep(std::move(signature));
}

const SyscallSignature* SyscallTable::ByName(std::string_view name) {
  if (auto it = by_name_.find(std::string(name)); it != by_name_.end()) return it->second;
  // Names come from the kernel's events: bounded like numbers.
  if (by_name_.size() >= kMaxNumbers) return ByNumber(UINT64_MAX);
  return Keep(SyscallSignature(std::string(name), {}, /*described=*/false));
}

const SyscallSignature* SyscallTable::ByNumber(uint64_t nr) {
  if (by_number_.size() >= kMaxNumbers) nr = UINT64_MAX;
  if (auto it = by_number_.find(nr); it != by_number_.end()) return it->second;
  std::string scratch;
  const std::string name(nr == UINT64_MAX ? std::string_view("unknown") : SyscallName(nr, scratch));
  const SyscallSignature* signature = nullptr;
  if (auto it = by_name_.find(name); it != by_name_.end() && it->second->described()) {
    signature = it->second;
  } else {
    storage_.emplace_back(name, UnnamedArguments(), /*described=*/false);
    signature = &storage_.back();
  }
  by_number_[nr] = signature;
  return signature;
}

}  // namespace rastrace::session
