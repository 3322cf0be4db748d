#include "schema/tracepoint_plan.h"

#include "common/byte_order.h"
#include "schema/names.h"

namespace rastrace::schema {

namespace {

struct ControlType {
  bool field = false;
  FieldType type = FieldType::kHex;
  uint8_t size = 0;
};

ControlType TypeOf(tsf::FmtControl control) {
  switch (control) {
    case tsf::FmtControl::kByte:
      return {true, FieldType::kHex, 1};
    case tsf::FmtControl::kChar:
      return {true, FieldType::kString, 0};
    case tsf::FmtControl::kWord:
      return {true, FieldType::kHex, 2};
    case tsf::FmtControl::kDwordWords:
    case tsf::FmtControl::kDword:
    case tsf::FmtControl::kFarPointer:
      return {true, FieldType::kHex, 4};
    case tsf::FmtControl::kQword:
      return {true, FieldType::kHex, 8};
    case tsf::FmtControl::kString:
      return {true, FieldType::kString, 0};
    case tsf::FmtControl::kHexBytes:
      return {true, FieldType::kBytes, 0};
    default:
      return {};
  }
}

}  // namespace

TracepointPlan DeriveTracepointPlan(std::span<const tsf::FmtLineItems> lines) {
  TracepointPlan plan;
  std::vector<std::string> names;
  for (const tsf::FmtLineItems& line : lines) {
    std::string label;  // the text since the last control on this line
    for (const tsf::FmtItem& item : line) {
      if (item.control == tsf::FmtControl::kLiteral) {
        label += item.literal;
        plan.item_fields.push_back(-1);
        continue;
      }
      const ControlType type = TypeOf(item.control);
      if (!type.field) {
        if (item.control != tsf::FmtControl::kPrefixOnly) label.clear();
        plan.item_fields.push_back(-1);
        continue;
      }
      // "Major = %X  Minor = %Y" shows no data; "EAX = %D" names it by what stands right before.
      names.push_back(FieldNameFromLabel(label));
      label.clear();
      plan.fields.push_back(Field{{}, type.type, type.size});
      plan.item_fields.push_back(static_cast<int16_t>(plan.fields.size() - 1));
    }
  }
  MakeUnique(names);
  for (size_t i = 0; i < names.size(); ++i) plan.fields[i].name = std::move(names[i]);
  return plan;
}

void RunTracepointPlan(const TracepointPlan& plan, std::span<const tsf::FmtLineItems> lines,
                       const tsf::FmtRecord& record, std::vector<Value>& values) {
  values.assign(plan.fields.size(), Value{});
  tsf::RecordReader reader(record);
  size_t index = 0;
  for (const tsf::FmtLineItems& line : lines) {
    for (const tsf::FmtItem& item : line) {
      const int16_t field = index < plan.item_fields.size() ? plan.item_fields[index] : -1;
      ++index;
      const tsf::FmtTake take = reader.Take(item);
      if (field < 0 || take.kind != tsf::FmtTake::Kind::kData) continue;
      Value& v = values[static_cast<size_t>(field)];
      v.present = true;
      const Field& f = plan.fields[static_cast<size_t>(field)];
      const std::string_view text(reinterpret_cast<const char*>(take.bytes.data()),
                                  take.bytes.size());
      switch (f.type) {
        case FieldType::kString:
          v.text = text.substr(0, text.find('\0'));
          break;
        case FieldType::kBytes:
          v.text = text;
          break;
        default:
          v.integer = LoadUnsigned(take.bytes.data(), take.bytes.size(), ByteOrder::kLittle);
          break;
      }
    }
  }
}

}  // namespace rastrace::schema
