#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kforge::prompts {

/// The published facts of a GPU the prompts can name: a CPU run has no device to ask, yet its
/// kernels are written for one (`--target-gpu`, default H100); a GPU run adds these facts to
/// what the worker measured when the device is one of them. Dense throughputs, SXM parts.
struct TargetGpu {
  std::string_view name;  // as the prompts write it, e.g. "NVIDIA H100 SXM 80GB"
  std::string_view key;   // as --target-gpu takes it, e.g. "H100"
  int sm_count = 0;
  int memory_gb = 0;
  double bandwidth_tb_s = 0;  // HBM bandwidth
  int l2_mb = 0;
  int shared_kb_per_sm = 0;  // shared memory per SM (configurable carve-out, maximum)
  int fp32_tflops = 0;       // non-tensor-core fp32
  int tf32_tflops = 0;       // tensor cores, dense
  int fp16_tflops = 0;       // tensor cores, dense (bf16 the same)
};

/// The GPU whose `--target-gpu` key is `key` (case-insensitive), or whose key occurs in a device
/// name the worker reported ("NVIDIA H100 80GB HBM3"); nullopt for one not in the table.
std::optional<TargetGpu> find_target_gpu(std::string_view key);

/// "H100, H200, A100": the keys --target-gpu accepts.
std::string known_target_gpus();

}  // namespace kforge::prompts
