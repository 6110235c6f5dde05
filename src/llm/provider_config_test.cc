#include "llm/provider_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace kforge::llm {
namespace {

/// A config file in a fresh temporary folder, removed afterwards.
class ConfigFile {
 public:
  ConfigFile(const std::string& name, const std::string& text)
      : dir_(std::filesystem::temp_directory_path() /
             ("kforge_config_test_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / name) << text;
    path_ = (dir_ / name).string();
  }
  ~ConfigFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

EnvLookup env_of(std::map<std::string, std::string> variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

TEST(LoadProviderConfig, PresetFillsEndpointAndKeyComesFromItsVariable) {
  auto config = load_provider_config({}, env_of({{"DEEPSEEK_API_KEY", "sk-deep-123456789"},
                                                 {"KFORGE_API_KEY", "sk-other-123456789"},
                                                 {"HOME", "/nonexistent"}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->name, "deepseek");
  EXPECT_EQ(config->api, Api::kOpenAi);
  EXPECT_EQ(config->base_url, "https://api.deepseek.com");
  EXPECT_EQ(config->model, "deepseek-chat");
  EXPECT_EQ(config->api_key, "sk-deep-123456789");
  EXPECT_EQ(config->api_key_source, "DEEPSEEK_API_KEY");
  EXPECT_TRUE(config->config_file.empty());
}

TEST(LoadProviderConfig, FallsBackToKforgeApiKeyAndReportsMissingKeysLater) {
  auto config = load_provider_config({.provider = "anthropic"},
                                     env_of({{"KFORGE_API_KEY", "sk-kf-123456789"}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->api, Api::kAnthropic);
  EXPECT_EQ(config->api_key_source, "KFORGE_API_KEY");
  auto none = load_provider_config({.provider = "openai"}, env_of({}));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->api_key.empty());
  EXPECT_EQ(none->api_key_variables,
            (std::vector<std::string>{"OPENAI_API_KEY", "KFORGE_API_KEY"}));
}

TEST(LoadProviderConfig, TomlFileThenProviderTableThenFlags) {
  ConfigFile file("config.toml", R"(
provider = "mybox"
max_concurrent_requests = 8
max_attempts = 2
request_timeout_s = 300.5
[providers.mybox]
api = "openai"
base_url = "http://gpu-box:8000/v1"
model = "Qwen/Qwen3-32B"
api_key_env = "MYBOX_KEY"
stream = false
[prices."Qwen/Qwen3-32B"]
input = 0.1
output = 0.2
)");
  auto config = load_provider_config({.config_path = file.path(), .model = "Qwen/Qwen3-8B"},
                                     env_of({{"MYBOX_KEY", "secret-box-key-1"}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->name, "mybox");
  EXPECT_EQ(config->base_url, "http://gpu-box:8000/v1");
  EXPECT_EQ(config->model, "Qwen/Qwen3-8B");
  EXPECT_FALSE(config->stream);
  EXPECT_EQ(config->max_concurrent_requests, 8);
  EXPECT_EQ(config->retry.max_attempts, 2);
  EXPECT_EQ(config->request_timeout_s, 300.5);
  EXPECT_EQ(config->api_key_source, "MYBOX_KEY");
  EXPECT_EQ(config->prices.find("Qwen/Qwen3-32B")->output, 0.2);
  EXPECT_EQ(config->config_file, file.path());
}

TEST(LoadProviderConfig, TopLevelModelAppliesOnlyToTheFilesOwnProvider) {
  ConfigFile file("config.toml",
                  "provider = \"deepseek\"\nmodel = \"deepseek-reasoner\"\n"
                  "api_key = \"sk-from-file-12345\"\n");
  auto same = load_provider_config({.config_path = file.path()}, env_of({}));
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same->model, "deepseek-reasoner");
  EXPECT_EQ(same->api_key_source, "config file " + file.path());
  auto other = load_provider_config({.config_path = file.path(), .provider = "vllm", .model = "m"},
                                    env_of({}));
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(other->model, "m");
  EXPECT_TRUE(other->api_key.empty());  // the deepseek key is not sent to vllm
  EXPECT_FALSE(other->needs_key);
}

TEST(LoadProviderConfig, JsonFileWorksToo) {
  ConfigFile file("config.json",
                  R"({"provider": "ollama", "model": "qwen2.5-coder:32b", "stream": false})");
  auto config = load_provider_config({.config_path = file.path()}, env_of({}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->base_url, "http://localhost:11434/v1");
  EXPECT_EQ(config->model, "qwen2.5-coder:32b");
  EXPECT_FALSE(config->stream);
}

TEST(LoadProviderConfig, DefaultFileUnderXdgConfigHome) {
  ConfigFile file("config.toml", "provider = \"sglang\"\nmodel = \"m\"\n");
  std::filesystem::path home = std::filesystem::path(file.path()).parent_path() / "xdg";
  std::filesystem::create_directories(home / "kforge");
  std::filesystem::copy_file(file.path(), home / "kforge" / "config.toml");
  auto config = load_provider_config({}, env_of({{"XDG_CONFIG_HOME", home.string()}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->name, "sglang");
  EXPECT_EQ(config->base_url, "http://localhost:30000/v1");
}

TEST(LoadProviderConfig, ErrorsNameTheFileTheLineAndTheKey) {
  ConfigFile bad_toml("config.toml", "provider = \"deepseek\"\nmodel = deepseek-chat\n");
  auto syntax = load_provider_config({.config_path = bad_toml.path()}, env_of({}));
  ASSERT_FALSE(syntax);
  EXPECT_TRUE(syntax.error().message.starts_with("failed to read config " + bad_toml.path() + ": " +
                                                 bad_toml.path() + ":2:"))
      << syntax.error().message;

  ConfigFile typo("config.toml", "modle = \"x\"\n");
  auto unknown = load_provider_config({.config_path = typo.path()}, env_of({}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "failed to load config " + typo.path() + ": top level: unknown key 'modle'");

  ConfigFile wrong_type("config.toml", "[providers.deepseek]\nmax_attempts = \"3\"\n");
  auto type = load_provider_config({.config_path = wrong_type.path()}, env_of({}));
  ASSERT_FALSE(type);
  EXPECT_EQ(type.error().message, "failed to load config " + wrong_type.path() +
                                      ": providers.deepseek: max_attempts must be an integer");

  auto missing = load_provider_config({.config_path = "/nonexistent/kforge.toml"}, env_of({}));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "failed to read config /nonexistent/kforge.toml: cannot open it");
}

TEST(LoadProviderConfig, UnknownProviderAndMissingModel) {
  auto unknown = load_provider_config({.provider = "deepsek"}, env_of({}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(
      unknown.error().message,
      "failed to configure provider deepsek: unknown provider (presets: deepseek, openai, "
      "openrouter, anthropic, vllm, sglang, ollama, llamacpp, library, exec, replay; or define "
      "[providers.deepsek] in the config file)");
  auto no_model = load_provider_config({.provider = "vllm"}, env_of({}));
  ASSERT_FALSE(no_model);
  EXPECT_EQ(no_model.error().message,
            "failed to configure provider vllm: no model (pass --model with the id the server "
            "serves)");
}

}  // namespace
}  // namespace kforge::llm

namespace kforge::llm {
namespace {

TEST(LoadProviderConfig, StageTimeoutsFromTheFileThenTheFlag) {
  ConfigFile file("stages.toml",
                  "provider = \"vllm\"\nmodel = \"m\"\nrequest_timeout_s = 600\n"
                  "[stage_request_timeout_s]\nseed = 3600\nanalysis = 300\n");
  ConfigOverrides overrides;
  overrides.config_path = file.path();
  ASSERT_TRUE(parse_request_timeouts("1200,optimise=2400,analysis=450", overrides));
  auto config = load_provider_config(overrides, env_of({}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->request_timeout_for("seed"), 3600);
  EXPECT_EQ(config->request_timeout_for("analysis"), 450);
  EXPECT_EQ(config->request_timeout_for("optimise"), 2400);
  EXPECT_EQ(config->request_timeout_for("repair"), 1200);
  EXPECT_EQ(config->request_timeout_for("doctor"), 1200);
}

TEST(ParseRequestTimeouts, ErrorsNameTheFlagAndTheItem) {
  ConfigOverrides overrides;
  EXPECT_EQ(parse_request_timeouts("seeds=60", overrides).error().message,
            "failed to read --request-timeout seeds=60: unknown stage 'seeds' (seed, repair, "
            "analysis, optimise, tune_grid, tune_tiling, tune_memory) (expected SECONDS or "
            "STAGE=SECONDS, comma-separated)");
  EXPECT_EQ(parse_request_timeouts("seed=soon", overrides).error().message,
            "failed to read --request-timeout seed=soon: 'soon' is not a positive number of "
            "seconds (expected SECONDS or STAGE=SECONDS, comma-separated)");
  EXPECT_FALSE(parse_request_timeouts("-5", overrides));
  EXPECT_FALSE(parse_request_timeouts("", overrides));
}

TEST(LoadProviderConfig, BadStageTableAndExecAndReplayNeedTheirInput) {
  ConfigFile file("badstage.toml",
                  "provider = \"vllm\"\nmodel = \"m\"\n[stage_request_timeout_s]\nsed = 10\n");
  ConfigOverrides overrides;
  overrides.config_path = file.path();
  auto bad = load_provider_config(overrides, env_of({}));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("stage_request_timeout_s: unknown stage 'sed'"),
            std::string::npos)
      << bad.error().message;

  ConfigOverrides exec;
  exec.provider = "exec";
  EXPECT_EQ(load_provider_config(exec, env_of({})).error().message,
            "failed to configure provider exec: no command (pass --command \"...\" or set command "
            "in [providers.exec])");
  exec.command = "cat reply.txt";
  auto exec_config = load_provider_config(exec, env_of({}));
  ASSERT_TRUE(exec_config) << exec_config.error().message;
  EXPECT_EQ(exec_config->api, Api::kExec);
  EXPECT_FALSE(exec_config->needs_key);

  ConfigOverrides replay;
  replay.provider = "replay";
  EXPECT_EQ(load_provider_config(replay, env_of({})).error().message,
            "failed to configure provider replay: no run to replay (pass --from RUN_DIR)");
}

}  // namespace
}  // namespace kforge::llm
