// A schema's field values as JSON and CSV text (docs/exporting.md, "Schemas"): integers as
// numbers, hex fields as "0x" and two digits per byte of their size, floats as numbers (null when
// not finite), strings escaped as valid UTF-8, bytes as lowercase hex. Absent values are JSON null
// and empty CSV fields.
#pragma once

#include <span>
#include <string>

#include "schema/schema.h"

namespace rastrace::exporter {

void AppendJsonValue(std::string& out, const schema::Field& field, const schema::Value& value);
void AppendCsvValue(std::string& out, const schema::Field& field, const schema::Value& value);

// True when some value is present.
bool AnyPresent(std::span<const schema::Value> values);

// `"name":value` for every field of `schema`, separated by commas, without braces; with
// `skip_absent`, fields the event does not hold are left out instead of null.
void AppendJsonFields(std::string& out, const schema::Schema& schema,
                      std::span<const schema::Value> values, bool skip_absent = false);

}  // namespace rastrace::exporter
