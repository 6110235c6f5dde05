#include "util/data_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kforge::util {
namespace {

namespace fs = std::filesystem;

TEST(IsDataDir, NeedsTheWorkerPackage) {
  const fs::path root = fs::temp_directory_path() / "kforge_data_dir_test";
  fs::remove_all(root);
  fs::create_directories(root / "worker" / "kforge_worker");
  EXPECT_FALSE(is_data_dir(root));
  std::ofstream(root / "worker" / "kforge_worker" / "__main__.py") << "\n";
  EXPECT_TRUE(is_data_dir(root));
  fs::remove_all(root);
}

TEST(FindDataDir, FindsTheCheckoutThisTestWasBuiltIn) {
  auto data = find_data_dir();
  ASSERT_TRUE(data);
  EXPECT_TRUE(fs::exists(*data / "prompts"));
  EXPECT_TRUE(fs::exists(*data / "library"));
}

}  // namespace
}  // namespace kforge::util
