"""The global numeric settings the reference computes under: TF32 and reduced-precision
reductions for matmul/cuDNN, and the default dtype. They are captured when the evaluation child
starts; the reference runs, and inputs are generated, under those settings whatever the
candidate set (at import or in forward), so a candidate cannot loosen the reference it is
judged against. The candidate keeps its own settings for its own runs."""

import contextlib

import torch


def _flags():
    """(name, getter, setter); the matmul precision first: setting it also sets allow_tf32."""
    matmul = torch.backends.cuda.matmul
    cudnn = torch.backends.cudnn
    return [
        ("float32_matmul_precision", torch.get_float32_matmul_precision,
         torch.set_float32_matmul_precision),
        ("cuda.matmul.allow_tf32", lambda: matmul.allow_tf32,
         lambda v: setattr(matmul, "allow_tf32", v)),
        ("cuda.matmul.allow_fp16_reduced_precision_reduction",
         lambda: matmul.allow_fp16_reduced_precision_reduction,
         lambda v: setattr(matmul, "allow_fp16_reduced_precision_reduction", v)),
        ("cuda.matmul.allow_bf16_reduced_precision_reduction",
         lambda: matmul.allow_bf16_reduced_precision_reduction,
         lambda v: setattr(matmul, "allow_bf16_reduced_precision_reduction", v)),
        ("cudnn.allow_tf32", lambda: cudnn.allow_tf32, lambda v: setattr(cudnn, "allow_tf32", v)),
        ("default_dtype", torch.get_default_dtype, torch.set_default_dtype),
    ]


def capture():
    values = {}
    for name, get, _ in _flags():
        try:
            values[name] = get()
        except Exception:  # a flag this build lacks
            pass
    return values


def apply(values):
    for name, _, put in _flags():
        if name in values:
            try:
                put(values[name])
            except Exception:
                pass


def differences(before, after):
    """'name old -> new' for each setting that differs."""
    return [f"{name} {before[name]} -> {after.get(name)}" for name in before
            if after.get(name) != before[name]]


@contextlib.contextmanager
def under(values):
    """Run a block under `values`, then put back whatever was in force before it."""
    current = capture()
    apply(values)
    try:
        yield
    finally:
        apply(current)
