#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat_protocol.h"
#include "llm/price_table.h"
#include "llm/retry_policy.h"
#include "util/error.h"

namespace kforge::llm {

/// The wire format a provider speaks.
enum class Api { kOpenAi, kAnthropic, kLibrary, kExec, kReplay };

std::string_view to_string(Api api);

/// A provider by name: fills base URL, default model and the variable that holds the key.
struct ProviderPreset {
  std::string_view name;
  Api api = Api::kOpenAi;
  std::string_view base_url;
  /// Usual environment variable of this provider's key; empty = local server, no key needed.
  std::string_view key_env;
  /// Empty = the user must name one (local servers serve whatever they loaded).
  std::string_view default_model;
};

/// deepseek, openai, openrouter, anthropic, vllm, sglang, ollama, llamacpp, library, exec, replay.
const std::vector<ProviderPreset>& provider_presets();
/// nullptr when `name` is no preset.
const ProviderPreset* find_preset(std::string_view name);

/// Everything needed to build a Provider (make_provider in provider_factory.h): the endpoint, the
/// key and where it came from, limits, retries and prices. Built by load_provider_config from
/// presets, the config file, the environment and the command line.
struct ProviderConfig {
  /// Preset or user-defined provider name, used in messages and run names.
  std::string name = "deepseek";
  Api api = Api::kOpenAi;
  std::string base_url;
  std::string model;
  /// The secret. Never print, log or write it anywhere.
  std::string api_key;
  /// Where the key came from: an environment variable's name or "config file <path>"; empty when
  /// there is no key.
  std::string api_key_source;
  /// The variables that were looked at for the key, for the "no key" message.
  std::vector<std::string> api_key_variables;
  /// Hosted endpoints need a key; local servers do not.
  bool needs_key = true;
  bool stream = true;
  int max_concurrent_requests = 4;
  double connect_timeout_s = 10;
  /// Time-out of one attempt, seconds, for stages without their own (see run_attempts: an
  /// attempt past it is not abandoned, the next one starts beside it).
  double request_timeout_s = 900;
  /// Per-stage time-outs ("seed" → 3600), overriding request_timeout_s.
  std::map<std::string, double, std::less<>> stage_request_timeout_s;
  /// The shell command of the `exec` provider (`sh -c`), which reads the request as JSON on stdin
  /// and writes the reply on stdout.
  std::string command;
  /// The run directory the `replay` provider answers from.
  std::string replay_dir;
  /// A streamed reply that sends nothing for this long is abandoned (and retried), seconds.
  double stall_timeout_s = 120;
  RetryPolicy retry;
  ProtocolOptions protocol;
  PriceTable prices = PriceTable::defaults();
  /// The kernel library's folders (the `library` provider, src/library): the data folder's
  /// library/, then the config file's `library_dirs`.
  std::vector<std::filesystem::path> library_dirs;
  /// The config file that was read; empty when none.
  std::string config_file;

  /// The time-out of one attempt of `stage`: its own, else request_timeout_s.
  double request_timeout_for(std::string_view stage) const;
};

/// What the command line (or its environment variables, KFORGE_PROVIDER …) says; empty or
/// nullopt = not given.
struct ConfigOverrides {
  /// --config / KFORGE_CONFIG; empty = ~/.config/kforge/config.toml when it exists.
  std::string config_path;
  std::string provider;
  std::string model;
  std::string base_url;
  std::optional<bool> stream;
  std::optional<int> max_concurrent_requests;
  /// --request-timeout: the default and per-stage time-outs (parse_request_timeouts).
  std::optional<double> request_timeout_s;
  std::map<std::string, double, std::less<>> stage_request_timeout_s;
  /// --command (exec provider) and --from (replay provider).
  std::string command;
  std::string replay_dir;
};

/// The stages a per-stage time-out may name: seed, repair, analysis, optimise, tune_grid,
/// tune_tiling, tune_memory.
const std::vector<std::string_view>& timeout_stages();

/// Parses the value of --request-timeout into `overrides`: comma-separated items, each a number
/// of seconds (every stage) or STAGE=SECONDS ("1200,seed=3600,optimise=3600"). Errors name the
/// flag: "failed to read --request-timeout: unknown stage 'seeds' (seed, repair, …)".
util::Result<void> parse_request_timeouts(std::string_view text, ConfigOverrides& overrides);

/// Reads an environment variable; nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The process environment (std::getenv).
EnvLookup process_environment();

/// Builds the provider configuration. Precedence, lowest first: the preset; the config file's top
/// level (its model and base_url only when the file's `provider` is the one chosen); the file's
/// `[providers.<name>]` table; the command line. The key comes from the config's `api_key_env`
/// or the preset's variable (DEEPSEEK_API_KEY …), then KFORGE_API_KEY, then the file's `api_key`.
/// A missing key is not an error here (make_provider reports it), so `kforge doctor` can show the
/// rest. Errors: unreadable or malformed config file (with line and column), unknown keys, unknown
/// provider, no model for a preset without a default.
///
/// Config file (TOML; JSON with the same structure also works):
///
///     provider = "deepseek"
///     model = "deepseek-reasoner"
///     max_concurrent_requests = 4
///     [providers.mybox]            # a provider of one's own
///     api = "openai"
///     base_url = "http://gpu-box:8000/v1"
///     model = "Qwen/Qwen3-32B"
///     [prices."deepseek-reasoner"] # USD per million tokens
///     input = 0.28
///     output = 0.42
///     cached_input = 0.028
util::Result<ProviderConfig> load_provider_config(const ConfigOverrides& overrides,
                                                  const EnvLookup& env = process_environment());

}  // namespace kforge::llm
