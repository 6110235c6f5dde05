#pragma once

// Turning command-line options into the model provider's configuration; shared by the
// subcommands that talk to a model (run, doctor).

#include "cli/options.h"
#include "llm/provider_config.h"
#include "util/error.h"

namespace kforge::cli {

/// The model flags as overrides of the config file: --config, --provider, --model, --base-url,
/// --no-stream, --command, --from, --request-timeout and --max-concurrent-requests (the latter
/// only when it differs from its default, so the config file's value is not masked). Errors: a
/// malformed --request-timeout.
util::Result<llm::ConfigOverrides> provider_overrides(const Options& options);

/// llm::load_provider_config with the command line's overrides and the process environment;
/// --python and --worker-dir also go to the offline library provider.
util::Result<llm::ProviderConfig> load_provider_config(const Options& options);

}  // namespace kforge::cli
