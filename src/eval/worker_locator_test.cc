#include "eval/worker_locator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "util/data_dir.h"

namespace kforge::eval {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

/// Unsets an environment variable for the scope of a test and restores it after.
class ScopedUnset {
 public:
  explicit ScopedUnset(const char* name) : name_(name) {
    if (const char* value = std::getenv(name)) saved_ = value;
    ::unsetenv(name);
  }
  ~ScopedUnset() {
    if (saved_) ::setenv(name_, saved_->c_str(), 1);
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

void touch(const fs::path& path, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\n";
  if (executable) ::chmod(path.c_str(), 0755);
}

class WorkerLocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // one folder per test process: ctest runs this fixture's tests in parallel
    repo_ = fs::path(::testing::TempDir()) / ("kforge_locator_repo_" + std::to_string(::getpid()));
    fs::remove_all(repo_);
    touch(repo_ / "worker" / "kforge_worker" / "__main__.py");
  }
  void TearDown() override { fs::remove_all(repo_); }

  fs::path repo_;
  ScopedUnset python_env_{"KFORGE_PYTHON"};
  ScopedUnset worker_env_{"KFORGE_WORKER_DIR"};
};

TEST_F(WorkerLocatorTest, PrefersTheRepoVenv) {
  touch(repo_ / ".venv" / "bin" / "python3", /*executable=*/true);
  auto location = locate_worker({.repo = repo_});
  ASSERT_TRUE(location) << location.error().message;
  EXPECT_EQ(location->python, (repo_ / ".venv" / "bin" / "python3").string());
  EXPECT_EQ(location->worker_dir, repo_ / "worker");
}

TEST_F(WorkerLocatorTest, FallsBackToPython3OnPath) {
  auto location = locate_worker({.repo = repo_});
  if (!location) GTEST_SKIP() << "no python3 on PATH: " << location.error().message;
  EXPECT_EQ(location->python, "python3");
}

TEST_F(WorkerLocatorTest, FlagBeatsEnvironmentBeatsVenv) {
  touch(repo_ / ".venv" / "bin" / "python3", true);
  touch(repo_ / "env-python", true);
  touch(repo_ / "flag-python", true);
  ::setenv("KFORGE_PYTHON", (repo_ / "env-python").c_str(), 1);
  auto from_env = locate_worker({.repo = repo_});
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->python, (repo_ / "env-python").string());
  auto from_flag = locate_worker({.python = (repo_ / "flag-python").string(), .repo = repo_});
  ASSERT_TRUE(from_flag);
  EXPECT_EQ(from_flag->python, (repo_ / "flag-python").string());
}

TEST_F(WorkerLocatorTest, WorkerDirFromFlagOrEnvironment) {
  touch(repo_ / ".venv" / "bin" / "python3", true);
  touch(repo_ / "elsewhere" / "kforge_worker" / "__init__.py");
  ::setenv("KFORGE_WORKER_DIR", (repo_ / "elsewhere").c_str(), 1);
  auto location = locate_worker({.repo = repo_});
  ASSERT_TRUE(location) << location.error().message;
  EXPECT_EQ(location->worker_dir, repo_ / "elsewhere");
}

TEST_F(WorkerLocatorTest, MissingPackageIsExplained) {
  touch(repo_ / ".venv" / "bin" / "python3", true);
  auto location = locate_worker({.worker_dir = (repo_ / "nowhere").string(), .repo = repo_});
  ASSERT_FALSE(location);
  EXPECT_EQ(location.error().message,
            "failed to find the worker: " + (repo_ / "nowhere").string() +
                " has no kforge_worker package (set --worker-dir or KFORGE_WORKER_DIR)");
}

TEST_F(WorkerLocatorTest, MissingPythonIsExplained) {
  auto path = locate_worker({.python = "/nonexistent/python3", .repo = repo_});
  ASSERT_FALSE(path);
  EXPECT_EQ(path.error().message,
            "failed to find python: /nonexistent/python3 is not an executable file (set --python "
            "or KFORGE_PYTHON)");
  auto name = locate_worker({.python = "kforge-no-such-python", .repo = repo_});
  ASSERT_FALSE(name);
  EXPECT_THAT(name.error().message, HasSubstr("no kforge-no-such-python on PATH"));
}

TEST_F(WorkerLocatorTest, RemoteWorkersAreNotCheckedLocally) {
  auto location = locate_worker(
      {.python = "/remote/python3", .worker_dir = "/remote/worker", .repo = repo_, .remote = true});
  ASSERT_TRUE(location) << location.error().message;
  EXPECT_EQ(location->python, "/remote/python3");
  EXPECT_EQ(location->worker_dir, "/remote/worker");
}

TEST(FindDataDir, FindsThisCheckout) {
  auto repo = util::find_data_dir();
  ASSERT_TRUE(repo);
  EXPECT_TRUE(fs::exists(*repo / "worker" / "kforge_worker"));
}

}  // namespace
}  // namespace kforge::eval
