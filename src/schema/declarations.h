// Declarations that name events and pair them, written in a template file as comment lines that
// start with "#@" (so AIX trcrpt and every trcfmt reader skip them) or given on the command line
// (docs/exporting.md, "Declarations"):
//
//   #@event   ID[/SUBHOOK] NAME [FIELD|- ...]    the schema name (and field names) of an event
//   #@slice   NAME begin=MATCH end=MATCH [scope=thread|global] [key=FIELD] [title=FIELD]
//   #@counter NAME on=MATCH value=FIELD
//
// MATCH is a hook id (3 hex digits: the 12-bit id hhh, 4: the 16-bit id) with an optional
// /SUBHOOK (hex), or a schema name (`name:NAME` when the name looks like a hook id).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "event/event.h"
#include "schema/schema.h"

namespace rastrace::schema {

struct EventMatch {
  std::optional<uint16_t> hook_id;  // set: match by id (and subhook when set)
  std::optional<uint16_t> subhook;
  std::string schema;  // else: match by schema name
  bool Matches(const event::Event& e, const Schema& s) const;
};

struct EventDeclaration {
  uint16_t hook_id = 0;
  std::optional<uint16_t> subhook;
  std::string name;
  std::vector<std::string> fields;  // "-": keep the derived name
  std::string where;                // "file:line" or "--event"
};

struct SliceDeclaration {
  std::string name;  // the slice's name (unless `title` names a field that holds one)
  EventMatch begin, end;
  bool global = false;    // begin and end may be on different threads (one track per source)
  std::string key;        // a field whose value must be equal in begin and end ("": none)
  std::string title;      // a string field of the begin event that names the slice ("": none)
  std::string where;
};

struct CounterDeclaration {
  std::string name;
  EventMatch on;
  std::string value;  // a numeric field of the matching events
  std::string where;
};

struct Declarations {
  std::vector<EventDeclaration> events;
  std::vector<SliceDeclaration> slices;
  std::vector<CounterDeclaration> counters;

  // The #@event of a hook (with this subhook first, then one without a subhook); nullptr if none.
  const EventDeclaration* FindEvent(uint16_t hook_id, std::optional<uint16_t> subhook) const;
};

// Parses one declaration: `text` is what follows "#@" ("slice request begin=..."). `where` names it
// in errors, which read "WHERE:COLUMN: what was expected".
Result<void> ParseDeclaration(std::string_view text, std::string_view where, Declarations& out);

// Reads the "#@" lines of a template file (lines continuing a template with '\' are template text,
// not declarations). Errors ("file:line:col: ...") are added to `errors`; the rest still load.
// Fails only when the file cannot be read.
Result<void> LoadDeclarations(const std::string& path, Declarations& out,
                              std::vector<std::string>& errors);

}  // namespace rastrace::schema
