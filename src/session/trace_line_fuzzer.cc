// Feeds arbitrary text to the tracefs line parser and the kernel event mapper: every line either
// parses or is refused, and whatever is mapped must be readable as a trace log.
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "event/encode.h"
#include "event/reader.h"
#include "session/kernel_events.h"
#include "session/syscall_table.h"
#include "session/trace_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto parsed = session::ParseTraceLine(line);
  if (!parsed) return 0;
  std::bitset<65536> all;
  all.set();
  session::KernelEventMapper mapper(all, nullptr);
  session::SyscallTable syscalls;
  session::KernelEvent event;
  if (!session::ToKernelEvent(*parsed, syscalls, event)) return 0;
  std::vector<uint8_t> bytes;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
  mapper.Map(event, bytes);
  auto reader = event::LogReader::FromBytes(bytes);
  if (!reader) std::abort();
  event::Event ev;
  event::ReadStatus status;
  while ((status = reader->Next(ev)) == event::ReadStatus::kEvent) {
  }
  if (status == event::ReadStatus::kError) std::abort();
  return 0;
}
