// A fixed set of rich templates run on random event bytes, in both layouts and byte orders: no
// input may crash, hang or read outside the event.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "template/template.h"

namespace {

constexpr std::string_view kTemplates = R"(
008 1.0 "DEFAULT" $D1 $D2 $D3 $D4 $D5 $L1 $L2 $HD $HL HT HB
010 1.0 "codes" X0 X1 X2 X3 X4 X8 X9 X16 XW D2 D4 D8 DW U2 U4 U8 UW o2 o4 o8 oW \
  F4 F8 T4 T8 TW E1 E2 E4 E8 EW P4 P8 PW B0.1 B1.3 B0.19 B8.0 A0.5 A4 A4.8 A16.2 \
  S1 S2 S4 S8 SW G0 G1.5 O1.3 R1 R0 W0 W1 W5 \t \n X1
011 1.0 "switch" X2, 1 "one", 2 {"two" X4}, \* {X1, 0 "zero", \* $ERROR} \
  D4, -1 "m1", \* "d" U2, 5 "5", \* "u" B0.3, 101 "b" o2, 17 "o" \
  A3, abc "abc", \* "a" S1, hello "s" E4, ENOENT "e" F4, 1.5 "f" HT, 6 "ht" \
  $D1, 7 "seven", \* "nope" HT & 0x07, 1 "masked" $D2 &0xFF, 3 "low"
012 1.0 "loops" LOOP X1 {X0} LOOP HB {X1 R0} LOOP $D1 {"x" O0.1} \
  {{ $n = B0.5 }} LOOP $n {B0.1}
013 1.0 "exprs" {{ $a = X4 * D2 - (U2 / 3) + -B0.7 }} {{ $b = $a / X1 }} \
  {{ $c = $a * $b * 1000000007 }} {{ $d = 0x7FFFFFFFFFFFFFFF + 1 }} \
  {{ $e = (0 - 9223372036854775807 - 1) / (0 - 1) }} $a $b%X4 $c%D4 $d%U8 $e%B1.7 $a%W3.60 \
  $a%S1 {{ $DATAPOINTER = $a }} X1 {{ $BASEPOINTER = X2 }} X1 {{ $DATAPOINTER = 0 - 1 }} X1
014 1.0 "bits" BITFLAGS X4, 1 "a" "not a", o7 "o", 0x10 {"x" X1}, & F0 30 "f", & o77 o1 {$ERROR}
015 1.0 "special" $HOOKENV $TRACEENV $RELLINENO $WORDSIZE $GENERIC $TOTALCPUS $TRACEDCPUS \
  $REPORTEDCPUS $LARGEDATATYPES $SVC $EXECPATH $PID $TID $CPUID $PRI $LOGIDX $LOGIDX0 \
  $LOGFILE $TRACEID $DATAPOINTER $BASEPOINTER $IPADDR $BUFF `in back $D1 X2 quote\t`
016 1.0 "calls" $017 $DEFAULT $016 $0171 $ABCD {{ $cafe = X1 }} $cafe {{ starttimer(X1, $D1) }} endtimer(X1, $D1) \
  {{ pidinstall(X4, A8) }} {{ pidinstall($D1, S2) }} {{ unknown(1, "2") }} {{ $z = other() }}
017 1.0 "@sub" {{ $first = X4 }} X2, 3 $STOP, 4 $SKIP, 5 $BREAK, \* $018
018 1.0 "" G0 {{ $q = 1 / $first }} $q $ERROR X8
0171 1.0 "@sub16" {{ $r }} X1 {{ $r = X2 }} $0171
)";

class NullHost : public rastrace::tmpl::ReportHost {
 public:
  std::string_view ExecPathOf(uint64_t pid) override { return pid == 1 ? "/sbin/init" : ""; }
  void InstallProcess(uint64_t, std::string_view) override {}
  void Warn(std::string_view) override {}
};

const rastrace::tmpl::TemplateSet& Templates() {
  static const rastrace::tmpl::TemplateSet* set = [] {
    auto* s = new rastrace::tmpl::TemplateSet();
    std::vector<rastrace::tmpl::Diagnostic> diagnostics;
    s->AddText(kTemplates, "eval_fuzzer.fmt", diagnostics);
    if (!diagnostics.empty()) __builtin_trap();  // the fixed templates must all load
    return s;
  }();
  return *set;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace;
  if (size < 2) return 0;
  // First byte: layout, byte order, generic; second: word count and type. The rest: the bytes.
  uint8_t mode = data[0];
  uint8_t shape = data[1];
  std::vector<uint8_t> bytes(data + 2, data + size);
  event::Event ev;
  ev.layout = (mode & 1) ? event::Layout::k32 : event::Layout::k64;
  ev.generic = (mode & 2) != 0;
  ev.word_count = shape % 6;
  ev.type32 = shape >> 4;
  ev.flags = static_cast<uint16_t>(shape << 8);
  ev.data_length = static_cast<uint16_t>(bytes.size());
  ev.offset = size;
  for (unsigned i = 0; i < ev.word_count && (i + 1) * 8 <= bytes.size(); ++i) {
    std::memcpy(&ev.words[i], bytes.data() + i * 8, 8);
  }
  ev.bytes = bytes;
  tmpl::EventContext ctx;
  ctx.event = &ev;
  ctx.byte_order = (mode & 4) ? ByteOrder::kBig : ByteOrder::kLittle;
  ctx.trace_layout = (mode & 8) ? event::Layout::k32 : event::Layout::k64;
  ctx.time_ns = size * 1000;
  NullHost host;
  const tmpl::TemplateSet& set = Templates();
  tmpl::Evaluator evaluator(set, host);
  tmpl::EvalOutput out;
  for (const tmpl::Template* t : set.All()) {
    ev.hook_id = t->id16;
    evaluator.Run(*t, ctx, out);
  }
  return 0;
}
