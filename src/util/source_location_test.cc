#include "util/source_location.h"

#include <gtest/gtest.h>

namespace kforge::util {
namespace {

TEST(FormatLocatedError, PointsAtTheColumn) {
  std::string text = "import torch\nclass Model(nn.Module):\n    def forward(self x):\n";
  EXPECT_EQ(format_located_error({"t.py", 3, 21}, text, "invalid syntax"),
            "t.py:3:21: invalid syntax\n    "
            "    def forward(self x):\n"
            "    " +
                std::string(20, ' ') + "^");
}

TEST(FormatLocatedError, WholeLineWithoutColumn) {
  EXPECT_EQ(format_located_error({"t.py", 2, 0}, "a\nbad line\n", "no get_inputs() defined"),
            "t.py:2: no get_inputs() defined\n    bad line");
}

TEST(FormatLocatedError, NoLineGivesFileOnly) {
  EXPECT_EQ(format_located_error({"t.py", 0, 0}, "x", "empty"), "t.py: empty");
}

TEST(LocationOfOffset, CountsLinesAndColumns) {
  SourceLocation location = location_of_offset("r.json", "{\n  \"a\": x\n}", 9);
  EXPECT_EQ(location.line, 2u);
  EXPECT_EQ(location.column, 8u);
}

}  // namespace
}  // namespace kforge::util
