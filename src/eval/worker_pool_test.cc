#include "eval/worker_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "eval/process_launcher.h"

namespace kforge::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// A scripted launcher: each request line goes to a handler that says what the "worker" does.

/// What a scripted worker does with one request.
struct Response {
  enum class Kind { kReply, kDie, kSilent };
  Kind kind = Kind::kReply;
  /// Lines written to stdout (kReply; may be several, e.g. a stale reply first).
  std::vector<std::string> lines;
  ExitStatus exit;
  std::string stderr_text;
};

Response reply(json message) {
  return {Response::Kind::kReply, {message.dump()}, {}, {}};
}
Response die(ExitStatus status, std::string stderr_text) {
  return {Response::Kind::kDie, {}, status, std::move(stderr_text)};
}
Response silence() {
  return {Response::Kind::kSilent, {}, {}, {}};
}

json hello_result(int launch) {
  return {{"worker_version", "0.1.0"}, {"torch", "2.13.0"}, {"triton", "3.6.0"},
          {"device", nullptr},         {"interpret", true}, {"pid", 1000 + launch}};
}

json ok_evaluation() {
  return {{"status", "ok"},
          {"correctness", {{"pass_calibrated", true}, {"max_abs_err", 1e-6}}},
          {"score", 1.5}};
}

/// What one fake process saw and how it ended; shared with the test.
struct FakeRecord {
  int launch = 0;
  LaunchSpec spec;
  std::vector<json> requests;
  bool killed = false;
  bool stdin_closed = false;
  std::optional<ExitStatus> exit;
};

using Handler = std::function<Response(const json& request, int launch)>;

class FakeProcess final : public Process {
 public:
  FakeProcess(std::shared_ptr<FakeRecord> record, Handler handler, std::mutex& mutex)
      : record_(std::move(record)), handler_(std::move(handler)), mutex_(mutex) {}

  int pid() const override { return 1000 + record_->launch; }

  util::Result<void> write_line(std::string_view line) override {
    std::lock_guard lock(mutex_);
    if (record_->exit || record_->stdin_closed) return util::fail("failed to write: Broken pipe");
    json request = json::parse(line);
    record_->requests.push_back(request);
    Response response;
    if (request["op"] == "shutdown") {
      response = reply({{"id", request["id"]}, {"ok", true}, {"result", json::object()}});
      record_->exit = ExitStatus{false, 0};
    } else {
      response = handler_(request, record_->launch);
    }
    stderr_ += response.stderr_text;
    if (response.kind == Response::Kind::kDie) record_->exit = response.exit;
    for (std::string& out : response.lines) lines_.push_back(std::move(out));
    return {};
  }

  LineRead read_line(Clock::time_point) override {
    std::lock_guard lock(mutex_);
    if (!lines_.empty()) {
      LineRead read{LineRead::Kind::kLine, lines_.front()};
      lines_.pop_front();
      return read;
    }
    if (record_->exit) return {LineRead::Kind::kClosed, {}};
    return {LineRead::Kind::kTimeout, {}};  // silence: the deadline "passes" at once
  }

  void close_stdin() override {
    std::lock_guard lock(mutex_);
    record_->stdin_closed = true;
  }

  std::optional<ExitStatus> wait(Clock::time_point) override {
    std::lock_guard lock(mutex_);
    return record_->exit;
  }

  void kill_group() override {
    std::lock_guard lock(mutex_);
    if (record_->exit) return;
    record_->killed = true;
    record_->exit = ExitStatus{true, SIGKILL};
  }

  std::string stderr_tail(std::size_t) override {
    std::lock_guard lock(mutex_);
    return stderr_;
  }

 private:
  std::shared_ptr<FakeRecord> record_;
  Handler handler_;
  std::mutex& mutex_;
  std::deque<std::string> lines_;
  std::string stderr_;
};

class FakeLauncher final : public ProcessLauncher {
 public:
  explicit FakeLauncher(Handler handler) : handler_(std::move(handler)) {}

