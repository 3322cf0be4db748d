// The evaluator's state and steps, shared by evaluator.cc (control flow), evaluator_read.cc
// (reading the event and computing values) and evaluator_print.cc (printing codes and macros).
// Internal to the template part.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "template/compiled.h"
#include "template/template.h"
#include "template/text_writer.h"

namespace rastrace::tmpl {
inline constexpr int kMaxSubroutineDepth = 10;  // seed 002 section VII
// Work and output allowed per event grow with its size: a LOOP over every byte of a 64 KiB generic
// buffer fits, a loop count read from a corrupt event ends quickly.
inline constexpr uint64_t kBaseSteps = 20'000;
inline constexpr uint64_t kStepsPerByte = 64;
inline constexpr size_t kBaseOutput = 16 * 1024;
inline constexpr size_t kOutputPerByte = 16;
inline constexpr size_t kMaxExprStack = 130;
// The DATA_POINTER and BASE_POINTER stay far below this, so pointer arithmetic cannot wrap.
inline constexpr uint64_t kMaxPointer = uint64_t{1} << 40;

inline int64_t SignExtend(uint64_t v, unsigned bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  unsigned shift = 64 - bytes * 8;
  return static_cast<int64_t>(v << shift) >> shift;
}

inline uint64_t MaskBytes(uint64_t v, unsigned bytes) {
  return bytes >= 8 ? v : v & ((uint64_t{1} << (bytes * 8)) - 1);
}

inline int64_t SaturatingFromDouble(double d) {
  if (!(d == d)) return 0;  // NaN
  if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

struct Evaluator::Impl {
  Impl(const TemplateSet& templates, ReportHost& report_host) : set(templates), host(report_host) {}

  const TemplateSet& set;
  ReportHost& host;

  // State of the event being run.
  const EventContext* ctx = nullptr;
  const event::Event* ev = nullptr;
  std::span<const uint8_t> bytes;
  ByteOrder order = ByteOrder::kLittle;
  ByteOrder read_order = ByteOrder::kLittle;  // of the bytes the last Take returned
  size_t head_size = 8;                       // the hookword: 4 bytes (32-bit) or 8 (64-bit)
  std::vector<uint8_t> view;                  // a little-endian event with its hookword swapped
  unsigned word = 8;
  uint64_t dp_bits = 0;  // the DATA_POINTER, in bits
  uint64_t base = 0;     // the BASE_POINTER, in bytes
  std::array<uint64_t, 256> slots{};
  size_t slots_used = 0;
  TextWriter w;
  const CompiledTemplate* frame = nullptr;
  int call_depth = 0;
  int seq_depth = 0;
  int error_depth = 0;
  uint64_t steps = 0;
  uint64_t step_limit = kBaseSteps;
  size_t output_limit = kBaseOutput;
  bool halt = false;
  bool failed = false;
  bool pending_error = false;
  bool in_backquote = false;
  EvalStatus status = EvalStatus::kOk;
  std::string subject_text;
  std::string arg_text;

  // State across events.
  std::map<std::vector<int64_t>, uint64_t> timers;
  std::set<std::string, std::less<>> warned;

  void Run(const Template& t, const EventContext& c, EvalOutput& out);

 private:
  void Fail() {
    halt = true;
    failed = true;
  }
  void Exec(const Seq& seq);
  void ExecNode(const Node& n);
  void Literal(std::string_view text);
  void Call(uint16_t id16);
  void RunBody(const CompiledTemplate& compiled);

  uint64_t& Slot(uint16_t macro) { return slots[frame->slot_of_macro[macro]]; }

  // Reads: false (and the event failed) when out of range.
  bool Take(uint64_t n, const uint8_t*& p);
  bool TakeBits(uint64_t nbits, uint64_t& v);
  bool Move(const FormatCode& c);
  uint64_t CodeValue(const FormatCode& c);
  uint64_t ValueOf(const Value& v);
  uint64_t SpecialValue(Special s);
  std::string_view SpecialText(Special s);
  int64_t EvalExpr(const Expr& e);
  int64_t RunBuiltin(const Builtin& b, bool printing);

  void PrintCode(const FormatCode& c);
  void PrintValue(const Value& v);
  void PrintWithCode(uint64_t value, const FormatCode& c);
  void PrintBits(uint64_t value, unsigned nbits);
  void PrintText(const uint8_t* p, size_t n, size_t width, bool pad);
  void PrepareView();
  double LoadFloat(const uint8_t* p, unsigned size) const {
    if (size == 4) {
      uint32_t bits = Load32(p, read_order);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    uint64_t bits = Load64(p, read_order);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  void CodeBlank() {
    if (!in_backquote) w.Blank();
  }
  void ExecSwitch(const Node& n);
  void ExecBitflags(const Node& n);
  bool SubjectText(const Value& v, std::string& text);
  void TraceIdText(std::string& out);
};

}  // namespace rastrace::tmpl
