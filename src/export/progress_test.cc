#include "export/progress.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace rastrace::exporter {
namespace {

TEST(ExportProgress, LineShowsBarPercentSizesAndRate) {
  Progress progress("export csv", 4 * 1024 * 1024, /*enabled=*/false);
  EXPECT_EQ(progress.Line(1024 * 1024, 1000, 2.0),
            "export csv: [#######.......................]  25% 1.0 MiB / 4.0 MiB, 1000 events "
            "(500/s)");
  Progress unknown("merge", 0, false);
  EXPECT_EQ(unknown.Line(2048, 10, 1.0), "merge: 2.0 KiB read, 10 events (10/s)");
}

TEST(ExportProgress, DisabledProgressWritesNothing) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    Progress progress("export", 100, /*enabled=*/false, out);
    for (int i = 0; i < 100000; ++i) progress.Update(50, static_cast<uint64_t>(i));
  }
  EXPECT_EQ(std::ftell(out), 0);
  std::fclose(out);
}

}  // namespace
}  // namespace rastrace::exporter