  util::Result<std::unique_ptr<Process>> launch(const LaunchSpec& spec) override {
    std::lock_guard lock(mutex_);
    if (launch_error_) return util::fail("{}", *launch_error_);
    auto record = std::make_shared<FakeRecord>();
    record->launch = static_cast<int>(records_.size());
    record->spec = spec;
    records_.push_back(record);
    return std::make_unique<FakeProcess>(record, handler_, mutex_);
  }

  std::size_t launches() {
    std::lock_guard lock(mutex_);
    return records_.size();
  }
  std::shared_ptr<FakeRecord> record(std::size_t i) {
    std::lock_guard lock(mutex_);
    return records_.at(i);
  }
  void fail_launches(std::string message) { launch_error_ = std::move(message); }

 private:
  Handler handler_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<FakeRecord>> records_;
  std::optional<std::string> launch_error_;
};

/// A handler for the usual exchange: hello answered, evaluate answered by `evaluate`.
Handler worker(std::function<Response(const json& request, int launch)> evaluate) {
  return [evaluate](const json& request, int launch) {
    if (request["op"] == "hello")
      return reply({{"id", request["id"]}, {"ok", true}, {"result", hello_result(launch)}});
    return evaluate(request, launch);
  };
}

Response ok_reply(const json& request) {
  return reply({{"id", request["id"]}, {"ok", true}, {"result", ok_evaluation()}});
}

PoolOptions fake_options() {
  PoolOptions options;
  options.python = "python3";
  options.worker_dir = "/opt/kforge/worker";
  options.grace_s = 0.1;
  options.start_timeout_s = 1;
  options.shutdown_grace_s = 0.1;
  return options;
}

EvalRequest eval_request(std::string candidate = "/c/cand.py") {
  EvalRequest request;
  request.task = "/t/task.py";
  request.candidate = std::move(candidate);
  request.timeout_s = 0.2;
  return request;
}

TEST(WorkerPool, StartsLazilyAndSaysHelloOnce) {
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  auto pool = make_worker_pool(fake_options(), launcher);
  EXPECT_EQ(pool->size(), 1u);
  EXPECT_EQ(launcher->launches(), 0u);
  auto info = pool->hello();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->torch, "2.13.0");
  EXPECT_EQ(info->pid, 1000);
  ASSERT_TRUE(pool->evaluate(eval_request()));
  EXPECT_EQ(launcher->launches(), 1u);
  auto record = launcher->record(0);
  ASSERT_EQ(record->requests.size(), 2u);
  EXPECT_EQ(record->requests[0]["op"], "hello");
  EXPECT_EQ(record->requests[1]["op"], "evaluate");
  EXPECT_EQ(record->requests[1]["candidate_path"], "/c/cand.py");
  EXPECT_NE(record->requests[0]["id"], record->requests[1]["id"]);
}

TEST(WorkerPool, EvaluateReturnsTheWorkersVerdict) {
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_TRUE(evaluation) << evaluation.error().message;
  EXPECT_EQ(evaluation->status, Status::kOk);
  EXPECT_EQ(evaluation->score, 1.5);
  EXPECT_THAT(evaluation->raw_json, HasSubstr("\"score\":1.5"));
}

TEST(WorkerPool, DeathMidRequestIsCrashedAndTheNextRequestRestarts) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int) {
    if (r["candidate_path"] == "/c/segv.py")
      return die({true, SIGSEGV}, "Fatal Python error: Segmentation fault\nin kernel");
    return ok_reply(r);
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto crashed = pool->evaluate(eval_request("/c/segv.py"));
  ASSERT_TRUE(crashed) << crashed.error().message;
  EXPECT_EQ(crashed->status, Status::kCrashed);
  EXPECT_EQ(crashed->error,
            "worker died: killed by signal 11 (SIGSEGV), stderr tail:\n"
            "Fatal Python error: Segmentation fault\nin kernel");
  auto next = pool->evaluate(eval_request());
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->status, Status::kOk);
  EXPECT_EQ(launcher->launches(), 2u);
}

