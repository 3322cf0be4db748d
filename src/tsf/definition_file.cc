// The trace definition file is normalized TSF text under a versioned first line: every value
// explicit (MINOR, hex numbers, upper-case keywords), so it is both readable and re-parsed by the
// same parser the compiler uses.
#include "tsf/definition_file.h"

#include <fmt/format.h>

#include "common/input_file.h"

namespace rastrace::tsf {
namespace {

std::string TsfString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Signed(int64_t v) {
  return v < 0 ? fmt::format("-{:#x}", static_cast<uint64_t>(-v)) : fmt::format("+{:#x}", v);
}

std::string AddressText(const Address& a) {
  std::string out;
  int64_t displacement = a.displacement;
  switch (a.base) {
    case Address::Base::kSymbol:
      out = "." + a.symbol;
      break;
    case Address::Base::kRegister:
      out = a.reg ? a.reg->name : "?";
      break;
    case Address::Base::kSegmentRegister:
      // SEG:REG+REG..., or SEG:0 when the offset starts with a number or a subtracted register.
      out = a.segment + ":";
      if (a.offset_registers.empty() || a.offset_registers.front().subtract) out += "0";
      for (size_t i = 0; i < a.offset_registers.size(); ++i) {
        const RegisterTerm& t = a.offset_registers[i];
        if (i > 0 || t.subtract) out += t.subtract ? "-" : "+";
        out += t.reg.name;
      }
      break;
  }
  if (displacement != 0) out += Signed(displacement);
  if (a.final_displacement) {
    const int64_t f = *a.final_displacement;
    out += fmt::format("{}({:#x})", f < 0 ? '-' : '+', static_cast<uint64_t>(f < 0 ? -f : f));
  }
  return out;
}

std::string IndirectionText(const DataStatement& d) {
  switch (d.indirection) {
    case Indirection::kDirect:
      return "DIRECT";
    case Indirection::kIndirectFlat:
      return "IF";
    case Indirection::kIndirectSegmented:
      return "IS";
    case Indirection::kIndirect:
      break;
  }
  std::string out = "INDIRECT";
  for (int64_t offset : d.indirect_offsets) out += "*" + Signed(offset);
  return out;
}

std::string DataText(const DataStatement& d) {
  if (d.kind == DataKind::kRegs) {
    std::string regs;
    for (const Register& r : d.registers) {
      if (!regs.empty()) regs += ",";
      regs += (r.variable ? "." : "") + r.name;
    }
    return "REGS=(" + regs + ")";
  }
  const char* key = d.kind == DataKind::kMem32      ? "MEM32"
                    : d.kind == DataKind::kMem      ? "MEM"
                    : d.kind == DataKind::kAsciiz32 ? "ASCIIZ32"
                    : d.kind == DataKind::kAsciiz   ? "ASCIIZ"
                                                    : "LEN";
  std::string out = fmt::format("{}=({},{}", key, AddressText(d.address), IndirectionText(d));
  if (d.kind != DataKind::kLen) {
    out += d.length_from_len ? ",LEN" : fmt::format(",{}", d.length);
  }
  return out + ")";
}

}  // namespace

std::string DefinitionFileName(uint16_t major) {
  return fmt::format("TRC{:04X}.TDF", major);
}

std::string WriteDefinitionText(const Module& m) {
  std::string out = fmt::format("; {} {}\n", kDefinitionFileMagic, kDefinitionFileVersion);
  std::string source = m.file;  // a comment line: no line breaks
  for (char& c : source) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  out += fmt::format("; trace definition file written by trcust from {}\n", source);
  if (!m.modname.empty()) out += fmt::format("MODNAME = {}\n", TsfString(m.modname));
  out += fmt::format("MAJOR = {:#06x}\nMAXDATALENGTH = {}\n", m.major, m.max_data_length);
  auto list = [&](const char* key, const std::vector<NamedId>& ids) {
    if (ids.empty()) return;
    out += key;
    for (size_t i = 0; i < ids.size(); ++i) {
      out += fmt::format("{} NAME={},ID={:#x}", i ? "," : "", ids[i].name, ids[i].id);
    }
    out += "\n";
  };
  list("TYPELIST", m.types);
  list("GROUPLIST", m.groups);
  for (const Tracepoint& tp : m.tracepoints) {
    std::vector<std::string> items;
    items.push_back(fmt::format("MINOR={:#06x}", tp.minor));
    switch (tp.site.kind) {
      case TracepointSite::Kind::kStatic:
        items.push_back("TP=@STATIC");
        break;
      case TracepointSite::Kind::kFileLine:
        items.push_back(fmt::format("TP=@{},{}", tp.site.file, tp.site.line));
        break;
      case TracepointSite::Kind::kSymbol:
        items.push_back(fmt::format("TP=.{}{}{}", tp.site.symbol,
                                    tp.site.offset ? Signed(tp.site.offset) : "",
                                    tp.site.retep ? ",RETEP" : ""));
        break;
    }
    if (tp.opcode) items.push_back(fmt::format("OPCODE={:#04x}", *tp.opcode));
    if (!tp.types.empty()) {
      std::string types;
      for (const std::string& t : tp.types) types += (types.empty() ? "" : ",") + t;
      items.push_back("TYPE=(" + types + ")");
    }
    if (tp.group) items.push_back("GROUP=" + *tp.group);
    if (!tp.desc.empty()) items.push_back("DESC=" + TsfString(tp.desc));
    for (const FmtLine& f : tp.fmt) items.push_back("FMT=" + TsfString(f.text));
    for (const DataStatement& d : tp.data) items.push_back(DataText(d));
    out += "TRACE";
    for (size_t i = 0; i < items.size(); ++i) {
      out += fmt::format("{} {}", i ? ",\n     " : "", items[i]);
    }
    out += "\n";
  }
  return out;
}

Result<Module> ParseDefinitionText(std::string_view text, std::string_view file_name) {
  const std::string magic = fmt::format("; {} ", kDefinitionFileMagic);
  if (text.substr(0, magic.size()) != magic) {
    return MakeError("{}:1: not a trace definition file (expected '{}{}')", file_name, magic,
                     kDefinitionFileVersion);
  }
  const size_t eol = text.find('\n');
  std::string_view version = text.substr(magic.size(), eol - magic.size());
  if (!version.empty() && version.back() == '\r') version.remove_suffix(1);
  if (version != std::to_string(kDefinitionFileVersion)) {
    return MakeError("{}:1: definition file version '{}' is not supported (this build reads {})",
                     file_name, version, kDefinitionFileVersion);
  }
  ParseOutput out = ParseTsf(text, file_name);
  if (!out.module) {
    std::string message;
    for (const Diagnostic& d : out.diagnostics) {
      if (d.is_error()) message += (message.empty() ? "" : "\n") + d.ToString();
    }
    return Error{message};
  }
  return std::move(*out.module);
}

Result<Module> LoadDefinitionFile(const std::string& path) {
  auto text = ReadInputFile(path, kMaxTextInputBytes, "trace definition files");
  if (!text) return text.error();
  return ParseDefinitionText(*text, path);
}

}  // namespace rastrace::tsf
