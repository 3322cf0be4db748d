// The TSF rules that need the whole file: MINOR numbering, names, LEN placement, data sizes and
// FMT controls against the data statements.
#include <fmt/format.h>

#include <map>

#include "tsf/fmt.h"
#include "tsf/parser_internal.h"

namespace rastrace::tsf::internal {
namespace {

std::string_view KindName(DataKind kind) {
  switch (kind) {
    case DataKind::kRegs:
      return "REGS";
    case DataKind::kMem32:
      return "MEM32";
    case DataKind::kMem:
      return "MEM";
    case DataKind::kAsciiz32:
      return "ASCIIZ32";
    case DataKind::kAsciiz:
      return "ASCIIZ";
    case DataKind::kLen:
      return "LEN";
  }
  return "?";
}

void CheckMinors(Module& module, std::vector<TracepointExtras>& extras, DiagnosticSink& sink) {
  size_t with_minor = 0;
  for (const auto& ex : extras) with_minor += ex.has_minor ? 1 : 0;
  auto& tps = module.tracepoints;
  if (with_minor == 0) {
    if (tps.size() > 0xFFFF) {
      sink.Error(tps[0xFFFF].where, "more than 0xFFFF tracepoints in one major");
      return;
    }
    for (size_t i = 0; i < tps.size(); ++i) tps[i].minor = static_cast<uint16_t>(i + 1);
    return;
  }
  if (with_minor != tps.size()) {
    const bool first_has = extras[0].has_minor;
    for (size_t i = 0; i < tps.size(); ++i) {
      if (extras[i].has_minor == first_has) continue;
      sink.Error(tps[i].where,
                 first_has ? fmt::format("this TRACE has no MINOR=, but the TRACE at line {} has "
                                         "one: give MINOR on every TRACE or on none",
                                         tps[0].where.line)
                           : fmt::format("this TRACE has MINOR=, but the TRACE at line {} has "
                                         "none: give MINOR on every TRACE or on none",
                                         tps[0].where.line));
    }
    return;
  }
  std::map<uint16_t, uint32_t> seen;  // minor -> line
  for (size_t i = 0; i < tps.size(); ++i) {
    const Tracepoint& tp = tps[i];
    auto [it, inserted] = seen.emplace(tp.minor, tp.where.line);
    if (!inserted) {
      sink.Error(extras[i].minor_where,
                 fmt::format("MINOR {:#06x} is already used by the TRACE at line {}", tp.minor,
                             it->second));
    }
  }
}

const NamedId* FindName(const std::vector<NamedId>& list, std::string_view name) {
  const std::string up = ToUpper(name);
  for (const NamedId& n : list) {
    if (ToUpper(n.name) == up) return &n;
  }
  return nullptr;
}

void CheckData(const Module& module, Tracepoint& tp, DiagnosticSink& sink) {
  for (size_t i = 0; i < tp.data.size(); ++i) {
    DataStatement& d = tp.data[i];
    if (d.kind == DataKind::kLen) {
      const bool next_uses =
          i + 1 < tp.data.size() && tp.data[i + 1].length_from_len &&
          (tp.data[i + 1].kind == DataKind::kMem32 || tp.data[i + 1].kind == DataKind::kMem);
      if (!next_uses) {
        sink.Error(d.where, "LEN= must come right before the MEM32= or MEM= whose length is LEN");
      }
      continue;
    }
    if (d.length_from_len && (i == 0 || tp.data[i - 1].kind != DataKind::kLen)) {
      sink.Error(d.where, fmt::format("{}=(...,LEN) needs a LEN= statement right before it",
                                      KindName(d.kind)));
    }
    if (!d.length_from_len && d.kind != DataKind::kRegs && d.length > module.max_data_length) {
      sink.Warning(d.where, fmt::format("{} length {} is beyond MAXDATALENGTH {}; {} bytes are "
                                        "recorded",
                                        KindName(d.kind), d.length, module.max_data_length,
                                        module.max_data_length));
      d.length = module.max_data_length;
    }
  }
  // A LEN-sized record counts only its prefix here: its size is known at trace time, when the
  // record is cut at MAXDATALENGTH anyway.
  uint32_t total = 0;
  for (const DataStatement& d : tp.data) {
    if (d.kind == DataKind::kRegs) {
      for (const Register& r : d.registers) total += r.size;
    } else if (d.kind != DataKind::kLen) {
      total += 3 + (d.length_from_len ? 0 : d.length);
    }
  }
  if (total > module.max_data_length) {
    sink.Warning(tp.where, fmt::format("the data of this tracepoint can reach {} bytes (3-byte "
                                       "prefixes included), beyond MAXDATALENGTH {}; the record "
                                       "is cut there",
                                       total, module.max_data_length));
  }
}

// The data a tracepoint records, as the formatter will walk it.
struct Segment {
  bool prefixed = false;
  int64_t size = -1;  // bytes (raw), or record length when known; -1 when only known at trace time
  const DataStatement* statement = nullptr;
};

std::vector<Segment> Layout(const Tracepoint& tp) {
  std::vector<Segment> out;
  for (const DataStatement& d : tp.data) {
    if (d.kind == DataKind::kLen) continue;
    if (d.kind == DataKind::kRegs) {
      int64_t bytes = 0;
      for (const Register& r : d.registers) bytes += r.size;
      if (!out.empty() && !out.back().prefixed) {
        out.back().size += bytes;  // consecutive REGS read as one run of bytes
      } else {
        out.push_back({false, bytes, &d});
      }
      continue;
    }
    const bool fixed = d.kind == DataKind::kMem32 || d.kind == DataKind::kMem;
    out.push_back({true, fixed && !d.length_from_len ? int64_t{d.length} : -1, &d});
  }
  return out;
}

std::string ControlName(const FmtItem& item) {
  switch (item.control) {
    case FmtControl::kByte:
      return "%B";
    case FmtControl::kChar:
      return "%C";
    case FmtControl::kWord:
      return "%W";
    case FmtControl::kDwordWords:
      return "%D";
    case FmtControl::kDword:
      return "%F";
    case FmtControl::kQword:
      return "%Q";
    case FmtControl::kFarPointer:
      return "%A";
    case FmtControl::kString:
      return "%S";
    case FmtControl::kHexBytes:
      return "%U";
    case FmtControl::kSkip:
      return fmt::format("%I{}", item.skip);
    case FmtControl::kPrefixOnly:
      return "%P";
    default:
      return "%";
  }
}

void CheckFmt(const Tracepoint& tp, const TracepointExtras& ex, DiagnosticSink& sink) {
  if (tp.fmt.empty()) return;
  // A static tracepoint without data statements gets its data from the program's own
  // DosSysTrace call: only the FMT syntax can be checked.
  const bool free_data = tp.site.kind == TracepointSite::Kind::kStatic && tp.data.empty();
  const std::vector<Segment> layout = Layout(tp);
  size_t seg = 0;
  int64_t used = 0;         // bytes of layout[seg] taken
  bool opened = false;      // layout[seg] is a record whose %P was seen
  bool rest_taken = false;  // %U without %P took everything
  size_t prefixes = 0;
  for (size_t line = 0; line < tp.fmt.size(); ++line) {
    const FmtLine& fl = tp.fmt[line];
    const auto& columns = ex.fmt_columns[line];
    auto where = [&](uint32_t offset) {
      return Location{fl.where.line, offset < columns.size() ? columns[offset] : fl.where.column};
    };
    auto items = ParseFmt(fl.text);
    if (!items.ok()) {
      // The message starts "offset N: ..."; point at that byte in the file.
      const std::string& msg = items.error().message;
      uint32_t offset = 0;
      size_t colon = msg.find(':');
      if (msg.rfind("offset ", 0) == 0 && colon != std::string::npos) {
        offset = static_cast<uint32_t>(std::strtoul(msg.c_str() + 7, nullptr, 10));
      }
      sink.Error(
          where(offset),
          fmt::format("in FMT: {}", colon == std::string::npos ? msg : msg.substr(colon + 2)));
      return;
    }
    if (free_data) continue;
    for (const FmtItem& item : *items) {
      const int32_t size = item.FixedSize();
      if (!item.prefixed && size == 0) continue;  // literals, %X, %Y
      const Location at = where(item.offset);
      const std::string name = ControlName(item);
      if (rest_taken) {
        sink.Error(at,
                   fmt::format("{} comes after a %U that already took the rest of the data", name));
        return;
      }
      // Step over what is fully taken.
      auto done = [&] {
        return seg < layout.size() && layout[seg].size >= 0 && used >= layout[seg].size &&
               (!layout[seg].prefixed || opened);
      };
      while (done()) {
        ++seg;
        used = 0;
        opened = false;
      }
      if (item.prefixed) {
        ++prefixes;
        if (opened) {  // the rest of the open record is skipped
          ++seg;
          used = 0;
          opened = false;
        }
        if (seg < layout.size() && !layout[seg].prefixed) {
          sink.Error(at, fmt::format("%P here, but {} bytes of {} data (line {}) come first",
                                     layout[seg].size - used, KindName(layout[seg].statement->kind),
                                     layout[seg].statement->where.line));
          return;
        }
        if (seg >= layout.size()) {
          sink.Error(at,
                     "%P here, but the tracepoint has no more MEM32, MEM, ASCIIZ32 or "
                     "ASCIIZ data record");
          return;
        }
        opened = true;
        used = 0;
        if (item.control == FmtControl::kPrefixOnly) continue;
      } else if (seg < layout.size() && layout[seg].prefixed && !opened) {
        sink.Error(at, fmt::format("{} here, but the next data is the {} record (line {}): code "
                                   "%P before it",
                                   name, KindName(layout[seg].statement->kind),
                                   layout[seg].statement->where.line));
        return;
      } else if (seg >= layout.size()) {
        sink.Error(at, fmt::format("{} here, but the data statements record no more data", name));
        return;
      }
      const Segment& s = layout[seg];
      if (size < 0) {  // %S, %U: to the end of the record
        if (item.control == FmtControl::kHexBytes && !item.prefixed) rest_taken = true;
        used = s.size >= 0 ? s.size : 0;
        if (s.size < 0) {  // variable record: nothing more can be read from it
          ++seg;
          used = 0;
          opened = false;
        }
        continue;
      }
      if (s.size >= 0 && used + size > s.size) {
        sink.Error(at, fmt::format("{} reads {} bytes, but only {} of the {} data (line {}) "
                                   "remain",
                                   name, size, s.size - used, KindName(s.statement->kind),
                                   s.statement->where.line));
        return;
      }
      used += size;
    }
  }
  size_t records = 0;
  for (const Segment& s : layout) records += s.prefixed ? 1 : 0;
  if (!free_data && prefixes != records) {
    sink.Error(tp.fmt.front().where,
               fmt::format("the FMT strings have {} %P controls, but the tracepoint records {} "
                           "data records (MEM32, MEM, ASCIIZ32, ASCIIZ): one %P is needed for each",
                           prefixes, records));
  }
}

}  // namespace

void CheckModule(Module& module, std::vector<TracepointExtras>& extras, bool major_given,
                 DiagnosticSink& sink) {
  if (!major_given) sink.Error({1, 1}, "MAJOR= is required in the header");
  CheckMinors(module, extras, sink);
  for (size_t i = 0; i < module.tracepoints.size(); ++i) {
    Tracepoint& tp = module.tracepoints[i];
    const TracepointExtras& ex = extras[i];
    if (!ex.has_tp) sink.Error(tp.where, "TRACE needs TP= (@STATIC, @file,line or .name)");
    for (size_t t = 0; t < tp.types.size(); ++t) {
      const NamedId* type = FindName(module.types, tp.types[t]);
      if (!type) {
        sink.Error(ex.type_where[t],
                   fmt::format("unknown type '{}' (not in TYPELIST)", tp.types[t]));
      } else {
        tp.type_mask |= type->id;
      }
    }
    if (tp.group) {
      const NamedId* group = FindName(module.groups, *tp.group);
      if (!group) {
        sink.Error(ex.group_where, fmt::format("unknown group '{}' (not in GROUPLIST)", *tp.group));
      } else {
        tp.group_id = group->id;
      }
    }
    CheckData(module, tp, sink);
    CheckFmt(tp, ex, sink);
  }
}

}  // namespace rastrace::tsf::internal
