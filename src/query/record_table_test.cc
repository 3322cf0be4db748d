#include "query/record_table.h"

#include <gtest/gtest.h>

#include <random>

namespace rastrace::query {
namespace {

struct Row {
  std::optional<int64_t> number;
  std::optional<std::string> text;
  std::optional<std::string> blob;
};

std::unique_ptr<RecordTable> MakeTable() {
  auto table = RecordTable::Create(
      "test",
      {{"number", ValueType::kInt}, {"text", ValueType::kText}, {"blob", ValueType::kBlob}});
  EXPECT_TRUE(table) << (table ? "" : table.error().message);
  return table ? std::move(table).value() : nullptr;
}

void Add(RecordTable& table, const Row& row) {
  table.Optional(row.number);
  if (row.text) {
    table.Text(*row.text);
  } else {
    table.Null();
  }
  if (row.blob) {
    table.Blob(std::span(reinterpret_cast<const uint8_t*>(row.blob->data()), row.blob->size()));
  } else {
    table.Null();
  }
  ASSERT_TRUE(table.EndRow());
}

void ExpectRow(const RecordTable::Reader& reader, const Row& row, uint64_t index) {
  const auto& v = reader.values();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(!v[0].null, row.number.has_value()) << "row " << index;
  if (row.number && !v[0].null) {
    EXPECT_EQ(v[0].number, *row.number) << "row " << index;
  }
  EXPECT_EQ(!v[1].null, row.text.has_value()) << "row " << index;
  if (row.text && !v[1].null) {
    EXPECT_EQ(v[1].bytes, *row.text) << "row " << index;
  }
  EXPECT_EQ(!v[2].null, row.blob.has_value()) << "row " << index;
  if (row.blob && !v[2].null) {
    EXPECT_EQ(v[2].bytes, *row.blob) << "row " << index;
  }
}

// Random rows (extreme integers, empty and long strings, NULLs) read back in order, at random
// and backwards: every path of the sparse index.
TEST(RecordTable, RowsReadBackAsWritten) {
  auto table = MakeTable();
  ASSERT_TRUE(table);
  std::mt19937_64 random(7);
  std::vector<Row> rows;
  const int64_t extremes[] = {0, -1, 1, INT64_MIN, INT64_MAX, 127, 128, -64, -65};
  for (int i = 0; i < 5000; ++i) {
    Row row;
    if (random() % 5 != 0) {
      row.number = i < 9 ? extremes[i] : static_cast<int64_t>(random());
    }
    if (random() % 4 != 0)
      row.text = std::string(random() % 3 == 0 ? 0 : random() % 300, 'a' + i % 26);
    if (random() % 3 == 0) row.blob = std::string(random() % 40, static_cast<char>(i));
    rows.push_back(row);
    Add(*table, row);
  }
  EXPECT_EQ(table->rows(), 0u) << "rows are readable only after Finish";
  ASSERT_TRUE(table->Finish());
  ASSERT_EQ(table->rows(), rows.size());
  RecordTable::Reader reader(*table);
  for (uint64_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(reader.Seek(i));
    ExpectRow(reader, rows[i], i);
  }
  for (int n = 0; n < 500; ++n) {
    const uint64_t i = random() % rows.size();
    ASSERT_TRUE(reader.Seek(i));
    ExpectRow(reader, rows[i], i);
  }
  for (uint64_t i = rows.size(); i-- > 0;) {
    ASSERT_TRUE(reader.Seek(i));
    ExpectRow(reader, rows[i], i);
  }
  EXPECT_FALSE(reader.Seek(rows.size()));
}

TEST(RecordTable, AShortRowIsAnErrorNotACorruptTable) {
  auto table = MakeTable();
  ASSERT_TRUE(table);
  table->Int(1);
  EXPECT_FALSE(table->EndRow());
}

TEST(RecordTable, RowsAddedAfterFinishNeedAnotherFinish) {
  auto table = MakeTable();
  ASSERT_TRUE(table);
  Add(*table, {1, "one", std::nullopt});
  ASSERT_TRUE(table->Finish());
  Add(*table, {2, "two", std::nullopt});
  EXPECT_EQ(table->rows(), 1u);
  ASSERT_TRUE(table->Finish());
  RecordTable::Reader reader(*table);
  ASSERT_TRUE(reader.Seek(1));
  EXPECT_EQ(reader.values()[1].bytes, "two");
}

}  // namespace
}  // namespace rastrace::query
