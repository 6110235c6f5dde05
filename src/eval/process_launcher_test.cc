#include "eval/process_launcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

LaunchSpec shell(std::string script) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", std::move(script)};
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"GREETING", "hello there"}};
  return spec;
}

/// Running, and not a zombie.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

std::unique_ptr<Process> start(const LaunchSpec& spec) {
  auto launched = make_process_launcher()->launch(spec);
  EXPECT_TRUE(launched) << launched.error().message;
  return launched ? std::move(*launched) : nullptr;
}

TEST(ExitStatusDescribe, NamesCodesAndSignals) {
  EXPECT_EQ((ExitStatus{false, 1}).describe(), "exit code 1");
  EXPECT_EQ((ExitStatus{true, 11}).describe(), "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ((ExitStatus{true, 9}).describe(), "killed by signal 9 (SIGKILL)");
}

TEST(ProcessLauncher, EchoesLinesAndPassesEnvironment) {
  auto process = start(shell("echo \"$GREETING\"; while read line; do echo \"got $line\"; done"));
  ASSERT_TRUE(process);
  LineRead first = process->read_line(Clock::now() + 5s);
  ASSERT_EQ(first.kind, LineRead::Kind::kLine);
  EXPECT_EQ(first.line, "hello there");
  ASSERT_TRUE(process->write_line("ping"));
  LineRead second = process->read_line(Clock::now() + 5s);
  EXPECT_EQ(second.line, "got ping");
  process->close_stdin();
  EXPECT_EQ(process->read_line(Clock::now() + 5s).kind, LineRead::Kind::kClosed);
  auto status = process->wait(Clock::now() + 5s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "exit code 0");
}

TEST(ProcessLauncher, ReadTimesOut) {
  auto process = start(shell("sleep 30"));
  ASSERT_TRUE(process);
  auto begin = Clock::now();
  EXPECT_EQ(process->read_line(Clock::now() + 200ms).kind, LineRead::Kind::kTimeout);
  auto waited = Clock::now() - begin;
  EXPECT_GE(waited, 190ms);
  EXPECT_LT(waited, 2s);
  EXPECT_FALSE(process->wait(Clock::now() + 50ms));
  process->kill_group();
  auto status = process->wait(Clock::now() + 5s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "killed by signal 9 (SIGKILL)");
}

TEST(ProcessLauncher, KillReachesTheWholeGroup) {
  // The shell starts a grandchild that would outlive it; the group kill takes both.
  auto process = start(shell("sleep 30 & echo $!; wait"));
  ASSERT_TRUE(process);
  LineRead pid_line = process->read_line(Clock::now() + 5s);
  ASSERT_EQ(pid_line.kind, LineRead::Kind::kLine);
  pid_t grandchild = std::stoi(pid_line.line);
  ASSERT_TRUE(alive(grandchild));
  process->kill_group();
  ASSERT_TRUE(process->wait(Clock::now() + 5s));
  // The grandchild was reparented; dead means gone or a zombie waiting for its new parent.
  bool dead = false;
  for (int i = 0; i < 100 && !dead; ++i) {
    dead = !alive(grandchild);
    if (!dead) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(dead);
}

TEST(ProcessLauncher, ReportsSignalDeathAndStderrTail) {
  auto process = start(shell("echo one >&2; echo two >&2; printf three >&2; kill -SEGV $$"));
  ASSERT_TRUE(process);
  EXPECT_EQ(process->read_line(Clock::now() + 5s).kind, LineRead::Kind::kClosed);
  auto status = process->wait(Clock::now() + 5s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(process->stderr_tail(2), "two\nthree");
  EXPECT_EQ(process->stderr_tail(10), "one\ntwo\nthree");
}

TEST(ProcessLauncher, DrainsLargeStderrWhileReading) {
  // 2 MB on stderr would block a child whose stderr nobody reads; the reply must still arrive.
  auto process =
      start(shell("head -c 2000000 /dev/zero | tr '\\0' 'x' | fold -w 1000 >&2; echo done"));
  ASSERT_TRUE(process);
  LineRead read = process->read_line(Clock::now() + 10s);
  ASSERT_EQ(read.kind, LineRead::Kind::kLine);
  EXPECT_EQ(read.line, "done");
  EXPECT_EQ(process->stderr_tail(1).size(), 1000u);
}

TEST(ProcessLauncher, WritesStderrLogAndPartialLastLine) {
  std::string log = ::testing::TempDir() + "/kforge_launcher_test.log";
  std::remove(log.c_str());
  LaunchSpec spec = shell("echo first >&2; printf last >&2");
  spec.stderr_log = log;
  {
    auto process = start(spec);
    ASSERT_TRUE(process);
    ASSERT_TRUE(process->wait(Clock::now() + 5s));
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "first\nlast\n");
}

TEST(ProcessLauncher, MissingProgramIsAnError) {
  LaunchSpec spec;
  spec.argv = {"kforge-no-such-program"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  auto launched = make_process_launcher()->launch(spec);
  ASSERT_FALSE(launched);
  EXPECT_EQ(launched.error().message,
            "failed to start kforge-no-such-program: no such program on PATH");

  spec.argv = {"/nonexistent/python3"};
  launched = make_process_launcher()->launch(spec);
  ASSERT_FALSE(launched);
  EXPECT_EQ(launched.error().message,
            "failed to start /nonexistent/python3: No such file or directory");
}

TEST(ProcessLauncher, WriteToExitedChildIsAnErrorNotSigpipe) {
  auto process = start(shell("exit 0"));
  ASSERT_TRUE(process);
  ASSERT_TRUE(process->wait(Clock::now() + 5s));
  // Fill past any pipe buffer: the reader is gone, so a write must fail with EPIPE.
  util::Result<void> written;
  for (int i = 0; i < 100 && written; ++i) written = process->write_line(std::string(4096, 'x'));
  ASSERT_FALSE(written);
  EXPECT_THAT(written.error().message, HasSubstr("Broken pipe"));
}

TEST(ProcessLauncher, DestructorKillsARunningChild) {
  pid_t pid = 0;
  {
    auto process = start(shell("sleep 30"));
    ASSERT_TRUE(process);
    pid = process->pid();
  }
  EXPECT_FALSE(alive(pid));
}

TEST(ProcessLauncherDeathTest, FatalSignalTakesChildrenAlong) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string pid_file = ::testing::TempDir() + "/kforge_signal_test.pid";
  std::remove(pid_file.c_str());
  EXPECT_EXIT(
      {
        auto process =
            make_process_launcher()->launch(shell("sleep 30 & echo $! > " + pid_file + "; wait"));
        if (!process) std::_Exit(1);
        for (int i = 0; i < 500 && !std::ifstream(pid_file).good(); ++i)
          std::this_thread::sleep_for(10ms);
        std::this_thread::sleep_for(20ms);
        ::raise(SIGTERM);
        std::_Exit(2);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  in >> grandchild;
  ASSERT_GT(grandchild, 0);
  bool dead = false;
  for (int i = 0; i < 100 && !dead; ++i) {
    dead = !alive(grandchild);
    if (!dead) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(dead);
}

TEST(CurrentEnvironment, SeesVariables) {
  ::setenv("KFORGE_LAUNCHER_TEST_VAR", "x=y", 1);
  auto env = current_environment();
  ::unsetenv("KFORGE_LAUNCHER_TEST_VAR");
  bool found = false;
  for (const auto& [name, value] : env)
    if (name == "KFORGE_LAUNCHER_TEST_VAR") found = value == "x=y";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace kforge::eval
