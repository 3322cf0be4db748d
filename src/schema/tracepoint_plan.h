// The fields of an OS/2 tracepoint from the FMT strings of its TFF format file (docs/exporting.md,
// "Schemas from TFF files"): each control that shows data is a field, named by the label before it
// on its line (`FileName = %P%S` -> filename), typed by the control (%B %W %D %F %Q %A hex, %C and
// %S string, %U bytes).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "schema/schema.h"
#include "tsf/fmt.h"

namespace rastrace::schema {

struct TracepointPlan {
  std::vector<Field> fields;
  // For each FMT item of the lines, in order: the field it fills, or -1.
  std::vector<int16_t> item_fields;
};

TracepointPlan DeriveTracepointPlan(std::span<const tsf::FmtLineItems> lines);

// Reads the fields of `record` (a hit's data) as the FMT lines walk it (tsf::RecordReader).
void RunTracepointPlan(const TracepointPlan& plan, std::span<const tsf::FmtLineItems> lines,
                       const tsf::FmtRecord& record, std::vector<Value>& values);

}  // namespace rastrace::schema
