#include "prompts/library_example.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kforge::prompts {
namespace {

class LibraryExampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge_library_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    add("gelu", R"({"task": "tasks/gelu.py", "candidate": "candidate.py"})", "# gelu kernel");
    add("gru_hn",
        R"({"source": "candidate.py", "tasks": ["40_GRUHidden"], "signature": {"type": "gru", "returns": "h_n"}})",
        "# gru hn kernel");
    add("gru_out",
        R"({"source": "candidate.py", "tasks": ["39_GRU"], "signature": {"type": "gru", "returns": "output"}})",
        "# gru out kernel");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void add(const std::string& name, const std::string& meta, const std::string& source) {
    std::filesystem::create_directories(root_ / name);
    std::ofstream(root_ / name / "meta.json") << meta;
    std::ofstream(root_ / name / "candidate.py") << source;
  }
  std::filesystem::path root_;
};

TEST_F(LibraryExampleTest, PrefersTheTaskItselfThenTheSamePattern) {
  auto gelu = find_library_example({root_}, "tasks/gelu.py", "x");
  ASSERT_TRUE(gelu.has_value());
  EXPECT_EQ(gelu->name, "gelu");
  EXPECT_EQ(gelu->why, "verified for this task");
  std::string gru_hidden = "self.gru = nn.GRU(8, 16)\n...\n        return h_n\n";
  auto related = find_library_example({root_}, "tasks/my_gru_hidden.py", gru_hidden);
  ASSERT_TRUE(related.has_value());
  EXPECT_EQ(related->name, "gru_hn");
  EXPECT_EQ(related->why, "same gru pattern, returning h_n");
  EXPECT_FALSE(find_library_example({root_}, "tasks/matmul.py", "torch.matmul").has_value());
  EXPECT_FALSE(find_library_example({root_}, "tasks/gelu.py", "x", 5).has_value());
}

}  // namespace
}  // namespace kforge::prompts
