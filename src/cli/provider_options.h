#pragma once

// Turning command-line options into the model provider's configuration; shared by the
// subcommands that talk to a model (run, doctor).

#include <memory>

#include "cli/options.h"
#include "library/library_provider.h"
#include "llm/provider_config.h"
#include "util/error.h"

namespace kforge::cli {

/// The model flags as overrides of the config file: --config, --provider, --model, --base-url,
/// --no-stream, --command, --from, --request-timeout and --max-concurrent-requests (the latter
/// only when it differs from its default, so the config file's value is not masked). Errors: a
/// malformed --request-timeout.
util::Result<llm::ConfigOverrides> provider_overrides(const Options& options);

/// llm::load_provider_config with the command line's overrides and the process environment.
util::Result<llm::ProviderConfig> load_provider_config(const Options& options);

/// The provider `config` describes: a model client (llm::make_provider), or the offline kernel
/// library, which reads a task's structure with `inspect_task` (through the command's worker
/// pool).
util::Result<std::unique_ptr<llm::Provider>> make_provider(const llm::ProviderConfig& config,
                                                           library::TaskInspector inspect_task);

}  // namespace kforge::cli
