#include "cli/provider_options.h"

#include "llm/provider_factory.h"

namespace kforge::cli {

util::Result<llm::ConfigOverrides> provider_overrides(const Options& options) {
  llm::ConfigOverrides overrides;
  overrides.config_path = options.config;
  overrides.provider = options.provider;
  overrides.model = options.model;
  overrides.base_url = options.base_url;
  if (options.no_stream) overrides.stream = false;
  if (options.max_concurrent_requests != Options{}.max_concurrent_requests)
    overrides.max_concurrent_requests = options.max_concurrent_requests;
  overrides.command = options.command;
  overrides.replay_dir = options.replay_from;
  if (!options.request_timeout.empty())
    if (auto parsed = llm::parse_request_timeouts(options.request_timeout, overrides); !parsed)
      return std::unexpected(parsed.error());
  return overrides;
}

util::Result<llm::ProviderConfig> load_provider_config(const Options& options) {
  auto overrides = provider_overrides(options);
  if (!overrides) return std::unexpected(overrides.error());
  return llm::load_provider_config(*overrides);
}

util::Result<std::unique_ptr<llm::Provider>> make_provider(const llm::ProviderConfig& config,
                                                           library::TaskInspector inspect_task) {
  if (config.api != llm::Api::kLibrary) return llm::make_provider(config);
  return library::make_library_provider(
      {.library_dirs = config.library_dirs, .inspect_task = std::move(inspect_task)});
}

}  // namespace kforge::cli
