#include "llm/provider_factory.h"

#include <fmt/format.h>

#include "llm/exec_provider.h"
#include "llm/http_provider.h"
#include "llm/replay_provider.h"

namespace kforge::llm {

util::Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                      const ProviderHooks& hooks) {
  if (config.api == Api::kLibrary)  // not a model: src/library makes it (cli::make_provider)
    return util::fail(util::ErrorKind::kInternal,
                      "failed to create provider library: the kernel library is not a model "
                      "client (library::make_library_provider makes it)");
  std::shared_ptr<Clock> clock = hooks.clock ? hooks.clock : real_clock();
  if (config.api == Api::kReplay) {
    auto replay = ReplayProvider::open(config.replay_dir, hooks.ledger);
    if (!replay) return std::unexpected(replay.error());
    return std::unique_ptr<Provider>(std::move(*replay));
  }
  if (config.api == Api::kExec) {
    std::shared_ptr<eval::ProcessLauncher> launcher =
        hooks.launcher ? hooks.launcher : std::shared_ptr(eval::make_process_launcher());
    return std::unique_ptr<Provider>(
        std::make_unique<ExecProvider>(config, std::move(launcher), clock, hooks.ledger));
  }
  if (config.needs_key && config.api_key.empty())
    return util::fail("failed to create provider {}: no API key: set {}", config.name,
                      fmt::join(config.api_key_variables, " or "));
  ProtocolOptions options = config.protocol;
  std::unique_ptr<ChatProtocol> protocol = config.api == Api::kAnthropic
                                               ? make_anthropic_protocol(options)
                                               : make_openai_protocol(options);
  std::shared_ptr<HttpTransport> transport =
      hooks.transport ? hooks.transport : make_curl_transport();
  return std::unique_ptr<Provider>(std::make_unique<HttpProvider>(
      config, std::move(protocol), std::move(transport), std::move(clock), hooks.ledger));
}

}  // namespace kforge::llm
