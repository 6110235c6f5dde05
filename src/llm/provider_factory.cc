#include "llm/provider_factory.h"

#include <fmt/format.h>

#include "llm/http_provider.h"
#include "llm/library_provider.h"

namespace kforge::llm {

util::Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& config,
                                                      const ProviderHooks& hooks) {
  if (config.api == Api::kLibrary) {
    std::unique_ptr<Provider> library = make_library_provider(config.library);
    if (!library) return util::fail("failed to create provider library: no library available");
    return library;
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
  std::shared_ptr<Clock> clock = hooks.clock ? hooks.clock : real_clock();
  return std::unique_ptr<Provider>(std::make_unique<HttpProvider>(
      config, std::move(protocol), std::move(transport), std::move(clock), hooks.ledger));
}

}  // namespace kforge::llm
