// One description per kind of event: its name and its named, typed fields (docs/exporting.md,
// "Schemas"). Every export (CTF, Chrome JSON, JSON Lines, CSV) and the SQL tables read events
// through these; none invents its own names or types.
//
// A schema is derived from what describes the event: the trcfmt template of its hook id (labels
// and format codes), the TFF format file of an OS/2 tracepoint (DESC and FMT strings), the type
// name a POSIX event carries, the tracefs format of a system call. Schemas are made as events of
// a new kind appear (src/schema/decoder.h), so the catalog grows while a log is read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rastrace::schema {

enum class FieldType : uint8_t {
  kSigned,    // two's-complement integer (D and E codes, signed tracefs fields)
  kUnsigned,  // unsigned integer (U, o, P, T, B codes; unsigned tracefs fields)
  kHex,       // unsigned integer that reads best in hex (X codes, FMT %W %D %F %Q %A, pointers)
  kFloat,     // IEEE double (F4 and F8 codes; F4 values are widened)
  kString,    // text (A and S codes, FMT %S, POSIX type names); not always valid UTF-8
  kBytes,     // raw bytes (LOOP ... {X1}, FMT %U, a generic buffer)
};

// "int", "uint", "hex", "float", "string", "bytes".
std::string_view FieldTypeName(FieldType type);

struct Field {
  std::string name;  // an identifier: [a-z_][a-z0-9_]*, unique within its schema
  FieldType type = FieldType::kUnsigned;
  // Bytes of an integer as the event stores it (1, 2, 4 or 8; a bit field is rounded up), 8 for
  // a float; 0 for strings and bytes.
  uint8_t size = 8;
};

// Which description a schema came from.
enum class Family : uint8_t {
  kTemplate,    // a trcfmt template (AIX hooks, rastrace's own events, kernel hooks)
  kSyscall,     // a system call entry or exit of a system-wide session (tracefs formats)
  kPosix,       // a POSIX trace event, by its type name
  kTracepoint,  // an OS/2 tracepoint (00C), by its TFF format file
  kRaw,         // nothing describes it: its data words, or data word and buffer
};

// "template", "syscall", "posix", "tracepoint", "raw".
std::string_view FamilyName(Family family);

struct Schema {
  uint32_t id = 0;    // index in its Catalog: dense, in order of appearance
  std::string name;   // an identifier, unique in the catalog ("trace_on", "syscall_entry_read")
  std::string title;  // as the description wrote it ("TRACE ON", "(OS) DosOpen Pre-Invocation")
  Family family = Family::kRaw;
  std::string described_by;  // where: "templates/trcfmt:57", "TRC0064.TFF", "tracefs sys_enter_read"
  std::vector<Field> fields;
};

// The value of one field of one event. Absent when the event does not hold it (an event shorter
// than its template, data that ran out, a string after a bad pointer): JSON null, SQL NULL.
struct Value {
  bool present = false;
  uint64_t integer = 0;   // kSigned (two's complement), kUnsigned, kHex
  double real = 0;        // kFloat
  std::string_view text;  // kString, kBytes: valid until the decoder's next call

  int64_t as_signed() const { return static_cast<int64_t>(integer); }
};

// The schemas seen so far. Stable: a schema, once added, keeps its id and address.
class Catalog {
 public:
  size_t size() const { return schemas_.size(); }
  const Schema& at(uint32_t id) const { return *schemas_[id]; }
  // nullptr when no schema has this name.
  const Schema* Find(std::string_view name) const;

  // Adds `schema` under its name, or under the name with `_2`, `_3`... when another schema has it
  // already; sets its id. Returns the stored schema.
  const Schema& Add(Schema schema);

 private:
  std::vector<std::unique_ptr<Schema>> schemas_;
  std::unordered_map<std::string, uint32_t> by_name_;
};

}  // namespace rastrace::schema
