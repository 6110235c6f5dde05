#include "util/printable.h"

#include <gtest/gtest.h>

namespace kforge::util {
namespace {

TEST(Printable, ControlCharactersBecomeVisibleEscapes) {
  // a candidate's error that would redraw the line as a fake verdict and hide the rest
  EXPECT_EQ(printable("boom\r\x1b[2Kok 4.12x\x1b[8m"), "boom\\x0d\\x1b[2Kok 4.12x\\x1b[8m");
  EXPECT_EQ(printable(std::string("a\0b\x7f", 4)), "a\\x00b\\x7f");
}

TEST(Printable, NewlinesTabsAndUtf8StayAsTheyAre) {
  EXPECT_EQ(printable("line 1\n\tline 2 — ünïcode"), "line 1\n\tline 2 — ünïcode");
}

}  // namespace
}  // namespace kforge::util
