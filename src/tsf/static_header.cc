#include "tsf/static_header.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

namespace rastrace::tsf {
namespace {

std::string Identifier(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

// A parameter name from a symbol, keeping its case (it names the caller's variable).
std::string ParameterName(std::string_view symbol) {
  std::string out;
  for (char c : symbol) {
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  }
  return out;
}

constexpr std::string_view kHelpers = R"(#ifndef RASTRACE_TSF_STATIC_HELPERS
#define RASTRACE_TSF_STATIC_HELPERS
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef __cplusplus
extern "C" {
#endif
/* The system trace buffer (rastrace_stda): see src/stda/c_api.h. */
int rastrace_os2_sys_trace(unsigned major, unsigned minor, const void* data, size_t length,
                           unsigned flags);
int rastrace_os2_save_stda(const char* path);
int rastrace_os2_configure(int new_format, size_t size);
#ifndef __USE_GNU
/* Linux; glibc declares it only with _GNU_SOURCE, and this header must build as strict C99. */
extern ssize_t process_vm_readv(pid_t pid, const struct iovec* local, unsigned long local_count,
                                const struct iovec* remote, unsigned long remote_count,
                                unsigned long flags);
#endif
#ifdef __cplusplus
}
#endif

/* A record being built: data is cut at the tracepoint's MAXDATALENGTH. */
typedef struct {
  uint8_t* buf;
  size_t cap;
  size_t n;
  int stopped;     /* a pointer could not be followed: no more data for this hit (seed 001) */
  uintptr_t bad;   /* an INDIRECT pointer that could not be read (0: none) */
  pid_t pid;       /* this process, asked once per hit (0: not yet) */
} rastrace_tsf_record;

/* Copies up to `len` bytes at `address` without ever faulting: process_vm_readv on this process
   checks and copies in one system call and returns what was readable (an unmapped or unreadable
   address gives EFAULT instead of SIGSEGV). Returns the bytes copied, 0 when none could be. */
static inline size_t rastrace_tsf_read(rastrace_tsf_record* r, void* to, uintptr_t address,
                                       size_t len) {
  struct iovec local;
  struct iovec remote;
  ssize_t got;
  if (address == 0 || len == 0) return 0;
  if (r->pid == 0) r->pid = getpid();
  local.iov_base = to;
  local.iov_len = len;
  remote.iov_base = (void*)address;
  remote.iov_len = len;
  got = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
  return got > 0 ? (size_t)got : 0;
}

static inline void rastrace_tsf_raw(rastrace_tsf_record* r, const void* p, size_t len) {
  if (r->stopped) return;
  if (len > r->cap - r->n) len = r->cap - r->n;
  memcpy(r->buf + r->n, p, len);
  r->n += len;
}

/* Status 2 (invalid address) with the pointer in place of the data; nothing more is stored for
   this hit (seed 001). */
static inline void rastrace_tsf_bad(rastrace_tsf_record* r, uintptr_t address) {
  uint8_t prefix[3];
  if (r->stopped) return;
  prefix[0] = 2;
  prefix[1] = (uint8_t)sizeof address;
  prefix[2] = 0;
  rastrace_tsf_raw(r, prefix, 3);
  rastrace_tsf_raw(r, &address, sizeof address);
  r->stopped = 1;
}

/* One data record: the 3-byte prefix (status, length) and the bytes, copied straight into the
   record. An address that cannot be read (null, unmapped, no read permission, or a pointer on
   the way to it) stores status 2 with that pointer. With `string`, the data ends at the first NUL
   (not stored) within `len` bytes. */
static inline void rastrace_tsf_copy(rastrace_tsf_record* r, uintptr_t address, size_t len,
                                     int string) {
  uint8_t* prefix;
  size_t got;
  if (r->stopped) return;
  if (r->bad != 0 || address == 0) {
    rastrace_tsf_bad(r, r->bad != 0 ? r->bad : address);
    return;
  }
  if (r->cap - r->n < 3) return;
  if (len > r->cap - r->n - 3) len = r->cap - r->n - 3;
  prefix = r->buf + r->n;
  got = rastrace_tsf_read(r, prefix + 3, address, len);
  if (got == 0 && len != 0) {
    rastrace_tsf_bad(r, address);
    return;
  }
  if (string) {
    const void* nul = memchr(prefix + 3, 0, got);
    if (nul != NULL) got = (size_t)((const uint8_t*)nul - (prefix + 3));
  }
  prefix[0] = 0;
  prefix[1] = (uint8_t)(got & 0xFF);
  prefix[2] = (uint8_t)(got >> 8);
  r->n += 3 + got;
}

static inline void rastrace_tsf_mem(rastrace_tsf_record* r, uintptr_t address, size_t len) {
  rastrace_tsf_copy(r, address, len, 0);
}

static inline void rastrace_tsf_string(rastrace_tsf_record* r, uintptr_t address, size_t max) {
  rastrace_tsf_copy(r, address, max, 1);
}

/* Follows one pointer (INDIRECT). A null pointer stays null; one that cannot be read is kept in
   r->bad, and the data statement then records it with status 2. */
static inline uintptr_t rastrace_tsf_follow(rastrace_tsf_record* r, uintptr_t address,
                                            intptr_t offset) {
  uintptr_t target = 0;
  if (address == 0 || r->bad != 0) return 0;
  if (rastrace_tsf_read(r, &target, address, sizeof target) != sizeof target) {
    r->bad = address;
    return 0;
  }
  return target ? target + (uintptr_t)offset : 0;
}

/* LEN: a 16-bit length read at trace time; 0 when it cannot be read. */
static inline size_t rastrace_tsf_len(rastrace_tsf_record* r, uintptr_t address) {
  uint16_t length = 0;
  if (rastrace_tsf_read(r, &length, address, sizeof length) != sizeof length) return 0;
  return length;
}
#endif /* RASTRACE_TSF_STATIC_HELPERS */
)";

// Majors above 0xFF do not fit an STDA trailer (one byte): such tracepoints record into a
// rastrace log through the public hook API, as generic hook 00C exactly like `trace on --log`
// (docs/dyntrace.md): subhook = minor, data word = major | flags << 16 | pid << 32, buffer = the
// record data.
constexpr std::string_view kLogHelpers = R"(#ifndef RASTRACE_TSF_LOG_HELPERS
#define RASTRACE_TSF_LOG_HELPERS
#include <rastrace/trchk.h>
#define RASTRACE_TSF_LOG_HOOK 0x00C00000u
#endif /* RASTRACE_TSF_LOG_HELPERS */
)";

// The C expression for a statement's address, from its parameter.
std::string AddressExpression(const DataStatement& d, const std::string& param) {
  std::string e = fmt::format("(uintptr_t)({})", param);
  if (d.address.displacement) e = fmt::format("({} + (uintptr_t)({}))", e, d.address.displacement);
  if (d.indirection == Indirection::kIndirect) {
    std::vector<int64_t> levels = d.indirect_offsets;
    if (levels.empty()) levels.push_back(0);
    for (int64_t offset : levels) e = fmt::format("rastrace_tsf_follow(&r, {}, {})", e, offset);
  }
  if (d.address.final_displacement) {
    e = fmt::format("({} ? {} + (uintptr_t)({}) : 0)", e, e, *d.address.final_displacement);
  }
  return e;
}

std::string_view StatementName(DataKind k) {
  switch (k) {
    case DataKind::kMem:
      return "MEM";
    case DataKind::kAsciiz:
      return "ASCIIZ";
    default:
      return "data";
  }
}

}  // namespace

