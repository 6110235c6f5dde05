#include "cli/pool_config.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include "cli/commands.h"
#include "eval/worker_locator.h"

namespace kforge::cli {

util::Result<std::vector<std::string>> split_command(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote)
    return util::fail("failed to read --launcher: unterminated {} quote in {}", quote, text);
  if (in_word) words.push_back(std::move(word));
  return words;
}

util::Result<eval::Device> parse_device(std::string_view text) {
  auto device = eval::parse_device(text);
  if (!device) return std::unexpected(device.error().context("failed to read --device"));
  return device;
}

util::Result<void> check_gpus(eval::Device device, const std::vector<int>& gpus) {
  std::set<int> seen;
  for (int gpu : gpus) {
    if (gpu < 0) return util::fail("failed to read --gpus: expected GPU indices, got {}", gpu);
    if (!seen.insert(gpu).second && device == eval::Device::kCuda)
      return util::fail(
          "failed to read --gpus: GPU {} is listed twice: workers sharing a GPU disturb each "
          "other's timings (honest candidates read slower or are rejected); give each GPU once",
          gpu);
  }
  return {};
}

util::Result<eval::PoolOptions> make_pool_options(const Options& options, std::size_t max_workers) {
  eval::PoolOptions pool;
  auto device = parse_device(options.device);
  if (!device) return std::unexpected(device.error());
  pool.device = *device;
  if (auto gpus = check_gpus(pool.device, options.gpus); !gpus)
    return std::unexpected(gpus.error());
  auto launcher = split_command(options.launcher);
  if (!launcher) return std::unexpected(launcher.error());
  pool.launcher = *launcher;
  auto location = eval::locate_worker({.python = options.python,
                                       .worker_dir = options.worker_dir,
                                       .remote = !pool.launcher.empty()});
  if (!location) return std::unexpected(location.error().as(util::ErrorKind::kEnvironment));
  pool.python = location->python;
  pool.worker_dir = location->worker_dir;
  pool.gpus = options.gpus;
  if (max_workers > 0 && pool.gpus.size() > max_workers) pool.gpus.resize(max_workers);
  pool.forward_stderr = options.verbose;
  return pool;
}

util::Result<StartedPool> start_worker_pool(const Options& options, PoolStart start) {
  auto pool_options = make_pool_options(options, start.max_workers);
  if (!pool_options) return std::unexpected(pool_options.error());
  pool_options->evaluations = start.evaluations;
  StartedPool started{eval::make_worker_pool(*pool_options), {}};
  if (!start.hello) return started;
  auto info = started.pool->hello();
  if (!info) return std::unexpected(info.error().as(util::ErrorKind::kEnvironment));
  started.info = *info;
  return started;
}

util::Result<void> require_cuda_device(eval::Device device, const eval::WorkerInfo& info,
                                       std::string_view hint) {
  if (device == eval::Device::kCuda && !info.cuda && !info.device_name)
    return util::fail(util::ErrorKind::kEnvironment,
                      "failed to use cuda: the worker's torch {} has no CUDA device ({})",
                      info.torch, hint);
  return {};
}

util::Result<void> check_input_file(std::string_view what, const std::string& path) {
  if (path.empty()) return util::fail("failed to read {}: no --{} given", what, what);
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    return util::fail("failed to read {} {}: no such file", what, path);
  if (!std::filesystem::is_regular_file(status))
    return util::fail("failed to read {} {}: not a regular file", what, path);
  if (::access(path.c_str(), R_OK) != 0)
    return util::fail("failed to read {} {}: permission denied", what, path);
  return {};
}

}  // namespace kforge::cli
