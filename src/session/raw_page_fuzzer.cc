// Feeds arbitrary bytes to the binary trace readers: as a ring buffer page (decoded, and every
// record turned into a KernelEvent and mapped), and as an event format description. Everything is
// either read or refused; what is mapped must be a readable trace log.
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "event/encode.h"
#include "event/reader.h"
#include "session/kernel_events.h"
#include "session/raw_events.h"

namespace {

struct FieldSpec {
  const char* name;
  uint32_t offset;
  uint32_t size;
};

rastrace::session::RawFormat Format(std::string_view name, uint16_t id,
                                    std::initializer_list<FieldSpec> fields) {
  rastrace::session::RawFormat format;
  format.name = name;
  format.id = id;
  format.fields["common_pid"] = {4, 4, true, false, true};
  for (const FieldSpec& field : fields) {
    const bool loc = (std::string_view(field.name) == "filename" && field.size == 4) ||
                     std::string_view(field.name) == "name";
    format.fields[field.name] = {field.offset, field.size, true, loc, true};
  }
  return format;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)session::ParseEventFormat(text, "fuzz");
  (void)session::ParseHeaderPage(text, "fuzz");

  // The ids and layouts of the kernel the seed pages come from (tests/golden/session/tracefs).
  session::RawEventDecoder decoder(nullptr);
  (void)decoder.AddFormat(Format("sys_enter", 443, {{"id", 8, 8}, {"args", 16, 48}}));
  (void)decoder.AddFormat(Format("sys_exit", 442, {{"id", 8, 8}, {"ret", 16, 8}}));
  (void)decoder.AddFormat(Format("sched_switch", 372,
                                 {{"prev_pid", 24, 4},
                                  {"prev_prio", 28, 4},
                                  {"prev_state", 32, 8},
                                  {"next_pid", 56, 4},
                                  {"next_prio", 60, 4}}));
  (void)decoder.AddFormat(Format("sched_process_exec", 365, {{"filename", 8, 4}, {"pid", 12, 4}}));
  (void)decoder.AddFormat(Format("irq_handler_entry", 225, {{"irq", 8, 4}, {"name", 12, 4}}));
  // A system call of syscalls/ (tests/golden/session/tracefs/sys_enter_openat.format).
  (void)decoder.AddFormat(Format("sys_enter_openat", 782,
                                 {{"__syscall_nr", 8, 4},
                                  {"dfd", 16, 8},
                                  {"filename", 24, 8},
                                  {"flags", 32, 8},
                                  {"mode", 40, 8}}));
  (void)decoder.AddFormat(Format("sys_exit_openat", 781, {{"__syscall_nr", 8, 4}, {"ret", 16, 8}}));
  std::vector<session::RawRecord> records;
  (void)session::DecodePage(std::span(data, size), session::PageLayout{}, records);
  std::bitset<65536> all;
  all.set();
  session::KernelEventMapper mapper(all, nullptr);
  std::vector<uint8_t> bytes;
  event::EncodeMagic(event::Layout::k64, NativeByteOrder(), bytes);
  session::KernelEvent event;
  for (const auto& record : records) {
    if (record.payload.data() < data || record.payload.data() + record.payload.size() > data + size)
      std::abort();
    decoder.Prime(record);
    if (decoder.Decode(record, 0, event)) mapper.Map(event, bytes);
  }
  auto reader = event::LogReader::FromBytes(bytes);
  if (!reader) std::abort();
  event::Event ev;
  event::ReadStatus status;
  while ((status = reader->Next(ev)) == event::ReadStatus::kEvent) {
  }
  if (status == event::ReadStatus::kError) std::abort();
  return 0;
}
