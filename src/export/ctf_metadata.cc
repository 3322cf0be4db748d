// The TSDL text: one stream class for every source (streams differ by stream_instance_id), the
// clock in nanoseconds from its offset, and an event class per schema with its named fields.
#include <fmt/format.h>

#include <iterator>

#include "export/ctf_exporter.h"
#include "export/text_escape.h"

namespace rastrace::exporter {

namespace {

std::string UuidText(const std::array<uint8_t, 16>& u) {
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:"
      "02x}"
      "{:02x}",
      u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
      u[15]);
}

// A TSDL string literal: only '"' and '\' need escaping; control bytes are replaced so the
// metadata stays one readable text.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<uint8_t>(c) < 0x20 || static_cast<uint8_t>(c) >= 0x7F) {
      out.push_back('?');
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

constexpr std::string_view kPreamble = R"(/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 16; align = 8; signed = false; base = 16; } := hex16_t;
typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;
typealias integer { size = 8; align = 8; signed = false; base = 16; } := hex8_t;
typealias integer { size = 32; align = 8; signed = false; base = 16; } := hex32_t;
typealias integer { size = 8; align = 8; signed = true; } := int8_t;
typealias integer { size = 16; align = 8; signed = true; } := int16_t;
typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double_t;

)";

constexpr std::string_view kClockHead = R"(
clock {
	name = rastrace;
	description = "rastrace log time: each log's 00A/25C conversion, placed in real time by its wall clock (00A/10B, the 003 header) when it has one";
	freq = 1000000000;
	precision = 1;
)";

constexpr std::string_view kStream = R"(
typealias integer { size = 64; align = 8; signed = false; map = clock.rastrace.value; } := clock_ns_t;

stream {
	id = 0;
	packet.context := struct {
		clock_ns_t timestamp_begin;
		clock_ns_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t packet_seq_num;
	};
	event.header := struct {
		uint32_t id;
		clock_ns_t timestamp;
	};
	event.context := struct {
		uint64_t tid;
		int64_t pid;
		int32_t cpu;
		hex16_t hook;
		hex16_t subhook;
	};
};
)";

// The TSDL type of a field.
std::string FieldType(const schema::Field& f) {
  switch (f.type) {
    case schema::FieldType::kSigned:
      return fmt::format("int{}_t", CtfIntegerBytes(f) * 8);
    case schema::FieldType::kUnsigned:
      return fmt::format("uint{}_t", CtfIntegerBytes(f) * 8);
    case schema::FieldType::kHex:
      return fmt::format("hex{}_t", CtfIntegerBytes(f) * 8);
    case schema::FieldType::kFloat:
      return "double_t";
    case schema::FieldType::kString:
      return "string";
    case schema::FieldType::kBytes:
      return "";  // a length and a sequence: written out below
  }
  return "";
}

}  // namespace

std::string CtfMetadata(const std::array<uint8_t, 16>& uuid,
                        const std::vector<const schema::Schema*>& classes,
                        const std::vector<std::string>& source_names,
                        const std::vector<std::string>& hosts, CtfExporter::Clock clock) {
  std::string out(kPreamble);
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "trace {{\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"{}\";\n\tbyte_order = {};\n"
                 "\tpacket.header := struct {{\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
                 "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t}};\n}};\n\n",
                 UuidText(uuid), std::endian::native == std::endian::little ? "le" : "be");
  fmt::format_to(it, "env {{\n\tdomain = \"rastrace\";\n\ttracer_name = \"rastrace\";\n");
  fmt::format_to(it, "\tsource_count = {};\n", source_names.size());
  std::string only_host;
  bool one_host = true;
  for (size_t i = 0; i < source_names.size(); ++i) {
    fmt::format_to(it, "\tsource_{} = {};\n", i, Quoted(source_names[i]));
    const std::string& host = i < hosts.size() ? hosts[i] : std::string();
    if (host.empty()) continue;
    fmt::format_to(it, "\tsource_{}_hostname = {};\n", i, Quoted(host));
    if (!only_host.empty() && only_host != host) one_host = false;
    only_host = host;
  }
  // babeltrace2 shows `hostname` with every event: only when all sources agree on it.
  if (one_host && !only_host.empty()) fmt::format_to(it, "\thostname = {};\n", Quoted(only_host));
  out.append("};\n");
  out.append(kClockHead);
  fmt::format_to(it, "\toffset_s = {};\n\toffset = 0;\n\tabsolute = {};\n}};\n", clock.offset_s,
                 clock.absolute ? "TRUE" : "FALSE");
  out.append(kStream);
  for (size_t id = 0; id < classes.size(); ++id) {
    const schema::Schema& s = *classes[id];
    // Names are identifiers (src/schema); a leading '_' keeps a field named like a TSDL keyword
    // (`string`, `event`) legal, and readers drop it (CTF 1.8, section 7.3.2).
    fmt::format_to(it, "\nevent {{\n\tname = {};\n\tid = {};\n\tstream_id = 0;\n",
                   Quoted(s.name), id);
    out.append("\tfields := struct {\n");
    for (const schema::Field& f : s.fields) {
      if (f.type == schema::FieldType::kBytes) {
        fmt::format_to(it, "\t\tuint16_t _{}_length;\n\t\thex8_t _{}[_{}_length];\n", f.name,
                       f.name, f.name);
      } else {
        fmt::format_to(it, "\t\t{} _{};\n", FieldType(f), f.name);
      }
    }
    out.append("\t};\n};\n");
  }
  return out;
}

}  // namespace rastrace::exporter