TEST(WorkerPool, SilentWorkerTimesOutIsKilledAndRestarted) {
  auto launcher = std::make_shared<FakeLauncher>(
      worker([](const json& r, int launch) { return launch == 0 ? silence() : ok_reply(r); }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto timed_out = pool->evaluate(eval_request());
  ASSERT_TRUE(timed_out) << timed_out.error().message;
  EXPECT_EQ(timed_out->status, Status::kTimeout);
  EXPECT_EQ(timed_out->error,
            "timed out: no answer from the worker within 0.3 s (limit 0.2 s + grace 0.1 s); the "
            "worker was killed");
  EXPECT_TRUE(launcher->record(0)->killed);
  auto next = pool->evaluate(eval_request());
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, Status::kOk);
  EXPECT_EQ(launcher->launches(), 2u);
}

TEST(WorkerPool, PoisonedReplyIsAnsweredThenTheWorkerRestarts) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int launch) {
    json message = {{"id", r["id"]}, {"ok", true}, {"result", ok_evaluation()}};
    if (launch == 0) message["poisoned"] = true;
    return reply(message);
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto first = pool->evaluate(eval_request());
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, Status::kOk);
  EXPECT_TRUE(launcher->record(0)->killed);
  auto info = pool->hello();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->pid, 1001);
  EXPECT_EQ(launcher->launches(), 2u);
}

TEST(WorkerPool, GarbageReplyIsCrashedWithALocatedError) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int launch) {
    if (launch == 0) return Response{Response::Kind::kReply, {"Segfault in kernel"}, {}, {}};
    return ok_reply(r);
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto garbage = pool->evaluate(eval_request());
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, Status::kCrashed);
  EXPECT_THAT(garbage->error,
              StartsWith("the worker broke the protocol: failed to parse worker reply: worker "
                         "reply:1:1: syntax error while parsing value"));
  EXPECT_THAT(garbage->error, HasSubstr("\n    Segfault in kernel\n    ^"));
  EXPECT_TRUE(launcher->record(0)->killed);
  EXPECT_EQ(pool->evaluate(eval_request())->status, Status::kOk);
}

TEST(WorkerPool, MalformedResultIsCrashedButTheWorkerStays) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int) {
    return reply({{"id", r["id"]}, {"ok", true}, {"result", {{"status", "exploded"}}}});
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_TRUE(evaluation);
  EXPECT_EQ(evaluation->status, Status::kCrashed);
  EXPECT_THAT(evaluation->error, HasSubstr("status: unknown status \"exploded\""));
  EXPECT_FALSE(launcher->record(0)->killed);
}

TEST(WorkerPool, RefusedRequestIsAnError) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int) {
    return reply({{"id", r["id"]},
                  {"ok", false},
                  {"error", "failed to load task /t/task.py: no get_inputs() defined"}});
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_FALSE(evaluation);
  EXPECT_EQ(evaluation.error().message,
            "failed to evaluate /c/cand.py: failed to load task /t/task.py: no get_inputs() "
            "defined");
  EXPECT_FALSE(launcher->record(0)->killed);
}

TEST(WorkerPool, StaleRepliesAreSkipped) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int) {
    json stale = {{"id", -3}, {"ok", true}, {"result", {{"status", "crashed"}}}};
    json fresh = {{"id", r["id"]}, {"ok", true}, {"result", ok_evaluation()}};
    return Response{Response::Kind::kReply, {stale.dump(), "", fresh.dump()}, {}, {}};
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_TRUE(evaluation);
  EXPECT_EQ(evaluation->status, Status::kOk);
}

TEST(WorkerPool, StartFailureIsBoundedAndExplained) {
  auto launcher = std::make_shared<FakeLauncher>([](const json&, int) {
    return die({false, 1},
               "Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198\n"
               "ModuleNotFoundError: No module named 'torch'\n");
  });
  PoolOptions options = fake_options();
  options.start_attempts = 3;
  auto pool = make_worker_pool(options, launcher);
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_FALSE(evaluation);
  EXPECT_EQ(evaluation.error().message,
            "failed to start worker: python3 -m kforge_worker exited 1: ModuleNotFoundError: No "
            "module named 'torch'");
  EXPECT_EQ(launcher->launches(), 3u);
  // Given up on: later calls answer at once with the same error.
  auto again = pool->hello();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, evaluation.error().message);
  EXPECT_EQ(launcher->launches(), 3u);
}

