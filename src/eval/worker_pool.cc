#include "eval/worker_pool.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "eval/process_launcher.h"
#include "eval/protocol_codec.h"

namespace kforge::eval {

namespace {

constexpr std::size_t kDeathTailLines = 20;
constexpr double kReapSeconds = 5;
/// Set in every worker's environment (launch_spec): NCCL, PyTorch and NVSHMEM keep NVLink
/// multicast off.
constexpr std::pair<const char*, const char*> kNoMulticast[] = {
    {"NCCL_NVLS_ENABLE", "0"},
    {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"},
    {"NVSHMEM_DISABLE_NVLS", "1"}};

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(std::max(0.0, seconds)));
}

/// Environment variables that look like credentials: a worker runs model-written code and must
/// never see them.
bool is_secret(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view suffix :
       {"_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS", "_COOKIE"})
    if (upper.size() >= suffix.size() && upper.ends_with(suffix)) return true;
  for (std::string_view part : {"API_KEY", "SECRET", "PASSWORD", "ACCESS_KEY"})
    if (upper.find(part) != std::string::npos) return true;
  return false;
}

/// The last non-empty line of `text`.
std::string last_line(std::string_view text) {
  while (!text.empty()) {
    std::size_t newline = text.rfind('\n');
    std::string_view line = newline == std::string_view::npos ? text : text.substr(newline + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return std::string(line);
    if (newline == std::string_view::npos) break;
    text = text.substr(0, newline);
  }
  return {};
}

/// How one request/reply exchange with a worker ended.
struct Exchange {
  enum class Kind { kReply, kDied, kTimeout, kMalformed };
  Kind kind = Kind::kDied;
  Reply reply;
  /// For kDied: how it ended ("exit code 1"); for kMalformed: the located parse error.
  std::string detail;
  /// The worker's last stderr lines (kDied, kTimeout).
  std::string stderr_tail;
};

/// One worker slot: a GPU (or the default device) and, once started, its process.
struct Worker {
  std::size_t index = 0;
  std::optional<int> gpu;
  std::unique_ptr<Process> process;
  std::optional<WorkerInfo> info;
  bool busy = false;
  int failed_starts = 0;
  /// Set after `start_attempts` consecutive failed starts: the slot is not tried again.
  std::optional<util::Error> broken;
};

class Pool final : public WorkerPool {
 public:
  Pool(PoolOptions options, std::shared_ptr<ProcessLauncher> launcher)
      : options_(std::move(options)), launcher_(std::move(launcher)) {
    std::size_t count = std::max<std::size_t>(1, options_.gpus.size());
    workers_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      workers_[i].index = i;
      if (i < options_.gpus.size()) workers_[i].gpu = options_.gpus[i];
    }
  }

  ~Pool() override { shutdown(); }

  util::Result<WorkerInfo> hello() override {
    auto lease = acquire();
    if (!lease) return std::unexpected(lease.error());
    Worker& worker = **lease;
    Release release{this, &worker};
    if (auto started = ensure_started(worker); !started) return std::unexpected(started.error());
    return *worker.info;
  }

  util::Result<Evaluation> evaluate(const EvalRequest& request) override {
    auto lease = acquire();
    if (!lease) return std::unexpected(lease.error());
    Worker& worker = **lease;
    Release release{this, &worker};
    if (auto started = ensure_started(worker); !started) return std::unexpected(started.error());

    std::int64_t id = next_id_++;
    double limit = request.timeout_s + options_.grace_s;
    Exchange exchange = transact(worker, encode_evaluate_request(id, request), id, limit);
    switch (exchange.kind) {
      case Exchange::Kind::kReply: {
        if (exchange.reply.poisoned) {
          spdlog::debug("worker {}: CUDA context poisoned; restarting it", worker.index);
          stop(worker);
        }
        if (!exchange.reply.ok)
          return util::fail("failed to evaluate {}: {}", request.candidate.string(),
                            exchange.reply.error);
        auto evaluation = decode_evaluation(exchange.reply.result_json);
        if (!evaluation) return verdict(Status::kCrashed, evaluation.error().message);
        return *evaluation;
      }
      case Exchange::Kind::kDied:
        return verdict(Status::kCrashed, died_message(exchange));
      case Exchange::Kind::kTimeout:
        return verdict(Status::kTimeout, timeout_message(exchange, request.timeout_s));
      case Exchange::Kind::kMalformed:
        return verdict(Status::kCrashed, exchange.detail);
    }
    return verdict(Status::kCrashed, "unreachable");
  }

  util::Result<BaselineResult> baseline(const BaselineRequest& request) override {
    auto reply = serve([&](std::int64_t id) { return encode_baseline_request(id, request); },
                       request.timeout_s);
    if (!reply)
      return std::unexpected(
          reply.error().context("failed to time the baseline of {}", request.task.string()));
    return decode_baseline(*reply);
  }

  util::Result<std::string> inspect_task(const InspectTaskRequest& request) override {
    return serve([&](std::int64_t id) { return encode_inspect_task_request(id, request); },
                 request.timeout_s);
  }

  util::Result<std::string> analyze(const AnalyzeRequest& request) override {
    return serve([&](std::int64_t id) { return encode_analyze_request(id, request); },
                 request.timeout_s);
  }

  std::size_t size() const override { return workers_.size(); }

 private:
  /// Gives a leased worker back on scope exit.
  struct Release {
    Pool* pool;
    Worker* worker;
    ~Release() { pool->release(*worker); }
  };

  util::Result<Worker*> acquire() {
    std::unique_lock lock(mutex_);
    while (true) {
      Worker* best = nullptr;
      bool any_usable = false;
      for (Worker& worker : workers_) {
        if (worker.broken) continue;
        any_usable = true;
        if (worker.busy) continue;
        if (!best || (worker.process && !best->process)) best = &worker;
      }
      if (!any_usable) return std::unexpected(*workers_.front().broken);
      if (best) {
        best->busy = true;
        return best;
      }
      free_.wait(lock);
    }
  }

  void release(Worker& worker) {
    {
      std::lock_guard lock(mutex_);
      worker.busy = false;
    }
    free_.notify_all();
  }

  /// Sends the request line `encode` writes for a fresh id and returns the result text; every
  /// failure is an error. A poisoned worker is restarted after answering.
  util::Result<std::string> serve(const std::function<std::string(std::int64_t)>& encode,
                                  double timeout_s) {
    auto lease = acquire();
    if (!lease) return std::unexpected(lease.error());
    Worker& worker = **lease;
    Release release{this, &worker};
    if (auto started = ensure_started(worker); !started) return std::unexpected(started.error());
    std::int64_t id = next_id_++;
    Exchange exchange = transact(worker, encode(id), id, timeout_s + options_.grace_s);
    switch (exchange.kind) {
      case Exchange::Kind::kReply:
        if (exchange.reply.poisoned) stop(worker);
        if (!exchange.reply.ok) return util::fail("{}", exchange.reply.error);
        return exchange.reply.result_json;
      case Exchange::Kind::kDied:
        return util::fail(util::ErrorKind::kCandidateFault, "{}", died_message(exchange));
      case Exchange::Kind::kTimeout:
        return util::fail(util::ErrorKind::kCandidateFault, "{}",
                          timeout_message(exchange, timeout_s));
      case Exchange::Kind::kMalformed:
        return util::fail(util::ErrorKind::kInternal, "{}", exchange.detail);
    }
    return util::fail(util::ErrorKind::kInternal, "unreachable");
  }

  static Evaluation verdict(Status status, std::string error) {
    Evaluation evaluation;
    evaluation.status = status;
    evaluation.error = std::move(error);
    return evaluation;
  }

  static std::string died_message(const Exchange& exchange) {
    std::string message = fmt::format("worker died: {}", exchange.detail);
    if (!exchange.stderr_tail.empty())
      message += fmt::format(", stderr tail:\n{}", exchange.stderr_tail);
    return message;
  }

  std::string timeout_message(const Exchange& exchange, double limit_s) const {
    std::string message = fmt::format(
        "timed out: no answer from the worker within {:g} s (limit {:g} s + grace {:g} s); the "
        "worker was killed",
        limit_s + options_.grace_s, limit_s, options_.grace_s);
    if (!exchange.stderr_tail.empty())
      message += fmt::format(", stderr tail:\n{}", exchange.stderr_tail);
    return message;
  }

  std::string command_text() const {
    std::string text;
    for (const std::string& part : options_.launcher) text += part + " ";
    return text + fmt::format("{} -m {}", options_.python, options_.module);
  }

  LaunchSpec launch_spec(const Worker& worker) const {
    std::vector<std::pair<std::string, std::string>> settings;
    if (worker.gpu) settings.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(*worker.gpu));
    // NVLink multicast stays off in every worker, whatever the caller's environment says: a
    // program that uses it can put a host's shared GPUs out of service (the GPU machines' rule).
    for (const auto& [name, value] : kNoMulticast) settings.emplace_back(name, value);
    if (options_.device == Device::kCpu) {
      settings.emplace_back("TRITON_INTERPRET", "1");
      settings.emplace_back("KFORGE_DEVICE", "cpu");
    } else {
      settings.emplace_back("KFORGE_DEVICE", "cuda");
    }
    if (options_.evaluations)
      settings.emplace_back("KFORGE_EVALUATIONS", std::to_string(*options_.evaluations));

    LaunchSpec spec;
    std::string existing_pythonpath;
    for (auto& [name, value] : current_environment()) {
      if (is_secret(name)) continue;
      // A TRITON_INTERPRET=1 left in the user's shell would turn a GPU worker into a CPU one.
      if (name == "TRITON_INTERPRET" && options_.device == Device::kCuda) continue;
      if (name == "PYTHONPATH") {
        existing_pythonpath = value;
        continue;
      }
      bool overridden = std::any_of(settings.begin(), settings.end(),
                                    [&](const auto& setting) { return setting.first == name; });
      if (!overridden) spec.env.emplace_back(name, value);
    }
    std::string worker_dir = options_.worker_dir.string();
    std::string pythonpath =
        existing_pythonpath.empty() ? worker_dir : worker_dir + ":" + existing_pythonpath;
    spec.env.emplace_back("PYTHONPATH", pythonpath);
    for (const auto& setting : settings) spec.env.push_back(setting);

    spec.argv = options_.launcher;
    if (!options_.launcher.empty()) {
      // A launcher (ssh, srun) may not carry our environment to the far side: say it again.
      spec.argv.push_back("env");
      spec.argv.push_back("PYTHONPATH=" + worker_dir);
      for (const auto& [name, value] : settings) spec.argv.push_back(name + "=" + value);
    }
    spec.argv.push_back(options_.python);
    spec.argv.push_back("-m");
    spec.argv.push_back(options_.module);
    if (!options_.log_dir.empty())
      spec.stderr_log = options_.log_dir / fmt::format("worker-{}.log", worker.index);
    spec.forward_stderr = options_.forward_stderr;
    spec.stderr_prefix = fmt::format("[worker {}] ", worker.index);
    return spec;
  }

  util::Result<void> ensure_started(Worker& worker) {
    if (worker.broken) return std::unexpected(*worker.broken);
    if (worker.process) {
      // A worker that died while idle is restarted before it is blamed for the next request.
      if (auto status = worker.process->wait(Clock::now())) {
        spdlog::debug("worker {} exited while idle ({}); restarting it", worker.index,
                      status->describe());
        worker.process.reset();
        worker.info.reset();
      } else {
        return {};
      }
    }
    while (true) {
      auto started = start(worker);
      if (started) {
        worker.failed_starts = 0;
        return {};
      }
      ++worker.failed_starts;
      spdlog::debug("worker {}: {}", worker.index, started.error().message);
      if (worker.failed_starts >= std::max(1, options_.start_attempts)) {
        std::lock_guard lock(mutex_);
        worker.broken = started.error();
        return std::unexpected(started.error());
      }
    }
  }

  util::Result<void> start(Worker& worker) {
    auto process = launcher_->launch(launch_spec(worker));
    if (!process)
      return util::fail(util::ErrorKind::kEnvironment, "failed to start worker: {}",
                        process.error().message);
    worker.process = std::move(*process);
    std::int64_t id = next_id_++;
    Exchange exchange = transact(worker, encode_hello_request(id), id, options_.start_timeout_s);
    std::string command = command_text();
    switch (exchange.kind) {
      case Exchange::Kind::kReply: {
        if (!exchange.reply.ok) {
          stop(worker);
          return util::fail(util::ErrorKind::kEnvironment,
                            "failed to start worker: {} refused hello: {}", command,
                            exchange.reply.error);
        }
        auto info = decode_worker_info(exchange.reply.result_json);
        if (!info) {
          stop(worker);
          return util::fail(util::ErrorKind::kEnvironment, "failed to start worker: {}: {}",
                            command, info.error().message);
        }
        worker.info = std::move(*info);
        return {};
      }
      case Exchange::Kind::kDied: {
        std::string cause = last_line(exchange.stderr_tail);
        return util::fail(
            util::ErrorKind::kEnvironment, "failed to start worker: {} {}{}{}", command,
            exchange.detail.starts_with("exit code ") ? "exited " + exchange.detail.substr(10)
                                                      : exchange.detail,
            cause.empty() ? "" : ": ", cause);
      }
      case Exchange::Kind::kTimeout: {
        std::string cause = last_line(exchange.stderr_tail);
        return util::fail(util::ErrorKind::kEnvironment,
                          "failed to start worker: {} did not answer hello within {:g} s{}{}",
                          command, options_.start_timeout_s, cause.empty() ? "" : ": ", cause);
      }
      case Exchange::Kind::kMalformed:
        return util::fail(util::ErrorKind::kEnvironment, "failed to start worker: {}: {}", command,
                          exchange.detail);
    }
    return util::fail(util::ErrorKind::kEnvironment, "failed to start worker: unreachable");
  }

  /// Writes `line` and waits up to `limit_s` for the reply with `id`. Anything but a reply
  /// leaves the worker stopped (killed and reaped), to be restarted on next use.
  Exchange transact(Worker& worker, const std::string& line, std::int64_t id, double limit_s) {
    Process& process = *worker.process;
    Exchange exchange;
    Clock::time_point deadline = after(limit_s);
    if (!process.write_line(line)) return died(worker);
    while (true) {
      LineRead read = process.read_line(deadline);
      if (read.kind == LineRead::Kind::kTimeout) {
        exchange.kind = Exchange::Kind::kTimeout;
        process.kill_group();
        process.wait(after(kReapSeconds));
        exchange.stderr_tail = process.stderr_tail(kDeathTailLines);
        stop(worker);
        return exchange;
      }
      if (read.kind == LineRead::Kind::kClosed) return died(worker);
      if (read.line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto reply = decode_reply(read.line);
      if (!reply) {
        exchange.kind = Exchange::Kind::kMalformed;
        exchange.detail = fmt::format("the worker broke the protocol: {}", reply.error().message);
        stop(worker);
        return exchange;
      }
      if (reply->id && *reply->id != id) {
        spdlog::debug("worker {}: ignoring a reply to request {} (waiting for {})", worker.index,
                      *reply->id, id);
        continue;
      }
      exchange.kind = Exchange::Kind::kReply;
      exchange.reply = std::move(*reply);
      return exchange;
    }
  }

  /// The worker closed its stdout or stdin: collect how it ended and its last words.
  Exchange died(Worker& worker) {
    Process& process = *worker.process;
    Exchange exchange;
    exchange.kind = Exchange::Kind::kDied;
    std::optional<ExitStatus> status = process.wait(after(1));
    if (!status) {
      process.kill_group();
      status = process.wait(after(kReapSeconds));
    }
    exchange.detail = status ? status->describe() : "closed its output and would not exit";
    exchange.stderr_tail = process.stderr_tail(kDeathTailLines);
    stop(worker);
    return exchange;
  }

  /// Kills and reaps the worker's process (if any); the next use starts a new one.
  void stop(Worker& worker) {
    if (!worker.process) return;
    worker.process->kill_group();
    worker.process->wait(after(kReapSeconds));
    worker.process.reset();
    worker.info.reset();
  }

  void shutdown() {
    std::int64_t id = next_id_++;
    for (Worker& worker : workers_)
      if (worker.process) {
        (void)worker.process->write_line(encode_shutdown_request(id));
        worker.process->close_stdin();
      }
    Clock::time_point deadline = after(options_.shutdown_grace_s);
    for (Worker& worker : workers_) {
      if (!worker.process) continue;
      if (!worker.process->wait(deadline))
        spdlog::debug("worker {} did not exit after shutdown; killing it", worker.index);
      stop(worker);
    }
  }

  PoolOptions options_;
  std::shared_ptr<ProcessLauncher> launcher_;
  std::mutex mutex_;
  std::condition_variable free_;
  std::vector<Worker> workers_;
  std::atomic<std::int64_t> next_id_{1};
};

}  // namespace

std::unique_ptr<WorkerPool> make_worker_pool(const PoolOptions& options) {
  return make_worker_pool(options, std::shared_ptr<ProcessLauncher>(make_process_launcher()));
}

std::unique_ptr<WorkerPool> make_worker_pool(const PoolOptions& options,
                                             std::shared_ptr<ProcessLauncher> launcher) {
  return std::make_unique<Pool>(options, std::move(launcher));
}

BaselineRequest baseline_request(const EvalSettings& settings, const std::filesystem::path& task) {
  BaselineRequest request;
  request.task = task;
  request.device = settings.device;
  request.shrink = settings.shrink;
  request.trials = settings.trials;
  request.warmup = settings.warmup;
  request.flush_l2 = settings.flush_l2;
  request.timeout_s = settings.baseline_timeout_s();
  return request;
}

}  // namespace kforge::eval
