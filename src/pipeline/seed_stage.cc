// The seed stage: independent candidates from the seed prompt, each followed by its repair chain.

#include <fmt/format.h>

#include <future>
#include <string>
#include <vector>

#include "pipeline/run.h"

namespace kforge::pipeline {

std::vector<CandidatePtr> Run::seeds_phase() {
  phase("seeds");
  std::vector<std::future<CandidatePtr>> chains;
  for (int i = 1; i <= config_.seeds; ++i)
    chains.push_back(std::async(std::launch::async, [this, i] { return seed_chain(i); }));
  std::vector<CandidatePtr> finals;
  for (auto& chain : chains) finals.push_back(chain.get());
  return finals;
}

CandidatePtr Run::seed_chain(int index) {
  prompts::Vars vars = base_vars();
  vars["seed_index"] = std::to_string(index);
  auto candidate =
      produce(fmt::format("seed{}", index), "seed", std::nullopt, index, vars, std::nullopt);
  if (!candidate) return nullptr;
  return repair_chain(candidate);
}

}  // namespace kforge::pipeline
