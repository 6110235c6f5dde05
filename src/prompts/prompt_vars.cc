#include "prompts/prompt_vars.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "analysis/diagnostic_format.h"
#include "prompts/target_gpu.h"

namespace kforge::prompts {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::string format_number(std::optional<double> value, int precision) {
  if (!value) return "";
  if (std::isnan(*value)) return "nan";
  if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", *value, precision);
}

std::string trim_for_prompt(std::string_view text, std::size_t max_lines, std::size_t max_chars) {
  std::vector<std::string_view> lines = split_lines(text);
  std::string out;
  if (lines.size() > max_lines) {
    std::size_t head = max_lines / 3;
    std::size_t tail = max_lines - head;
    for (std::size_t i = 0; i < head; ++i) out += std::string(lines[i]) + "\n";
    out += fmt::format("... ({} lines left out) ...\n", lines.size() - head - tail);
    for (std::size_t i = lines.size() - tail; i < lines.size(); ++i)
      out += std::string(lines[i]) + "\n";
  } else {
    out = std::string(text);
  }
  if (out.size() > max_chars) {
    std::size_t head = max_chars / 3;
    std::size_t tail = max_chars - head;
    out = out.substr(0, head) +
          fmt::format("\n... ({} characters left out) ...\n", out.size() - head - tail) +
          out.substr(out.size() - tail);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Vars task_vars(const TaskFacts& task) {
  return {
      {"task_name", task.name},
      {"task_source", task.source},
      {"recurrent", task.recurrent ? "yes" : ""},
      {"cpu_mode", task.cpu ? "yes" : ""},
      {"numerics_strict", task.numerics == eval::NumericsPolicy::kStrict ? "yes" : ""},
      {"verdict_kernelbench", task.precision == eval::Precision::kKernelBench ? "yes" : ""},
  };
}

Vars gpu_vars(const eval::WorkerInfo& info, std::string_view target_gpu) {
  std::string device = info.device_name.value_or("");
  Vars vars = {
      {"gpu_name", device},
      {"sm_count", info.sm_count > 0 ? std::to_string(info.sm_count) : ""},
      {"min_blocks", info.sm_count > 0 ? std::to_string(4 * info.sm_count) : ""},
      {"memory_gb", info.memory_gb > 0 ? fmt::format("{:.0f}", info.memory_gb) : ""},
      {"torch_version", info.torch},
      {"triton_version", info.triton},
      {"gpu_from_config", ""},
      {"gpu_specs", ""},
  };
  std::optional<TargetGpu> gpu =
      device.empty() ? find_target_gpu(target_gpu) : find_target_gpu(device);
  if (!gpu) return vars;
  if (device.empty()) {  // a CPU run: the GPU the code is written for, from the configuration
    vars["gpu_name"] = std::string(gpu->name);
    vars["gpu_from_config"] = "yes";
    vars["sm_count"] = std::to_string(gpu->sm_count);
    vars["min_blocks"] = std::to_string(4 * gpu->sm_count);
    vars["memory_gb"] = std::to_string(gpu->memory_gb);
  }
  vars["gpu_specs"] = fmt::format(
      "{:g} TB/s HBM bandwidth, {} MB L2, up to {} KB shared memory per SM; dense peak "
      "{} TFLOPS fp32 (CUDA cores), {} TFLOPS TF32 and {} TFLOPS fp16/bf16 (tensor cores)",
      gpu->bandwidth_tb_s, gpu->l2_mb, gpu->shared_kb_per_sm, gpu->fp32_tflops, gpu->tf32_tflops,
      gpu->fp16_tflops);
  return vars;
}

Vars candidate_vars(std::string_view source, const eval::Evaluation& evaluation,
                    const std::optional<analysis::Report>& report) {
  Vars vars;
  vars["candidate_source"] = std::string(source);
  vars["status"] = std::string(eval::to_string(evaluation.status));
  vars["verified"] = evaluation.status == eval::Status::kOk ? "yes" : "";
  vars["failed"] = evaluation.status == eval::Status::kOk ? "" : "yes";
  vars["error"] = trim_for_prompt(evaluation.error);
  std::string reasons;
  for (const std::string& reason : evaluation.reasons) reasons += "- " + reason + "\n";
  vars["reasons"] = reasons;
  std::optional<double> max_err, mean_err;
  std::string first_failure;
  if (evaluation.correctness) {
    max_err = evaluation.correctness->max_abs_err;
    mean_err = evaluation.correctness->mean_abs_err;
    first_failure = trim_for_prompt(evaluation.correctness->first_failure.value_or(""), 20, 2000);
  }
  // The worker often repeats the first failure in the error text: say it once.
  if (!first_failure.empty() && vars["error"].find(first_failure) != std::string::npos)
    first_failure.clear();
  vars["first_failure"] = first_failure;
  vars["max_abs_err"] = format_number(max_err, 6);
  vars["mean_abs_err"] = format_number(mean_err, 6);
  vars["score"] = format_number(evaluation.score);
  vars["latency_ms"] =
      evaluation.candidate ? format_number(evaluation.candidate->median_ms, 3) : "";
  vars["eager_ms"] = evaluation.eager ? format_number(evaluation.eager->median_ms, 3) : "";
  vars["launches_per_forward"] =
      evaluation.launches_per_forward ? std::to_string(*evaluation.launches_per_forward) : "";
  std::string kernels;
  for (const eval::KernelSeen& kernel : evaluation.kernels) {
    kernels += fmt::format("  - {} ({}): {:g} calls per forward", kernel.name,
                           kernel.own ? "candidate's own" : "library", kernel.calls_per_forward);
    if (kernel.time_share > 0)
      kernels += fmt::format(", {:.0f}% of the time", 100 * kernel.time_share);
    kernels += "\n";
  }
  vars["kernels"] = kernels;
  std::string findings;
  if (report) {
    for (const analysis::Diagnostic& d : report->diagnostics) {
      std::string where = d.location.line > 0 ? fmt::format("line {}: ", d.location.line) : "";
      findings +=
          fmt::format("- {}{} [{}]: {}", where, analysis::to_string(d.severity), d.rule, d.message);
      if (!d.fix_hint.empty()) findings += "\n  fix: " + d.fix_hint;
      findings += "\n";
    }
  }
  vars["findings"] = findings;
  vars["kernel_type"] = report ? report->kernel_type : "";
  vars["persistent"] = report && report->persistent ? "yes" : "";
  return vars;
}

void merge(Vars& into, const Vars& from) {
  for (const auto& [name, value] : from) into[name] = value;
}

}  // namespace kforge::prompts
