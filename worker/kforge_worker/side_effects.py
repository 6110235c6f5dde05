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
    # torch.library kernels registered in this process (an override of aten::gru, say)
    from torch import library
    state["torch.library registrations"] = frozenset(getattr(library, "_impls", ()) or ())
    # the methods of torch.nn's module classes (nn.GRU.forward replaced, say)
    state["torch.nn methods"] = _nn_methods()
    state["environment"] = sorted(name for name in os.environ
                                  if name.startswith(("TORCH", "CUDA", "CUBLAS", "CUDNN", "NVIDIA",
                                                      "PYTORCH", "TRITON", "OMP")))
    return state


def _nn_methods():
    methods = {}
    for name in dir(torch.nn):
        cls = getattr(torch.nn, name, None)
        if isinstance(cls, type) and issubclass(cls, torch.nn.Module):
            for method in ("forward", "__call__", "_call_impl", "extra_repr"):
                function = cls.__dict__.get(method)
                if function is not None:
                    methods[f"torch.nn.{name}.{method}"] = id(function)
    return methods


def differences(before, after):
    if not before:
        return []
    changes = []
    for name in before:
        old, new = before[name], after.get(name)
        if new == old:
            continue
        if isinstance(old, frozenset) and isinstance(new, frozenset):
            added = sorted(new - old)
            changes.append(f"{name}: added {', '.join(added[:6])}"
                           + (f" (+{len(added) - 6} more)" if len(added) > 6 else ""))
        elif isinstance(old, dict) and isinstance(new, dict):
            replaced = sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key))
            changes.append(f"{name}: replaced {', '.join(replaced[:6])}")
        else:
            changes.append(f"{name} {old} -> {new}")
    return changes
