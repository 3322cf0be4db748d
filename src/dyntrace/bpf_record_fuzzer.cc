// Fuzzes the reader of the BPF program's ring records: any bytes decode or give an error, and a
// decoded record's data and status byte lie inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "dyntrace/bpf_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto hit = rastrace::dyntrace::DecodeBpfRecord(std::span(data, size));
  if (hit) {
    if (hit->data.data() < data || hit->data.data() + hit->data.size() > data + size) abort();
    if (hit->unclassified && hit->fault_status_at >= hit->data.size()) abort();
  }
  return 0;
}
