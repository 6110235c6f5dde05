"""Process-wide state a candidate can change: captured in the candidate process before its
import and after its last call, and the differences reported in the result (`side_effects`).

They cannot reach the reference or the baselines (those run in the judge, a process that never
runs candidate code); the list says what the candidate changed for its own runs, e.g. TF32
switched on for its matmuls, which the precision report needs to know."""

import os

import torch

from kforge_worker import numerics


def _hooks(name):
    import torch.nn.modules.module as module
    return len(getattr(module, name, {}) or {})


def capture():
    state = dict(numerics.capture())
    cudnn = torch.backends.cudnn
    for name in ("enabled", "benchmark", "deterministic"):
        state[f"cudnn.{name}"] = getattr(cudnn, name)
    state["num_threads"] = torch.get_num_threads()
    state["grad_enabled"] = torch.is_grad_enabled()
    state["deterministic_algorithms"] = torch.are_deterministic_algorithms_enabled()
    for name in ("_global_forward_pre_hooks", "_global_forward_hooks",
                 "_global_backward_hooks", "_global_backward_pre_hooks",
                 "_global_module_registration_hooks", "_global_parameter_registration_hooks",
                 "_global_buffer_registration_hooks"):
        state[f"global module hooks {name.strip('_')}"] = _hooks(name)
    from torch.overrides import _get_current_function_mode_stack
    state["torch function modes"] = len(_get_current_function_mode_stack())
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
    state["dispatch modes"] = len(_get_current_dispatch_mode_stack())
    state["environment"] = sorted(name for name in os.environ
                                  if name.startswith(("TORCH", "CUDA", "CUBLAS", "CUDNN", "NVIDIA",
                                                      "PYTORCH", "TRITON", "OMP")))
    return state


def differences(before, after):
    if not before:
        return []
    return [f"{name} {before[name]} -> {after.get(name)}" for name in before
            if after.get(name) != before[name]]
