#include "query/result_printer.h"

#include <gtest/gtest.h>

namespace rastrace::query {
namespace {

class Printer : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(":memory:");
    ASSERT_TRUE(db);
    db_ = std::make_unique<Database>(std::move(db).value());
  }
  std::string Print(const std::string& sql, OutputMode mode, bool headers = true) {
    char* data = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    ResultPrinter printer(out, mode);
    printer.set_headers(headers);
    auto statement = db_->Prepare(sql);
    EXPECT_TRUE(statement) << statement.error().message;
    if (statement) {
      EXPECT_TRUE(printer.Print(*statement));
    }
    EXPECT_TRUE(printer.Flush());
    std::fclose(out);
    std::string text(data, size);
    std::free(data);
    return text;
  }
  std::unique_ptr<Database> db_;
};

constexpr const char* kRows =
    "SELECT 1 AS n, 'a,b' AS s, NULL AS z, x'00ff' AS b, 2.5 AS r UNION ALL "
    "SELECT 12345, 'say \"hi\"', 'é', x'', -1e300";

TEST_F(Printer, TextAlignsColumnsAndRightAlignsNumbers) {
  EXPECT_EQ(Print(kRows, OutputMode::kText),
            "    n  s         z     b             r\n"
            "-----  --------  ----  ----  ---------\n"
            "    1  a,b       NULL  00ff        2.5\n"
            "12345  say \"hi\"  é           -1.0e+300\n");
  EXPECT_EQ(Print("SELECT 1 AS n", OutputMode::kText, false), "1\n");
}

TEST_F(Printer, CsvQuotesWhatNeedsIt) {
  EXPECT_EQ(Print(kRows, OutputMode::kCsv),
            "n,s,z,b,r\n"
            "1,\"a,b\",,00ff,2.5\n"
            "12345,\"say \"\"hi\"\"\",é,,-1.0e+300\n");
}

TEST_F(Printer, JsonIsOneArrayOfObjects) {
  EXPECT_EQ(Print(kRows, OutputMode::kJson),
            "[\n"
            "{\"n\":1,\"s\":\"a,b\",\"z\":null,\"b\":\"00ff\",\"r\":2.5},\n"
            "{\"n\":12345,\"s\":\"say \\\"hi\\\"\",\"z\":\"é\",\"b\":\"\",\"r\":-1.0e+300}\n"
            "]\n");
  EXPECT_EQ(Print("SELECT 1 WHERE 0", OutputMode::kJson), "[]\n");
  EXPECT_EQ(Print("SELECT 9e999 AS inf", OutputMode::kJson), "[\n{\"inf\":null}\n]\n");
}

TEST_F(Printer, StatementsWithoutColumnsPrintNothing) {
  EXPECT_EQ(Print("CREATE TABLE t(x)", OutputMode::kText), "");
}

TEST_F(Printer, AFailureMidwayKeepsTheRowsBeforeIt) {
  auto statement = db_->Prepare(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
      "SELECT CASE WHEN i < 3 THEN i ELSE abs(-9223372036854775807 - 1) END FROM n");
  ASSERT_TRUE(statement);
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  ResultPrinter printer(out, OutputMode::kCsv);
  auto printed = printer.Print(*statement);
  (void)printer.Flush();
  std::fclose(out);
  const std::string text(data, size);
  std::free(data);
  ASSERT_FALSE(printed);
  EXPECT_EQ(printed.error().message, "integer overflow");
  EXPECT_EQ(text, "CASE WHEN i < 3 THEN i ELSE abs(-9223372036854775807 - 1) END\n1\n2\n");
}

TEST(OutputModes, NamesParse) {
  EXPECT_EQ(*ParseOutputMode("csv"), OutputMode::kCsv);
  EXPECT_EQ(*ParseOutputMode("column"), OutputMode::kText);
  EXPECT_FALSE(ParseOutputMode("xml"));
}

}  // namespace
}  // namespace rastrace::query
