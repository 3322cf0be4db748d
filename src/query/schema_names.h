// The schema name of each event, for the events table: the template's label (without its '@')
// for now, numbered so that each event row stores a small integer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "event/event.h"

namespace rastrace::tmpl {
class TemplateSet;
}

namespace rastrace::query {

class SchemaNames {
 public:
  SchemaNames();
  ~SchemaNames();
  // Templates whose labels name the events; without them no event has a schema name.
  void UseTemplates(std::shared_ptr<const tmpl::TemplateSet> templates);

  // The schema id of `e` (0, 1, ... in order of first use); nullopt when it has no name.
  // `is_new` is set when the id was given out by this call (the caller records its name).
  std::optional<uint32_t> IdOf(const event::Event& e, bool& is_new);
  std::string_view Name(uint32_t id) const { return names_[id]; }

 private:
  std::shared_ptr<const tmpl::TemplateSet> templates_;
  // By 16-bit hook id: 0 not looked up yet, 1 no name, else id + 2.
  std::vector<uint32_t> by_hook_ = std::vector<uint32_t>(65536, 0);
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;  // one id per name, whatever the hook
};

}  // namespace rastrace::query
