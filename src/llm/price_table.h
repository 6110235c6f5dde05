#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "llm/provider.h"

namespace kforge::llm {

/// Prices of one model in US dollars per million tokens.
struct ModelPrice {
  double input = 0;
  double output = 0;
  /// Input tokens served from the provider's prompt cache.
  double cached_input = 0;
};

/// Model id → price. Built-in defaults for common hosted models; the user's config overrides or
/// adds entries. Lookup is by exact id, else the longest known prefix (dated snapshots such as
/// "claude-sonnet-4-5-20250929"), else the same after dropping a "vendor/" part (OpenRouter ids).
class PriceTable {
 public:
  /// The built-in prices (public list prices at the time of writing; local servers cost 0).
  static PriceTable defaults();

  void set(std::string model, ModelPrice price);
  /// nullopt when the model is unknown (cost is then reported as 0 and unpriced).
  std::optional<ModelPrice> find(std::string_view model) const;
  /// Cost of `usage` for `model`: uncached prompt at input price, cached prompt tokens at the
  /// cached price, completion (reasoning included) at output price. 0 when unknown.
  double cost(std::string_view model, const Usage& usage) const;
  const std::map<std::string, ModelPrice, std::less<>>& entries() const { return prices_; }

 private:
  std::map<std::string, ModelPrice, std::less<>> prices_;
};

}  // namespace kforge::llm