TEST(WorkerPool, LaunchErrorIsReported) {
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  launcher->fail_launches("failed to start python3: no such program on PATH");
  auto pool = make_worker_pool(fake_options(), launcher);
  auto info = pool->hello();
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message,
            "failed to start worker: failed to start python3: no such program on PATH");
}

TEST(WorkerPool, HelloTimeoutIsAStartFailure) {
  auto launcher = std::make_shared<FakeLauncher>([](const json&, int) { return silence(); });
  PoolOptions options = fake_options();
  options.start_attempts = 1;
  auto pool = make_worker_pool(options, launcher);
  auto info = pool->hello();
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message,
            "failed to start worker: python3 -m kforge_worker did not answer hello within 1 s");
  EXPECT_TRUE(launcher->record(0)->killed);
}

TEST(WorkerPool, WorkerThatDiedIdleIsRestartedBeforeTheNextRequest) {
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  auto pool = make_worker_pool(fake_options(), launcher);
  ASSERT_TRUE(pool->hello());
  launcher->record(0)->exit = ExitStatus{true, SIGKILL};  // e.g. the OOM killer
  auto evaluation = pool->evaluate(eval_request());
  ASSERT_TRUE(evaluation);
  EXPECT_EQ(evaluation->status, Status::kOk);
  EXPECT_EQ(launcher->launches(), 2u);
}

TEST(WorkerPool, CommandLineAndEnvironment) {
  ::setenv("KFORGE_POOL_TEST_API_KEY", "sk-secret", 1);
  ::setenv("HF_TOKEN", "hf-secret", 1);
  ::setenv("KFORGE_POOL_TEST_PLAIN", "visible", 1);
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  PoolOptions options = fake_options();
  options.gpus = {2, 5};
  options.device = Device::kCpu;
  options.launcher = {"srun", "--gres=gpu:1"};
  options.log_dir = "/tmp/logs";
  {
    auto pool = make_worker_pool(options, launcher);
    EXPECT_EQ(pool->size(), 2u);
    ASSERT_TRUE(pool->hello());
  }
  ::unsetenv("KFORGE_POOL_TEST_API_KEY");
  ::unsetenv("HF_TOKEN");
  ::unsetenv("KFORGE_POOL_TEST_PLAIN");
  const LaunchSpec& spec = launcher->record(0)->spec;
  EXPECT_THAT(spec.argv, ElementsAre("srun", "--gres=gpu:1", "env", "PYTHONPATH=/opt/kforge/worker",
                                     "CUDA_VISIBLE_DEVICES=2", "NCCL_NVLS_ENABLE=0",
                                     "TORCH_SYMM_MEM_DISABLE_MULTICAST=1", "NVSHMEM_DISABLE_NVLS=1",
                                     "TRITON_INTERPRET=1", "KFORGE_DEVICE=cpu", "python3", "-m",
                                     "kforge_worker"));
  std::map<std::string, std::string> env(spec.env.begin(), spec.env.end());
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "2");
  EXPECT_EQ(env["TRITON_INTERPRET"], "1");
  EXPECT_EQ(env["KFORGE_DEVICE"], "cpu");
  EXPECT_THAT(env["PYTHONPATH"], StartsWith("/opt/kforge/worker"));
  EXPECT_EQ(env["KFORGE_POOL_TEST_PLAIN"], "visible");
  EXPECT_FALSE(env.contains("KFORGE_POOL_TEST_API_KEY"));
  EXPECT_FALSE(env.contains("HF_TOKEN"));
  EXPECT_EQ(spec.stderr_log, "/tmp/logs/worker-0.log");
  EXPECT_EQ(spec.stderr_prefix, "[worker 0] ");
  // Shut down politely.
  auto record = launcher->record(0);
  EXPECT_EQ(record->requests.back()["op"], "shutdown");
  EXPECT_TRUE(record->stdin_closed);
  EXPECT_FALSE(record->killed);
}

