#include "llm/provider_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "llm/json_text.h"
#include "util/data_dir.h"
#include "util/file_text.h"
#include "util/source_location.h"

namespace kforge::llm {

namespace {

using nlohmann::json;

// clang-format off
const std::vector<ProviderPreset> kPresets = {
    {"deepseek",   Api::kOpenAi,    "https://api.deepseek.com",     "DEEPSEEK_API_KEY",   "deepseek-chat"},
    {"openai",     Api::kOpenAi,    "https://api.openai.com/v1",    "OPENAI_API_KEY",     "gpt-4.1"},
    {"openrouter", Api::kOpenAi,    "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "deepseek/deepseek-chat"},
    {"anthropic",  Api::kAnthropic, "https://api.anthropic.com",    "ANTHROPIC_API_KEY",  "claude-sonnet-4-5"},
    {"vllm",       Api::kOpenAi,    "http://localhost:8000/v1",     "",                   ""},
    {"sglang",     Api::kOpenAi,    "http://localhost:30000/v1",    "",                   ""},
    {"ollama",     Api::kOpenAi,    "http://localhost:11434/v1",    "",                   ""},
    {"llamacpp",   Api::kOpenAi,    "http://localhost:8080/v1",     "",                   "default"},
    {"library",    Api::kLibrary,   "",                             "",                   "verified"},
    {"exec",       Api::kExec,      "",                             "",                   "command"},
    {"replay",     Api::kReplay,    "",                             "",                   "recorded"},
};
// clang-format on

/// Keys that describe the endpoint: at the top level of the file they apply only to the file's
/// own provider.
const std::set<std::string, std::less<>> kEndpointKeys = {"api",         "base_url", "model",
                                                          "api_key_env", "api_key",  "command"};
const std::set<std::string, std::less<>> kSettingKeys = {"api",
                                                         "base_url",
                                                         "model",
                                                         "api_key_env",
                                                         "api_key",
                                                         "stream",
                                                         "max_concurrent_requests",
                                                         "max_tokens",
                                                         "thinking_budget_tokens",
                                                         "connect_timeout_s",
                                                         "request_timeout_s",
                                                         "stall_timeout_s",
                                                         "max_attempts",
                                                         "total_deadline_s",
                                                         "initial_backoff_s",
                                                         "max_backoff_s",
                                                         "library_dirs",
                                                         "command",
                                                         "stage_request_timeout_s"};

json toml_to_json(const toml::node& node) {
  if (const toml::table* table = node.as_table()) {
    json out = json::object();
    for (auto&& [key, value] : *table) out[std::string(key.str())] = toml_to_json(value);
    return out;
  }
  if (const toml::array* array = node.as_array()) {
    json out = json::array();
    for (const toml::node& value : *array) out.push_back(toml_to_json(value));
    return out;
  }
  if (auto value = node.value_exact<std::string>()) return *value;
  if (auto value = node.value_exact<std::int64_t>()) return *value;
  if (auto value = node.value_exact<double>()) return *value;
  if (auto value = node.value_exact<bool>()) return *value;
  std::ostringstream text;  // dates and times: kept as text
  node.visit([&text](auto&& v) { text << v; });
  return text.str();
}

util::Result<json> read_config_file(const std::string& path) {
  auto read = util::read_file(path);
  if (!read) return util::fail("failed to read config {}: cannot open it", path);
  std::string text = std::move(*read);
  std::size_t first = text.find_first_not_of(" \t\r\n");
  bool is_json = path.ends_with(".json") || (first != std::string::npos && text[first] == '{');
  if (is_json) {
    util::Result<json> doc = parse_json_text(text, path);
    if (!doc) return util::fail("failed to read config {}: {}", path, doc.error().message);
    if (!doc->is_object()) return util::fail("failed to read config {}: not a JSON object", path);
    return doc;
  }
  try {
    toml::table table = toml::parse(text, path);
    return toml_to_json(table);
  } catch (const toml::parse_error& error) {
    util::SourceLocation location{path, error.source().begin.line, error.source().begin.column};
    return util::fail("failed to read config {}: {}", path,
                      util::format_located_error(location, text, error.description()));
  }
}

std::string default_config_path(const EnvLookup& env) {
  if (auto path = env("KFORGE_CONFIG")) return *path;
  std::filesystem::path base;
  if (auto xdg = env("XDG_CONFIG_HOME"))
    base = *xdg;
  else if (auto home = env("HOME"))
    base = std::filesystem::path(*home) / ".config";
  else
    return {};
  std::filesystem::path candidate = base / "kforge" / "config.toml";
  std::error_code error;
  return std::filesystem::is_regular_file(candidate, error) ? candidate.string() : std::string();
}

/// Applies one table of settings; `where` names it in errors ("top level", "providers.x").
util::Result<void> apply_settings(const json& table, std::string_view where, bool endpoint,
                                  ProviderConfig& config, std::string& key_env,
                                  std::string& file_key) {
  auto number = [&](const char* key, double& out) -> util::Result<void> {
    if (!table.contains(key)) return {};
    if (!table[key].is_number()) return util::fail("{}: {} must be a number", where, key);
    out = table[key].get<double>();
    return {};
  };
  auto integer = [&](const char* key, auto& out) -> util::Result<void> {
    if (!table.contains(key)) return {};
    if (!table[key].is_number_integer()) return util::fail("{}: {} must be an integer", where, key);
    out = table[key].get<int>();
    return {};
  };
  auto text = [&](const char* key, std::string& out) -> util::Result<void> {
    if (!table.contains(key) || (!endpoint && kEndpointKeys.contains(key))) return {};
    if (!table[key].is_string()) return util::fail("{}: {} must be a string", where, key);
    out = table[key].get<std::string>();
    return {};
  };
  for (auto& [key, value] : table.items())
    if (!kSettingKeys.contains(key)) return util::fail("{}: unknown key '{}'", where, key);

  std::string api;
  for (auto result :
       {text("api", api), text("base_url", config.base_url), text("model", config.model),
        text("api_key_env", key_env), text("api_key", file_key), text("command", config.command)})
    if (!result) return result;
  if (!api.empty()) {
    if (api == "openai")
      config.api = Api::kOpenAi;
    else if (api == "anthropic")
      config.api = Api::kAnthropic;
    else if (api == "exec")
      config.api = Api::kExec;
    else
      return util::fail("{}: api must be \"openai\", \"anthropic\" or \"exec\", not \"{}\"", where,
                        api);
  }
  if (table.contains("stage_request_timeout_s")) {
    const json& stages = table["stage_request_timeout_s"];
    if (!stages.is_object())
      return util::fail("{}: stage_request_timeout_s must be a table of stage = seconds", where);
    for (auto& [stage, seconds] : stages.items()) {
      const auto& known = timeout_stages();
      if (std::find(known.begin(), known.end(), stage) == known.end())
        return util::fail("{}: stage_request_timeout_s: unknown stage '{}' ({})", where, stage,
                          fmt::join(known, ", "));
      if (!seconds.is_number() || seconds.get<double>() <= 0)
        return util::fail("{}: stage_request_timeout_s.{} must be a positive number of seconds",
                          where, stage);
      config.stage_request_timeout_s[stage] = seconds.get<double>();
    }
  }
  if (table.contains("stream")) {
    if (!table["stream"].is_boolean()) return util::fail("{}: stream must be true or false", where);
    config.stream = table["stream"].get<bool>();
  }
  int parsed = 0;
  if (table.contains("max_tokens")) {
    if (auto r = integer("max_tokens", parsed); !r) return r;
    config.protocol.default_max_tokens = parsed;
  }
  if (table.contains("thinking_budget_tokens")) {
    if (auto r = integer("thinking_budget_tokens", parsed); !r) return r;
    config.protocol.thinking_budget_tokens = parsed;
  }
  for (auto result : {integer("max_concurrent_requests", config.max_concurrent_requests),
                      integer("max_attempts", config.retry.max_attempts),
                      number("connect_timeout_s", config.connect_timeout_s),
                      number("request_timeout_s", config.request_timeout_s),
                      number("stall_timeout_s", config.stall_timeout_s),
                      number("total_deadline_s", config.retry.total_deadline_s),
                      number("initial_backoff_s", config.retry.initial_backoff_s),
                      number("max_backoff_s", config.retry.max_backoff_s)})
    if (!result) return result;
  if (table.contains("library_dirs")) {
    const json& dirs = table["library_dirs"];
    if (!dirs.is_array()) return util::fail("{}: library_dirs must be a list of paths", where);
    for (const json& dir : dirs) {
      if (!dir.is_string()) return util::fail("{}: library_dirs must be a list of paths", where);
      config.library_dirs.emplace_back(dir.get<std::string>());
    }
  }
  return {};
}

util::Result<void> apply_prices(const json& prices, PriceTable& table) {
  if (!prices.is_object()) return util::fail("prices must be a table of models");
  for (auto& [model, entry] : prices.items()) {
    if (!entry.is_object()) return util::fail("prices.{} must be a table", model);
    ModelPrice price = table.find(model).value_or(ModelPrice{});
    for (auto& [key, value] : entry.items()) {
      if (!value.is_number()) return util::fail("prices.{}.{} must be a number", model, key);
      if (key == "input")
        price.input = value.get<double>();
      else if (key == "output")
        price.output = value.get<double>();
      else if (key == "cached_input")
        price.cached_input = value.get<double>();
      else
        return util::fail("prices.{}: unknown key '{}' (input, output, cached_input)", model, key);
    }
    table.set(model, price);
  }
  return {};
}

std::string preset_names() {
  std::string names;
  for (const ProviderPreset& preset : kPresets)
    names += (names.empty() ? "" : ", ") + std::string(preset.name);
  return names;
}

}  // namespace

std::string_view to_string(Api api) {
  switch (api) {
    case Api::kOpenAi:
      return "openai";
    case Api::kAnthropic:
      return "anthropic";
    case Api::kLibrary:
      return "library";
    case Api::kExec:
      return "exec";
    case Api::kReplay:
      return "replay";
  }
  return "?";
}

const std::vector<ProviderPreset>& provider_presets() {
  return kPresets;
}

const ProviderPreset* find_preset(std::string_view name) {
  for (const ProviderPreset& preset : kPresets)
    if (preset.name == name) return &preset;
  return nullptr;
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

util::Result<ProviderConfig> load_provider_config(const ConfigOverrides& overrides,
                                                  const EnvLookup& env) {
  ProviderConfig config;
  json doc = json::object();
  config.config_file =
      overrides.config_path.empty() ? default_config_path(env) : overrides.config_path;
  if (!config.config_file.empty()) {
    util::Result<json> read = read_config_file(config.config_file);
    if (!read) return std::unexpected(read.error());
    doc = std::move(*read);
  }
  auto config_error = [&](const util::Error& error) {
    return std::unexpected(error.context("failed to load config {}", config.config_file));
  };

  std::string file_provider;
  if (doc.contains("provider")) {
    if (!doc["provider"].is_string()) return config_error(util::Error{"provider must be a string"});
    file_provider = doc["provider"].get<std::string>();
  }
  config.name = !overrides.provider.empty() ? overrides.provider
                : !file_provider.empty()    ? file_provider
                                            : "deepseek";
  json own_table;
  if (doc.contains("providers")) {
    if (!doc["providers"].is_object())
      return config_error(util::Error{"providers must be a table of providers"});
    if (doc["providers"].contains(config.name)) own_table = doc["providers"][config.name];
  }
  const ProviderPreset* preset = find_preset(config.name);
  if (preset == nullptr && own_table.is_null())
    return util::fail(
        "failed to configure provider {}: unknown provider (presets: {}; or define "
        "[providers.{}] in the config file)",
        config.name, preset_names(), config.name);
  if (preset != nullptr) {
    config.api = preset->api;
    config.base_url = preset->base_url;
    config.model = preset->default_model;
    config.needs_key = !preset->key_env.empty();
  } else {
    config.needs_key = false;
  }
  if (auto data = util::find_data_dir()) config.library_dirs.emplace_back(*data / "library");

  json top = doc;
  top.erase("provider");
  top.erase("providers");
  json prices = top.contains("prices") ? top["prices"] : json();
  top.erase("prices");
  std::string key_env, file_key;
  bool file_is_about_this_provider = file_provider.empty() || file_provider == config.name;
  if (auto r =
          apply_settings(top, "top level", file_is_about_this_provider, config, key_env, file_key);
      !r)
    return config_error(r.error());
  if (!own_table.is_null()) {
    if (!own_table.is_object())
      return config_error(util::Error{fmt::format("providers.{} must be a table", config.name)});
    std::string where = "providers." + config.name;
    std::string own_key_env;
    if (auto r = apply_settings(own_table, where, true, config, own_key_env, file_key); !r)
      return config_error(r.error());
    if (!own_key_env.empty()) {
      key_env = own_key_env;
      config.needs_key = true;
    }
  }
  if (!prices.is_null())
    if (auto r = apply_prices(prices, config.prices); !r) return config_error(r.error());

  if (!overrides.model.empty()) config.model = overrides.model;
  if (!overrides.base_url.empty()) config.base_url = overrides.base_url;
  if (overrides.stream) config.stream = *overrides.stream;
  if (overrides.max_concurrent_requests)
    config.max_concurrent_requests = *overrides.max_concurrent_requests;
  if (overrides.request_timeout_s) config.request_timeout_s = *overrides.request_timeout_s;
  for (const auto& [stage, seconds] : overrides.stage_request_timeout_s)
    config.stage_request_timeout_s[stage] = seconds;
  if (!overrides.command.empty()) config.command = overrides.command;
  if (!overrides.replay_dir.empty()) config.replay_dir = overrides.replay_dir;

  if (key_env.empty() && preset != nullptr && !preset->key_env.empty()) key_env = preset->key_env;
  if (!key_env.empty()) config.api_key_variables.push_back(key_env);
  config.api_key_variables.push_back("KFORGE_API_KEY");
  for (const std::string& variable : config.api_key_variables) {
    if (auto key = env(variable)) {
      config.api_key = *key;
      config.api_key_source = variable;
      break;
    }
  }
  if (config.api_key.empty() && !file_key.empty()) {
    config.api_key = file_key;
    config.api_key_source = "config file " + config.config_file;
  }

  if (config.api == Api::kExec && config.command.empty())
    return util::fail(
        "failed to configure provider {}: no command (pass --command \"...\" or set command "
        "in [providers.{}])",
        config.name, config.name);
  if (config.api == Api::kReplay && config.replay_dir.empty())
    return util::fail("failed to configure provider {}: no run to replay (pass --from RUN_DIR)",
                      config.name);
  if (config.api == Api::kOpenAi || config.api == Api::kAnthropic) {
    if (config.base_url.empty())
      return util::fail("failed to configure provider {}: no base_url (pass --base-url)",
                        config.name);
    if (config.model.empty())
      return util::fail(
          "failed to configure provider {}: no model (pass --model with the id the "
          "server serves)",
          config.name);
  }
  if (config.max_concurrent_requests < 1)
    return util::fail("failed to configure provider {}: max_concurrent_requests must be >= 1",
                      config.name);
  if (config.retry.max_attempts < 1)
    return util::fail("failed to configure provider {}: max_attempts must be >= 1", config.name);
  if (config.request_timeout_s <= 0)
    return util::fail("failed to configure provider {}: request_timeout_s must be > 0",
                      config.name);
  return config;
}

double ProviderConfig::request_timeout_for(std::string_view stage) const {
  if (auto it = stage_request_timeout_s.find(stage); it != stage_request_timeout_s.end())
    return it->second;
  return request_timeout_s;
}

const std::vector<std::string_view>& timeout_stages() {
  static const std::vector<std::string_view> stages = {
      "seed", "repair", "analysis", "optimise", "tune_grid", "tune_tiling", "tune_memory"};
  return stages;
}

util::Result<void> parse_request_timeouts(std::string_view text, ConfigOverrides& overrides) {
  auto fail = [&](const std::string& cause) {
    return util::fail(
        "failed to read --request-timeout {}: {} (expected SECONDS or "
        "STAGE=SECONDS, comma-separated)",
        text, cause);
  };
  auto seconds_of = [](std::string_view value) -> std::optional<double> {
    std::string copy(value);
    char* end = nullptr;
    double seconds = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || !(seconds > 0)) return std::nullopt;
    return seconds;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      auto seconds = seconds_of(item);
      if (!seconds) return fail(fmt::format("'{}' is not a positive number of seconds", item));
      overrides.request_timeout_s = *seconds;
      continue;
    }
    std::string_view stage = item.substr(0, equals);
    const auto& known = timeout_stages();
    if (std::find(known.begin(), known.end(), stage) == known.end())
      return fail(fmt::format("unknown stage '{}' ({})", stage, fmt::join(known, ", ")));
    auto seconds = seconds_of(item.substr(equals + 1));
    if (!seconds)
      return fail(fmt::format("'{}' is not a positive number of seconds", item.substr(equals + 1)));
    overrides.stage_request_timeout_s[std::string(stage)] = *seconds;
  }
  return {};
}

}  // namespace kforge::llm
