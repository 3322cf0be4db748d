// From events to schemas and field values: the one place every export and the SQL tables learn
// what an event is called and what its fields hold (docs/exporting.md, "Schemas").
//
//   schema::Decoder decoder({.templates = &set, .declarations = &declarations});
//   const auto decoded = decoder.Decode(event, byte_order, trace_layout);
//   decoded.schema->name, decoded.schema->fields[i].name / .type, decoded.values[i]
//
// Schemas are made the first time an event of their kind is decoded and kept in catalog(); a
// schema's id and fields never change afterwards.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"
#include "schema/declarations.h"
#include "schema/schema.h"
#include "schema/syscalls.h"
#include "template/template.h"
#include "tsf/format_path.h"

namespace rastrace::schema {

// What describes events. Every pointer may be null (that description is then not used); they must
// outlive the decoder.
struct DecoderSources {
  const tmpl::TemplateSet* templates = nullptr;  // trcfmt templates: AIX and own hooks
  const Declarations* declarations = nullptr;    // #@event names
  const tsf::FormatPath* tracepoints = nullptr;  // TFF files: OS/2 tracepoints (00C)
  SyscallFormats* syscalls = nullptr;            // tracefs formats: system call arguments
};

class Decoder {
 public:
  explicit Decoder(DecoderSources sources);
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  struct Decoded {
    const Schema* schema = nullptr;  // never null after Decode
    std::span<const Value> values;   // one per field of the schema; valid until the next Decode
  };

  // The schema of `e` (as recorded: not reformatted; read from a log of `trace_layout` in
  // `order`) and its field values. Never fails: an event nothing describes gets a raw schema
  // (its data words d1..d5, or data_word and buffer), data an event lacks is absent.
  Decoded Decode(const event::Event& e, ByteOrder order, event::Layout trace_layout);
  // Only the schema Decode gives `e` (the same one, made the same way), without its values: what
  // a pass that names every event needs, for less than a decode costs.
  const Schema& Identify(const event::Event& e, ByteOrder order, event::Layout trace_layout);

  const Catalog& catalog() const { return catalog_; }

 private:
  struct HookEntry;
  struct Keyed;
  struct KeyedSyscall;
  const Schema& Intern(Schema schema);
  Decoded DecodeTemplate(const event::Event& e, ByteOrder order);
  Decoded DecodeRaw(const event::Event& e);
  bool DecodePosix(const event::Event& e, ByteOrder order, Decoded& out);
  bool DecodeTracepoint(const event::Event& e, Decoded& out);
  bool DecodeSyscall(const event::Event& e, ByteOrder order, Decoded& out);
  // The system call entry's or exit's description, made on first use; null when the name is no
  // identifier or too many calls are known.
  const KeyedSyscall* FindSyscall(bool entry, std::string_view name);
  HookEntry& Entry(uint16_t hook_id);
  Decoded Run(const event::Event& recorded, ByteOrder order, event::Layout trace_layout);

  DecoderSources sources_;
  Catalog catalog_;
  std::vector<std::unique_ptr<HookEntry>> hooks_;  // by 16-bit hook id, made on first use
  std::unique_ptr<Keyed> keyed_;                   // POSIX names, tracepoints, system calls
  std::vector<Value> values_;
  bool want_values_ = true;  // false while Identify runs: the schema alone
  std::string key_;          // a system call's key, kept to spare an allocation per event
  std::vector<std::string> scratch_;
  std::vector<uint8_t> reformat_scratch_;
  event::Event reformatted_;
};

}  // namespace rastrace::schema
