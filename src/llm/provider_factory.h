#pragma once

#include <memory>

#include "eval/process_launcher.h"
#include "llm/clock.h"
#include "llm/http_transport.h"
#include "llm/provider.h"
#include "llm/provider_config.h"
#include "llm/token_ledger.h"
#include "util/error.h"

namespace kforge::llm {

/// What a provider uses besides its configuration. All optional: null = the real thing (libcurl,
/// the steady clock) or none (ledger).
struct ProviderHooks {
  std::shared_ptr<HttpTransport> transport;
  std::shared_ptr<Clock> clock;
  /// When set, every call is recorded here under its request's stage.
  std::shared_ptr<TokenLedger> ledger;
  /// Starts the exec provider's command; null = fork/exec.
  std::shared_ptr<eval::ProcessLauncher> launcher;
};

/// Builds the provider `config` describes: openai or anthropic over HTTP, a command (exec) or a
/// recorded run (replay); the offline library is no model client (library/library_provider.h).
/// Errors: a hosted provider without a key ("failed to create provider deepseek: no API key: set
/// DEEPSEEK_API_KEY or KFORGE_API_KEY"), a recorded run that cannot be read.
util::Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                      const ProviderHooks& hooks = {});

}  // namespace kforge::llm