TEST(WorkerPool, WorkersKeepNvlinkMulticastOffWhateverTheCallerSet) {
  ::setenv("NCCL_NVLS_ENABLE", "1", 1);
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  {
    auto pool = make_worker_pool(fake_options(), launcher);
    ASSERT_TRUE(pool->hello());
  }
  ::unsetenv("NCCL_NVLS_ENABLE");
  const LaunchSpec& spec = launcher->record(0)->spec;
  std::multimap<std::string, std::string> env(spec.env.begin(), spec.env.end());
  EXPECT_EQ(env.count("NCCL_NVLS_ENABLE"), 1u);
  EXPECT_EQ(env.find("NCCL_NVLS_ENABLE")->second, "0");
  EXPECT_EQ(env.find("TORCH_SYMM_MEM_DISABLE_MULTICAST")->second, "1");
  EXPECT_EQ(env.find("NVSHMEM_DISABLE_NVLS")->second, "1");
}

TEST(WorkerPool, SaysHowManyEvaluationsItWillAskForWhenItKnows) {
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  PoolOptions options = fake_options();
  options.evaluations = 1;
  {
    auto pool = make_worker_pool(options, launcher);
    ASSERT_TRUE(pool->hello());
    auto open_ended = make_worker_pool(fake_options(), launcher);
    ASSERT_TRUE(open_ended->hello());
  }
  std::map<std::string, std::string> env(launcher->record(0)->spec.env.begin(),
                                         launcher->record(0)->spec.env.end());
  EXPECT_EQ(env["KFORGE_EVALUATIONS"], "1");
  std::map<std::string, std::string> other(launcher->record(1)->spec.env.begin(),
                                           launcher->record(1)->spec.env.end());
  EXPECT_FALSE(other.contains("KFORGE_EVALUATIONS"));
}

TEST(WorkerPool, CudaWorkersDropAnInheritedTritonInterpret) {
  ::setenv("TRITON_INTERPRET", "1", 1);
  auto launcher =
      std::make_shared<FakeLauncher>(worker([](const json& r, int) { return ok_reply(r); }));
  {
    auto pool = make_worker_pool(fake_options(), launcher);
    ASSERT_TRUE(pool->hello());
  }
  ::unsetenv("TRITON_INTERPRET");
  const LaunchSpec& spec = launcher->record(0)->spec;
  std::map<std::string, std::string> env(spec.env.begin(), spec.env.end());
  EXPECT_FALSE(env.contains("TRITON_INTERPRET"));
  EXPECT_EQ(env["KFORGE_DEVICE"], "cuda");
  EXPECT_THAT(spec.argv, ElementsAre("python3", "-m", "kforge_worker"));
}

TEST(WorkerPool, ConcurrentCallsShareTheWorkers) {
  std::atomic<int> in_flight = 0;
  std::atomic<int> most = 0;
  auto launcher = std::make_shared<FakeLauncher>(worker([&](const json& r, int) {
    int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(5ms);
    --in_flight;
    return ok_reply(r);
  }));
  PoolOptions options = fake_options();
  options.gpus = {0, 1};
  auto pool = make_worker_pool(options, launcher);
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) {
        auto evaluation = pool->evaluate(eval_request());
        if (evaluation && evaluation->status == Status::kOk) ++ok;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ok, 40);
  EXPECT_EQ(launcher->launches(), 2u);
  EXPECT_LE(most, 2);
}

TEST(WorkerPool, BaselineAndRawRequests) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json& r, int) {
    if (r["op"] == "baseline")
      return reply(
          {{"id", r["id"]},
           {"ok", true},
           {"result", {{"eager", {{"median_ms", 42.0}}}, {"cuda_graph", {{"median_ms", 8.7}}}}}});
    if (r["op"] == "analyze")
      return reply({{"id", r["id"]}, {"ok", true}, {"result", {{"jit_functions", 2}}}});
    return reply(
        {{"id", r["id"]}, {"ok", false}, {"error", "failed to serve request: unknown op"}});
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  BaselineRequest request;
  request.task = "/t/task.py";
  auto baseline = pool->baseline(request);
  ASSERT_TRUE(baseline) << baseline.error().message;
  EXPECT_EQ(baseline->eager->median_ms, 42.0);
  EXPECT_EQ(baseline->cuda_graph->median_ms, 8.7);

  auto facts = pool->analyze({.candidate = "/c.py", .timeout_s = 1});
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_EQ(*facts, R"({"jit_functions":2})");

  auto refused = pool->inspect_task({.task = "/t/task.py", .timeout_s = 1});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "failed to serve request: unknown op");
  EXPECT_EQ(refused.error().kind, util::ErrorKind::kBadInput);
}

