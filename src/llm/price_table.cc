#include "llm/price_table.h"

#include <algorithm>

namespace kforge::llm {

PriceTable PriceTable::defaults() {
  PriceTable table;
  // clang-format off
  table.set("deepseek-chat",     {0.28, 0.42, 0.028});
  table.set("deepseek-reasoner", {0.28, 0.42, 0.028});
  table.set("gpt-4o",            {2.50, 10.00, 1.25});
  table.set("gpt-4o-mini",       {0.15, 0.60, 0.075});
  table.set("gpt-4.1",           {2.00, 8.00, 0.50});
  table.set("gpt-4.1-mini",      {0.40, 1.60, 0.10});
  table.set("gpt-5",             {1.25, 10.00, 0.125});
  table.set("gpt-5-mini",        {0.25, 2.00, 0.025});
  table.set("o3",                {2.00, 8.00, 0.50});
  table.set("o4-mini",           {1.10, 4.40, 0.275});
  table.set("claude-sonnet-4",   {3.00, 15.00, 0.30});
  table.set("claude-sonnet-4-5", {3.00, 15.00, 0.30});
  table.set("claude-opus-4",     {15.00, 75.00, 1.50});
  table.set("claude-opus-4-1",   {15.00, 75.00, 1.50});
  table.set("claude-haiku-4-5",  {1.00, 5.00, 0.10});
  // clang-format on
  return table;
}

void PriceTable::set(std::string model, ModelPrice price) {
  prices_.insert_or_assign(std::move(model), price);
}

std::optional<ModelPrice> PriceTable::find(std::string_view model) const {
  auto lookup = [this](std::string_view id) -> std::optional<ModelPrice> {
    if (auto exact = prices_.find(id); exact != prices_.end()) return exact->second;
    const ModelPrice* best = nullptr;
    std::size_t best_length = 0;
    for (const auto& [name, price] : prices_) {
      // A prefix must end at a separator so "gpt-4o" does not price "gpt-4o-mini-x" wrongly
      // when "gpt-4o-mini" is known: the longest match wins.
      if (id.starts_with(name) && name.size() > best_length &&
          (id.size() == name.size() || id[name.size()] == '-' || id[name.size()] == ':' ||
           id[name.size()] == '@')) {
        best = &price;
        best_length = name.size();
      }
    }
    if (best != nullptr) return *best;
    return std::nullopt;
  };
  if (auto price = lookup(model)) return price;
  if (std::size_t slash = model.rfind('/'); slash != std::string_view::npos)
    return lookup(model.substr(slash + 1));
  return std::nullopt;
}

double PriceTable::cost(std::string_view model, const Usage& usage) const {
  std::optional<ModelPrice> price = find(model);
  if (!price) return 0;
  std::int64_t cached = std::min(usage.cached_tokens, usage.prompt_tokens);
  double dollars = static_cast<double>(usage.prompt_tokens - cached) * price->input +
                   static_cast<double>(cached) * price->cached_input +
                   static_cast<double>(usage.completion_tokens) * price->output;
  return dollars / 1e6;
}

}  // namespace kforge::llm
