// The fields a trcfmt template describes, and how to read them from an event without running the
// template: its format codes walked once (docs/exporting.md, "Schemas from templates").
//
// Each code that reads data becomes a field, typed by the code (D signed, U unsigned, X hex, A and
// S string, F float, LOOP n {X1} bytes) and named by the label before it (`"tid=" W1 U8` -> tid),
// by the macro it is assigned to (`{{ $len = U2 }}` -> len), or by where it reads (d1..d5,
// data_word, buffer, buffer_N, fieldN). The walk stops at what only running the template can tell
// (a subroutine, a SWITCH whose cases read data, an expression over codes): fields after that
// point are not described. A template that switches on the subhook first (`G6 X2, 0100 {...}`,
// as 00A does) describes one field list per case.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"
#include "schema/schema.h"
#include "template/template.h"

namespace rastrace::schema {

struct PlanStep;

// The fields of one template (or of one case of its subhook switch) for one kind of event (generic
// or not, 32- or 64-bit layout: the DATA_POINTER starts elsewhere), and the steps that read them.
struct TemplatePlan {
  std::vector<Field> fields;
  std::vector<PlanStep> steps;
  TemplatePlan();
  ~TemplatePlan();
  TemplatePlan(TemplatePlan&&) noexcept;
  TemplatePlan& operator=(TemplatePlan&&) noexcept;
};

// A template that switches on the subhook: one plan per numbered case, and one for the rest.
struct SubhookPlans {
  struct Case {
    uint16_t subhook = 0;
    TemplatePlan plan;
  };
  std::vector<Case> cases;
  std::optional<TemplatePlan> other;  // the `\*` case (none: subhooks not listed have no fields)
};

struct DerivedPlans {
  TemplatePlan plan;                     // when `by_subhook` is empty
  std::optional<SubhookPlans> by_subhook;
};

// Derives the plan(s) of `t` for events that are `generic` (or not) in `layout`.
DerivedPlans DeriveTemplatePlans(const tmpl::Template& t, bool generic, event::Layout layout);

// Reads the fields of `plan` from `e` (already in the layout templates see: seed 002 part C
// applied) into `values` (resized to the plan's fields). `scratch` holds texts that do not lie in
// the event's bytes. Never reads outside the event: what is not there is absent.
void RunTemplatePlan(const TemplatePlan& plan, const event::Event& e, ByteOrder order,
                     std::vector<Value>& values, std::vector<std::string>& scratch);

}  // namespace rastrace::schema
