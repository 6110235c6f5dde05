#include "util/error.h"

#include <gtest/gtest.h>

namespace kforge::util {
namespace {

TEST(Error, ContextKeepsTheKind) {
  Error cause{"no such file", ErrorKind::kEnvironment};
  Error wrapped = cause.context("failed to load task {}", "t.py");
  EXPECT_EQ(wrapped.message, "failed to load task t.py: no such file");
  EXPECT_EQ(wrapped.kind, ErrorKind::kEnvironment);
}

TEST(Error, DefaultsToBadInput) {
  EXPECT_EQ(Error{"x"}.kind, ErrorKind::kBadInput);
  EXPECT_EQ(fail("failed to read {}", "x").error().kind, ErrorKind::kBadInput);
}

TEST(Fail, TakesAKind) {
  auto error = fail(ErrorKind::kCandidateFault, "worker died: {}", "signal 11").error();
  EXPECT_EQ(error.message, "worker died: signal 11");
  EXPECT_EQ(error.kind, ErrorKind::kCandidateFault);
  EXPECT_EQ(error.as(ErrorKind::kInternal).kind, ErrorKind::kInternal);
}

}  // namespace
}  // namespace kforge::util
