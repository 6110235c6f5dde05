#include "prompts/target_gpu.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kforge::prompts {

namespace {

// NVIDIA's data sheets (H100 SXM5, H200 SXM, A100 SXM4 80GB); tensor-core figures without
// sparsity.
constexpr std::array<TargetGpu, 3> kGpus = {{
    {"NVIDIA H100 SXM 80GB (Hopper, sm_90)", "H100", 132, 80, 3.35, 50, 228, 67, 495, 989},
    {"NVIDIA H200 SXM 141GB (Hopper, sm_90)", "H200", 132, 141, 4.8, 50, 228, 67, 495, 989},
    {"NVIDIA A100 SXM 80GB (Ampere, sm_80)", "A100", 108, 80, 2.04, 40, 164, 20, 156, 312},
}};

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

std::optional<TargetGpu> find_target_gpu(std::string_view key) {
  std::string wanted = upper(key);
  for (const TargetGpu& gpu : kGpus)
    if (wanted == gpu.key) return gpu;
  for (const TargetGpu& gpu : kGpus)
    if (wanted.find(gpu.key) != std::string::npos) return gpu;
  return std::nullopt;
}

std::string known_target_gpus() {
  std::string out;
  for (const TargetGpu& gpu : kGpus) out += (out.empty() ? "" : ", ") + std::string(gpu.key);
  return out;
}

}  // namespace kforge::prompts
