#include "cli/pool_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/exit_code.h"

namespace kforge::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SplitCommand, SplitsWordsAndHonoursQuotes) {
  EXPECT_THAT(*split_command(""), IsEmpty());
  EXPECT_THAT(*split_command("  srun --gres=gpu:1 "), ElementsAre("srun", "--gres=gpu:1"));
  EXPECT_THAT(*split_command("ssh -o 'ProxyJump bastion' \"gpu host\""),
              ElementsAre("ssh", "-o", "ProxyJump bastion", "gpu host"));
  EXPECT_THAT(*split_command("env A=''"), ElementsAre("env", "A="));
  auto open = split_command("ssh 'host");
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().message, "failed to read --launcher: unterminated ' quote in ssh 'host");
}

TEST(ParseDevice, AcceptsCudaAndCpu) {
  EXPECT_EQ(*parse_device("cuda"), eval::Device::kCuda);
  EXPECT_EQ(*parse_device("cpu"), eval::Device::kCpu);
  EXPECT_EQ(parse_device("gpu").error().message,
            "failed to read --device: expected cuda or cpu, got gpu");
}

TEST(CheckInputFile, ExplainsWhatIsWrong) {
  EXPECT_TRUE(check_input_file("task", KFORGE_TEST_DATA "/fake_worker.py"));
  EXPECT_EQ(check_input_file("task", "").error().message, "failed to read task: no --task given");
  EXPECT_EQ(check_input_file("task", "/nonexistent/t.py").error().message,
            "failed to read task /nonexistent/t.py: no such file");
  EXPECT_EQ(check_input_file("candidate", KFORGE_TEST_DATA).error().message,
            "failed to read candidate " KFORGE_TEST_DATA ": not a regular file");
}

TEST(MakePoolOptions, TakesDeviceGpusAndLauncher) {
  Options options;
  options.device = "cpu";
  options.gpus = {4, 5, 6};
  options.launcher = "env";
  options.python = "/remote/python3";
  options.worker_dir = "/remote/worker";
  options.verbose = true;
  auto pool = make_pool_options(options, 1);
  ASSERT_TRUE(pool) << pool.error().message;
  EXPECT_EQ(pool->device, eval::Device::kCpu);
  EXPECT_THAT(pool->gpus, ElementsAre(4));
  EXPECT_THAT(pool->launcher, ElementsAre("env"));
  EXPECT_EQ(pool->python, "/remote/python3");
  EXPECT_EQ(pool->worker_dir, "/remote/worker");
  EXPECT_TRUE(pool->forward_stderr);
}

TEST(CheckGpus, RefusesAGpuListedTwiceOnCuda) {
  EXPECT_TRUE(check_gpus(eval::Device::kCuda, {0, 1}));
  EXPECT_TRUE(check_gpus(eval::Device::kCpu, {0, 0}));  // CPU workers: no timings to disturb
  auto twice = check_gpus(eval::Device::kCuda, {0, 1, 0});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().kind, util::ErrorKind::kBadInput);
  EXPECT_EQ(twice.error().message,
            "failed to read --gpus: GPU 0 is listed twice: workers sharing a GPU disturb each "
            "other's timings (honest candidates read slower or are rejected); give each GPU "
            "once");
  EXPECT_EQ(check_gpus(eval::Device::kCpu, {-1}).error().message,
            "failed to read --gpus: expected GPU indices, got -1");
  Options options;
  options.device = "cuda";
  options.gpus = {2, 2};
  options.python = "/remote/python3";
  options.worker_dir = "/remote/worker";
  options.launcher = "env";
  EXPECT_FALSE(make_pool_options(options, 0));
}

TEST(ExitCodeFor, MapsEachErrorKind) {
  using util::ErrorKind;
  EXPECT_EQ(exit_code_for(ErrorKind::kBadInput), kExitUsage);
  EXPECT_EQ(exit_code_for(ErrorKind::kEnvironment), kExitEnvironment);
  EXPECT_EQ(exit_code_for(ErrorKind::kCandidateFault), kExitFailed);
  EXPECT_EQ(exit_code_for(ErrorKind::kModelFault), kExitFailed);
  EXPECT_EQ(exit_code_for(ErrorKind::kInternal), kExitFailed);
  // the kind, not the text, decides
  EXPECT_EQ(exit_code_for(util::Error{"failed to start worker: x", ErrorKind::kBadInput}),
            kExitUsage);
  EXPECT_EQ(exit_code_for(util::Error{"no such file"}.context("failed to load task t.py")),
            kExitUsage);
}

}  // namespace
}  // namespace kforge::cli
