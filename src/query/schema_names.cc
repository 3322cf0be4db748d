#include "query/schema_names.h"

#include "template/template.h"

namespace rastrace::query {

SchemaNames::SchemaNames() = default;
SchemaNames::~SchemaNames() = default;

void SchemaNames::UseTemplates(std::shared_ptr<const tmpl::TemplateSet> templates) {
  templates_ = std::move(templates);
  std::fill(by_hook_.begin(), by_hook_.end(), 0);
}

std::optional<uint32_t> SchemaNames::IdOf(const event::Event& e, bool& is_new) {
  is_new = false;
  uint32_t& slot = by_hook_[e.hook_id];
  if (slot == 0) {
    slot = 1;
    const tmpl::Template* found = templates_ ? templates_->Find(e.hook_id) : nullptr;
    if (found != nullptr) {
      std::string_view label = found->label;
      if (!label.empty() && label.front() == '@') label.remove_prefix(1);
      if (!label.empty()) {
        const auto [it, added] =
            ids_.try_emplace(std::string(label), static_cast<uint32_t>(names_.size()));
        if (added) {
          names_.emplace_back(label);
          is_new = true;
        }
        slot = it->second + 2;
      }
    }
  }
  if (slot == 1) return std::nullopt;
  return slot - 2;
}

}  // namespace rastrace::query