TEST(WorkerPool, BaselineDeathIsAnError) {
  auto launcher = std::make_shared<FakeLauncher>(worker([](const json&, int) {
    return die({false, 3}, "CUDA error: out of memory");
  }));
  auto pool = make_worker_pool(fake_options(), launcher);
  BaselineRequest request;
  request.task = "/t/task.py";
  auto baseline = pool->baseline(request);
  ASSERT_FALSE(baseline);
  EXPECT_EQ(baseline.error().message,
            "failed to time the baseline of /t/task.py: worker died: exit code 3, stderr tail:\n"
            "CUDA error: out of memory");
}

// ---------------------------------------------------------------------------------------------
// The real launcher against tests/fake_worker.py.

std::string test_python() {
  std::string venv = std::string(KFORGE_TEST_DATA) + "/../.venv/bin/python3";
  return ::access(venv.c_str(), X_OK) == 0 ? venv : "python3";
}

PoolOptions real_options(std::string module = "fake_worker") {
  PoolOptions options;
  options.python = test_python();
  options.worker_dir = KFORGE_TEST_DATA;
  options.module = std::move(module);
  options.device = Device::kCpu;
  options.grace_s = 0.3;
  options.start_timeout_s = 20;
  options.shutdown_grace_s = 2;
  return options;
}

json hello_json(WorkerPool& pool) {
  auto info = pool.hello();
  EXPECT_TRUE(info) << info.error().message;
  return info ? json::parse(info->raw_json) : json();
}

TEST(WorkerPoolRealProcess, CarriesOnAfterCrashExitGarbageAndPoison) {
  auto pool = make_worker_pool(real_options());
  json first = hello_json(*pool);
  EXPECT_EQ(pool->evaluate(eval_request("/c/ok.py"))->status, Status::kOk);

  auto crashed = pool->evaluate(eval_request("/c/crash.py"));
  ASSERT_TRUE(crashed) << crashed.error().message;
  EXPECT_EQ(crashed->status, Status::kCrashed);
  EXPECT_THAT(crashed->error, StartsWith("worker died: killed by signal 11 (SIGSEGV), stderr "
                                         "tail:\nfake worker: about to crash"));
  json second = hello_json(*pool);
  EXPECT_NE(first["pid"], second["pid"]);

  auto exited = pool->evaluate(eval_request("/c/exit3.py"));
  ASSERT_TRUE(exited);
  EXPECT_EQ(exited->error, "worker died: exit code 3, stderr tail:\nfake worker: exiting with 3");

  auto garbage = pool->evaluate(eval_request("/c/garbage.py"));
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, Status::kCrashed);
  EXPECT_THAT(garbage->error, HasSubstr("worker reply:1:2: syntax error"));

  auto poisoned = pool->evaluate(eval_request("/c/poison.py"));
  ASSERT_TRUE(poisoned);
  EXPECT_EQ(poisoned->status, Status::kOk);
  json third = hello_json(*pool);
  json fourth = hello_json(*pool);
  EXPECT_NE(third["pid"], second["pid"]);
  EXPECT_EQ(third["pid"], fourth["pid"]);

  auto wrong = pool->evaluate(eval_request("/c/wrong.py"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, Status::kWrongOutput);
  auto nan = pool->evaluate(eval_request("/c/nan.py"));
  ASSERT_TRUE(nan);
  EXPECT_TRUE(std::isnan(nan->correctness->max_abs_err));
  auto stale = pool->evaluate(eval_request("/c/stale.py"));
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, Status::kOk);
}

