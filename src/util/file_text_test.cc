#include "util/file_text.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kforge::util {
namespace {

TEST(ReadFile, ReturnsTheBytesAsTheyAre) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "kforge_read_file_test.bin";
  std::ofstream(path, std::ios::binary) << std::string("a\r\nb\0c", 6);
  auto text = read_file(path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, std::string("a\r\nb\0c", 6));
  std::filesystem::remove(path);
}

TEST(ReadFile, SaysWhichFileCannotBeOpened) {
  auto missing = read_file("/nonexistent/kforge.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "failed to read /nonexistent/kforge.txt: cannot open it");
}

}  // namespace
}  // namespace kforge::util