std::string StaticFunctionName(const Module& module, const Tracepoint& tp) {
  std::string stem = module.modname;
  if (auto slash = stem.find_last_of("/\\"); slash != std::string::npos) stem.erase(0, slash + 1);
  if (auto dot = stem.find('.'); dot != std::string::npos) stem.erase(dot);
  if (stem.empty()) stem = "tsf";
  return fmt::format("trace_{}_{:04x}", Identifier(stem), tp.minor);
}

Result<std::string> GenerateStaticHeader(const Module& m) {
  const bool to_log = m.major > 0xFF;
  std::string out = fmt::format(
      "/* Generated by trcust --header from {} (MODNAME {}, MAJOR {:#04x}). Do not edit. */\n"
      "#pragma once\n",
      m.file, m.modname.empty() ? "-" : m.modname, m.major);
  out += kHelpers;
  if (to_log) {
    out += fmt::format(
        "/* MAJOR {:#x} does not fit an STDA record (1 to 0xFF): these tracepoints record into a\n"
        "   rastrace log (link with -lrastrace, run with RASTRACE_LOG=FILE) as generic hook 00C,\n"
        "   the layout of `trace on --log`; `tracefmt -t TFFDIR FILE` formats it. */\n",
        m.major);
    out += kLogHelpers;
  }
  for (const Tracepoint& tp : m.tracepoints) {
    if (tp.site.kind != TracepointSite::Kind::kStatic) continue;
    std::vector<std::string> params;
    std::set<std::string> seen;
    std::string body;
    auto param = [&](const std::string& declaration, const std::string& name) {
      if (seen.insert(name).second) params.push_back(declaration);
    };
    bool pending_len = false;
    for (const DataStatement& d : tp.data) {
      const auto where = fmt::format("{}:{}:{}", m.file, d.where.line, d.where.column);
      if (d.kind == DataKind::kRegs) {
        for (const Register& r : d.registers) {
          const std::string name = r.variable ? ParameterName(r.name) : Identifier(r.name);
          param(fmt::format("uint{}_t {}", r.size * 8, name), name);
          body += fmt::format(
              "  {{\n    uint{}_t v = {};\n    rastrace_tsf_raw(&r, &v, sizeof v);\n"
              "  }}\n",
              r.size * 8, name);
        }
        continue;
      }
      if (d.Segmented()) {
        return MakeError(
            "{}: error: {} cannot be recorded by a static tracepoint: segmented "
            "addressing does not exist in a flat Linux process",
            where,
            d.kind == DataKind::kMem32 || d.kind == DataKind::kAsciiz32 ? "this address"
                                                                        : StatementName(d.kind));
      }
      if (d.address.base != Address::Base::kSymbol) {
        return MakeError(
            "{}: error: register-form addresses need a dynamic tracepoint; a "
            "static tracepoint takes the address as a parameter (.name)",
            where);
      }
      const std::string name = ParameterName(d.address.symbol);
      param(fmt::format("const void* {}", name), name);
      const std::string address = AddressExpression(d, name);
      switch (d.kind) {
        case DataKind::kLen:
          body += fmt::format("  len = rastrace_tsf_len(&r, {});\n", address);
          pending_len = true;
          break;
        case DataKind::kMem32:
          body += fmt::format("  rastrace_tsf_mem(&r, {}, {});\n", address,
                              d.length_from_len ? std::string("len") : std::to_string(d.length));
          break;
        default:
          body += fmt::format("  rastrace_tsf_string(&r, {}, {});\n", address, d.length);
          break;
      }
    }
    std::string signature;
    for (const std::string& p : params) signature += (signature.empty() ? "" : ", ") + p;
    out +=
        fmt::format("\n/* MINOR {:#06x}{}{} */\n", tp.minor, tp.desc.empty() ? "" : ": ", tp.desc);
    out += fmt::format("static inline int {}({}) {{\n", StaticFunctionName(m, tp),
                       signature.empty() ? "void" : signature);
    if (to_log) {
      // Nothing is assembled while the channel is off: the hook's own check, done first.
      out += "  if (!RASTRACE_CHANNEL_ON(0)) return 0;\n";
    }
    out += fmt::format("  uint8_t buf[{}];\n", m.max_data_length);
    out += fmt::format("  rastrace_tsf_record r = {{buf, sizeof buf, 0, 0, 0, 0}};\n");
    if (pending_len) out += "  size_t len = 0;\n";
    out += body;
    out += "  (void)r.stopped;\n";
    if (to_log) {
      // Flags 0x01: an application record (as the STDA trailer says for static tracepoints).
      out += fmt::format(
          "  rastrace_gent(RASTRACE_TSF_LOG_HOOK | {:#x}u, (uint64_t){:#x}u | (uint64_t)0x01u << "
          "16 |"
          " (uint64_t)(uint32_t)(r.pid != 0 ? r.pid : getpid()) << 32, r.n, buf);\n  return "
          "0;\n}}\n",
          tp.minor, m.major);
    } else {
      out += fmt::format("  return rastrace_os2_sys_trace({:#x}, {:#x}, buf, r.n, 1);\n}}\n",
                         m.major, tp.minor);
    }
  }
  return out;
}

}  // namespace rastrace::tsf