TEST(WorkerPoolRealProcess, HangIsKilledWithinItsLimit) {
  auto pool = make_worker_pool(real_options());
  ASSERT_TRUE(pool->hello());
  auto begin = Clock::now();
  auto hung = pool->evaluate(eval_request("/c/hang.py"));  // 0.2 s + 0.3 s grace
  auto took = Clock::now() - begin;
  ASSERT_TRUE(hung);
  EXPECT_EQ(hung->status, Status::kTimeout);
  EXPECT_THAT(hung->error, HasSubstr("within 0.5 s"));
  EXPECT_THAT(hung->error, HasSubstr("fake worker: hanging"));
  EXPECT_GE(took, 450ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ(pool->evaluate(eval_request("/c/ok.py"))->status, Status::kOk);
}

TEST(WorkerPoolRealProcess, StderrFloodDoesNotBlock) {
  auto pool = make_worker_pool(real_options());
  auto flood = pool->evaluate(eval_request("/c/flood.py"));
  ASSERT_TRUE(flood) << flood.error().message;
  EXPECT_EQ(flood->status, Status::kOk);
}

TEST(WorkerPoolRealProcess, EnvironmentReachesTheWorkerWithoutSecrets) {
  ::setenv("FAKE_API_KEY", "sk-secret", 1);
  ::setenv("FAKE_TOKEN", "tok", 1);
  ::setenv("KFORGE_TEST_PLAIN", "plain", 1);
  PoolOptions options = real_options();
  options.gpus = {3};
  auto pool = make_worker_pool(options);
  json hello = hello_json(*pool);
  ::unsetenv("FAKE_API_KEY");
  ::unsetenv("FAKE_TOKEN");
  ::unsetenv("KFORGE_TEST_PLAIN");
  const json& env = hello["env"];
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "3");
  EXPECT_EQ(env["TRITON_INTERPRET"], "1");
  EXPECT_EQ(env["KFORGE_DEVICE"], "cpu");
  EXPECT_EQ(env["KFORGE_TEST_PLAIN"], "plain");
  EXPECT_TRUE(env["FAKE_API_KEY"].is_null());
  EXPECT_TRUE(env["FAKE_TOKEN"].is_null());
  EXPECT_EQ(hello["interpret"], true);
}

TEST(WorkerPoolRealProcess, LauncherPrefixIsPrepended) {
  PoolOptions options = real_options();
  options.launcher = {"env", "KFORGE_TEST_PLAIN=through-launcher"};
  auto pool = make_worker_pool(options);
  json hello = hello_json(*pool);
  EXPECT_EQ(hello["env"]["KFORGE_TEST_PLAIN"], "through-launcher");
  EXPECT_EQ(hello["env"]["TRITON_INTERPRET"], "1");
}

TEST(WorkerPoolRealProcess, ModuleMissingTorchFailsToStartClearly) {
  PoolOptions options = real_options("fake_worker_no_torch");
  options.python = test_python();
  auto pool = make_worker_pool(options);
  auto info = pool->hello();
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message,
            fmt::format("failed to start worker: {} -m fake_worker_no_torch exited 1: "
                        "ModuleNotFoundError: No module named 'torch'",
                        options.python));
}

TEST(WorkerPoolRealProcess, MissingPythonFailsToStartClearly) {
  PoolOptions options = real_options();
  options.python = "/nonexistent/python3";
  auto pool = make_worker_pool(options);
  auto evaluation = pool->evaluate(eval_request("/c/ok.py"));
  ASSERT_FALSE(evaluation);
  EXPECT_EQ(evaluation.error().message,
            "failed to start worker: failed to start /nonexistent/python3: No such file or "
            "directory");
}

TEST(WorkerPoolRealProcess, TwoWorkersServeInParallel) {
  PoolOptions options = real_options();
  options.gpus = {0, 1};
  auto pool = make_worker_pool(options);
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto evaluation = pool->evaluate(eval_request("/c/ok.py"));
      if (evaluation && evaluation->status == Status::kOk) ++ok;
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ok, 4);
}

}  // namespace
}  // namespace kforge::eval
