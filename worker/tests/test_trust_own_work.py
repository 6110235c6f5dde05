"""The own-work rule (docs/trust.md, "Own work by class"): for a task without a GEMM, convolution
or recurrence, a candidate whose forward puts the task's data through reductions,
transcendentals or matmuls in PyTorch computed the task there, whatever its own kernel then does
(copy, scale). Classification by ATen's tags and a compact family table, not by names per task."""

import json

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from kforge_worker.trust_ops import (ARITHMETIC_LIMIT, OWN_WORK_LIMIT, AtenRecorder, Policy,
                                     compute_class)

from test_trust import Double, Gru, Softmax, guarded, triton_scale


@pytest.mark.parametrize("name, kind", [
    # ATen's tags: pointwise and reduction
    ("exp2", "math"), ("exp", "math"), ("pow", "math"), ("sigmoid", "math"), ("erf", "math"),
    ("rsqrt", "math"), ("log1p", "math"), ("special_erfcx", "math"),
    ("sum", "reduction"), ("amax", "reduction"), ("var_mean", "reduction"),
    ("logsumexp", "reduction"), ("linalg_vector_norm", "reduction"),
    # the family table: what ATen does not tag
    ("special_ndtr", "math"), ("hardswish", "math"), ("cumsum", "reduction"),
    ("cumprod", "reduction"), ("avg_pool1d", "reduction"), ("scatter_add", "reduction"),
    ("index_add", "reduction"), ("softmax", "reduction"), ("sort", "reduction"),
    ("mm", "matmul"), ("matmul", "matmul"), ("baddbmm", "matmul"), ("einsum", "matmul"),
    ("conv2d", "matmul"), ("scaled_mm", "matmul"), ("outer", "matmul"),
    # cheap arithmetic and piecewise-linear
    ("mul", "arithmetic"), ("div", "arithmetic"), ("reciprocal", "arithmetic"),
    ("where", "arithmetic"), ("clamp_min", "arithmetic"), ("relu", "arithmetic"),
    ("maximum", "arithmetic"),
    # plumbing and slicing: never compute
    ("empty_like", None), ("copy", None), ("to", None), ("contiguous", None),
    ("as_strided", None),
    # gathers by tensor indices: a table lookup can stand in for a transcendental (a35, and
    # index_select/embedding in the blind red team of session 9)
    ("gather", "math"), ("index", "math"), ("take", "math"), ("index_select", "math"),
    ("embedding", "math"),
])
def test_operator_classes(name, kind):
    assert compute_class(name) == kind


def test_which_tasks_the_rule_covers():
    # elementwise and reduction references: the candidate's kernels must do the work
    assert Policy(["softmax"], [], Double).own_work
    assert Policy(["mul", "pow", "mul", "add", "tanh", "mul"], [], Double).own_work
    assert Policy(["sum", "div"], [], Double).own_work
    assert Policy(["layer_norm"], [nn.LayerNorm], Double).own_work
    # dense references keep PyTorch's help for the epilogue; recurrent ones for the input GEMM
    # (and a head), but not for the gates (_check_gates)
    assert not Policy(["conv2d", "add", "relu"], [nn.Conv2d], Double).own_work
    assert not Policy(["matmul"], [], Double).own_work
    assert not Policy(["linear", "relu"], [nn.Linear], Double).own_work
    assert not Policy(["scaled_dot_product_attention"], [], Double).own_work
    lstm = Policy(["lstm", "linear"], [nn.LSTM, nn.Linear], Double)
    assert lstm.own_work and lstm.recurrent and not lstm.dense
    assert not Policy(["zeros", "getitem"], [nn.GRU], Double).own_work  # the module says so
    assert not Policy([], [], Double).own_work  # the reference failed: nothing is known
    # the flag travels to the candidate process
    rebuilt = Policy.from_description(json.loads(json.dumps(Policy(["softmax"], [],
                                                                   Double).describe())))
    assert rebuilt.own_work
    assert not Policy.from_description({"ops": ["softmax"]}).own_work  # an older judge's policy


def _recorded(function, x):
    with torch.no_grad(), AtenRecorder() as aten:
        out = function(x)
    return aten.calls, max(x.numel(), out.numel())


SOFTMAX = Policy(["softmax"], [], Double)
LOG2E = 1.4426950408889634


@pytest.mark.parametrize("decoy, named", [
    (lambda x: (lambda e: e * torch.reciprocal(e @ torch.ones(x.shape[1], 1)))(
        torch.exp2((x - x.amax(1, keepdim=True)) * LOG2E)), ["amax", "exp2", "matmul"]),
    (lambda x: F.normalize(torch.pow(2.718281828459045, x - x.amax(1, keepdim=True)), p=1.0,
                           dim=1), ["linalg_vector_norm", "pow"]),
    (lambda x: (lambda e: e / torch.cumsum(e, 1)[:, -1:])(
        torch.sigmoid(x) / torch.sigmoid(-x)), ["cumsum", "sigmoid"]),
    (lambda x: (lambda e: e / (F.avg_pool1d(e.unsqueeze(1), x.shape[1]).squeeze(1)
                               * x.shape[1]))(torch.special.expm1(x) + 1), ["avg_pool1d", "expm1"]),
    # chunks do not hide it: the rule sums what every operator processed
    (lambda x: torch.cat([torch.exp(c) for c in x.chunk(16, dim=1)], 1), ["exp"]),
])
def test_softmax_computed_in_pytorch_by_other_primitives(decoy, named):
    calls, size = _recorded(decoy, torch.randn(8, 64))
    assert not SOFTMAX.check([c[0] for c in calls], [])  # outside _DECOMPOSITIONS' groups
    reasons = SOFTMAX.check_own_work(calls, size)
    assert len(reasons) == 1 and reasons[0].startswith("computed the task in PyTorch: ")
    assert all(name in reasons[0] for name in named)
    assert "its own kernels only copy or post-process the result" in reasons[0]


@pytest.mark.parametrize("legit", [
    lambda x: x.contiguous().float().view(-1).view_as(x).clone(),   # plumbing
    lambda x: x * 0.5 + 1.0,                                         # a scale and a shift
    lambda x: torch.where(x > 0, x, torch.zeros_like(x)).clamp(-3, 3),
    # per-row constants: 8 rows of a 512-element task
    lambda x: torch.rsqrt(x[:, :1].abs() + 1.0).expand_as(x).contiguous(),
    # a two-stage reduction's second stage: 8 rows x 4 partials of its kernel
    lambda x: x.reshape(8, 4, 16)[:, :, 0].sum(dim=1, keepdim=True).expand_as(x).contiguous(),
])
def test_glue_around_own_kernels_is_not_the_task(legit):
    calls, size = _recorded(legit, torch.randn(8, 64))
    assert SOFTMAX.check_own_work(calls, size) == []


def test_the_share_limit():
    x = torch.randn(8, 64)
    # exp on an eighth of the rows (64 of 512 elements): below the limit, left to the time share
    calls, size = _recorded(lambda x: torch.exp(x[:1]).expand_as(x).contiguous(), x)
    assert 64 / size < OWN_WORK_LIMIT and not SOFTMAX.check_own_work(calls, size)
    # three rows, then their sum: above
    calls, size = _recorded(lambda x: torch.exp(x[:3]).sum() + x, x)
    assert SOFTMAX.check_own_work(calls, size)


def test_arithmetic_alone_counts_when_it_is_many_passes():
    def polynomial(x):  # a Horner-style stand-in for exp: 2 arithmetic passes per degree
        y = torch.ones_like(x)
        for coefficient in (1 / 24, 1 / 6, 1 / 2, 1.0, 1.0):
            y = y * x + coefficient
        return y
    calls, size = _recorded(polynomial, torch.randn(8, 64))
    reasons = SOFTMAX.check_own_work(calls, size)
    assert ARITHMETIC_LIMIT <= 10 and reasons and "elementwise arithmetic" in reasons[0]
    calls, size = _recorded(lambda x: (x * 2.0 - 1.0) / 3.0, torch.randn(8, 64))
    assert not SOFTMAX.check_own_work(calls, size)


def test_the_replaced_operator_is_left_to_check():
    calls, size = _recorded(lambda x: torch.softmax(x, 1), torch.randn(8, 64))
    assert SOFTMAX.check_own_work(calls, size) == []
    assert SOFTMAX.check([c[0] for c in calls], []) == [
        "called the operator it replaces: torch softmax"]


def test_dense_and_recurrent_tasks_keep_pytorch_help():
    calls, size = _recorded(lambda x: torch.exp(x @ x.t()).sum(1), torch.randn(8, 64))
    assert Policy(["matmul"], [], Double).check_own_work(calls, size) == []
    lstm = Policy(["lstm"], [nn.LSTM], Double)
    calls, size = _recorded(lambda x: F.linear(x, torch.randn(32, 64)) + 1.0, torch.randn(8, 64))
    assert lstm.check_own_work(calls, size) == []
    # the gates' sigmoid in PyTorch is the recurrence itself (blind red team, session 9: a GRU
    # and an LSTM as PyTorch cells beside a copy kernel ended ok)
    calls, size = _recorded(lambda x: torch.sigmoid(F.linear(x, torch.randn(32, 64))),
                            torch.randn(8, 64))
    reasons = lstm.check_own_work(calls, size)
    assert reasons and reasons[0].startswith("computed the recurrence in PyTorch: sigmoid")

    def place(x):  # the library's GPU path places h0 and weights by index (H100, session 9)
        out = torch.zeros(16, 64)
        out[torch.arange(8) * 2] = x
        return out[torch.arange(8)]
    calls, size = _recorded(place, torch.randn(8, 64))
    assert {c[0] for c in calls} & {"index", "index_put"}
    assert lstm.check_own_work(calls, size) == []


def test_a_bag_sum_and_the_fft_are_dense_stand_ins():
    gemm = Policy(["matmul"], [], Double)
    assert gemm.dense
    names = ["embedding_bag", "_embedding_bag", "fft_rfft2", "fft_irfft2", "_fft_r2c"]
    assert [r.split(": ")[1] for r in gemm.check(names, [])] == [
        "torch _embedding_bag", "torch _fft_r2c", "torch embedding_bag", "torch fft_irfft2",
        "torch fft_rfft2"]


class ExpNormalizeCopy(nn.Module):
    """The decoy pattern end to end through the Guard: PyTorch computes, a Triton kernel copies."""
    def forward(self, x):
        e = torch.exp(x - x.amax(dim=1, keepdim=True))
        return triton_scale(F.normalize(e, p=1.0, dim=1).contiguous(), 1.0)


class TritonSoftmaxWithGlue(nn.Module):
    """Legitimate: the max in PyTorch would be a reduction over the task's data; here only a cast
    and the kernel (a stand-in scale kernel), as the library's softmax does it."""
    def forward(self, x):
        return triton_scale(x.contiguous().float(), 1.0)


def test_the_guard_rejects_the_decoy_and_allow_pytorch_only_waives_it():
    x = torch.randn(4, 32)
    _, violations = guarded(Softmax(), ExpNormalizeCopy(), [x])
    assert any(v.startswith("computed the task in PyTorch: amax, exp, linalg_vector_norm")
               for v in violations), violations
    _, violations = guarded(Softmax(), ExpNormalizeCopy(), [x], allow_pytorch_only=True)
    assert violations == []
    _, violations = guarded(Softmax(), TritonSoftmaxWithGlue(), [x])
    assert violations == []


def test_the_guard_leaves_the_recurrent_hybrid_alone():
    class Hybrid(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(4, 8, 1)

        def forward(self, x):
            gates = F.linear(x, self.gru.weight_ih_l0, self.gru.bias_ih_l0)
            return triton_scale(gates[..., :8].contiguous(), 1.0)
    _, violations = guarded(Gru(), Hybrid(), [torch.randn(3, 2, 4)])
    assert violations == []


def test_a_composite_counts_once():
    """matmul dispatches mm, F.normalize's norm may dispatch more: the parts of a counted call
    are its work, not more of it (a small legitimate reduction is not inflated past the limit)."""
    x = torch.randn(8, 64)
    calls, size = _recorded(lambda x: x @ torch.ones(64, 1), x)
    reasons = SOFTMAX.check_own_work(calls, size)
    assert "matmul" in reasons[0] and ", mm" not in reasons[0] and "1x the elements" in reasons[0]
    # a second stage over 8 x 8 partials (an eighth of the task), through a composite
    calls, size = _recorded(lambda x: torch.norm(x[:, :8], dim=1, keepdim=True).expand_as(x)
                            .contiguous(), x)
    assert SOFTMAX.check_own_work(calls, size) == []


def test_another_dense_operator_computes_a_dense_task():
    gemm = Policy(["matmul", "mm"], [], Double)
    conv = Policy(["conv2d", "convolution", "add", "relu"], [nn.Conv2d], Double)
    assert gemm.dense and conv.dense and not SOFTMAX.dense
    assert gemm.check(["conv1d", "convolution", "copy"], []) == [
        "computed the task's dense operator with another PyTorch one: torch conv1d",
        "computed the task's dense operator with another PyTorch one: torch convolution"]
    assert conv.check(["im2col", "matmul", "mm"], [])[0].endswith("torch matmul")
    # an RNN's input GEMM stays PyTorch's help; layout work around a GEMM kernel of its own too
    assert not Policy(["gru"], [nn.GRU], Double).check(["addmm", "matmul"], [])
    assert not conv.check(["im2col", "contiguous", "reshape"], [])
    assert Policy.from_description(json.loads(json.dumps(gemm.describe()))).dense


def test_a_sum_by_halving_is_the_task_on_a_reduction_task():
    """Blind red team, session 9: on a task that only reduces or scans, a sum by halving on
    copied halves is ~1 pass of add (47_Sum_reduction), under the 8x limit of arithmetic."""
    def halving(x):
        while x.shape[1] > 1:
            half = x.shape[1] // 2
            x = x[:, :half].contiguous() + x[:, half:2 * half].contiguous()
        return x
    total = Policy(["sum"], [], Double)
    assert total.reduction_only and Policy.from_description(total.describe()).reduction_only
    calls, size = _recorded(halving, torch.randn(8, 64))
    reasons = total.check_own_work(calls, size)
    assert reasons and "for a task that only reduces or scans" in reasons[0]
    assert Policy(["cumsum"], [], Double).check_own_work(calls, size)
    # a softmax or a mean-and-divide task keeps the 8x limit; glue below half a pass stays ok
    assert not Policy(["softmax"], [], Double).check_own_work(calls, size)
    assert not Policy(["sum", "div"], [], Double).reduction_only
    calls, size = _recorded(lambda x: x[:, :8] * 2.0, torch.randn(8, 64))
    assert total.check_own_work(calls, size) == []


def test_a_foreach_operator_counts_its_whole_tensor_list():
    """Blind red team, session 9: `_foreach_norm` over a task's slices is the task's reduction.
    The profiler records no shape for a tensor list; on the CPU the foreach call's nested calls
    carry the work, and a foreach call with none (a fused GPU kernel) counts as the whole task."""
    total = Policy(["sum"], [], Double)
    x = torch.rand(8, 64)
    calls, size = _recorded(lambda x: torch.stack(torch._foreach_norm(list(x.unbind(0)), 1)), x)
    reasons = total.check_own_work(calls, size)
    assert reasons and "linalg_vector_norm" in reasons[0]
    fused = [("foreach_norm", "_foreach_norm", 0, -1), ("stack", "stack", 0, -1)]
    assert "foreach_norm" in total.check_own_work(fused, size)[0]


def test_unclassed_operators_fail_closed():
    """Blind red team, session 10: an activation's backward kernel (softplus_backward gives a
    sigmoid, elu_backward an exp) and a triangular solve (a sum, a scan, a GEMM) computed whole
    tasks while no class named them. Backward kernels are math, solvers dense, and any other
    ATen operator no class names counts as computing, unless it only moves data."""
    assert compute_class("softplus_backward", "softplus_backward") == "math"
    assert compute_class("linalg_solve_triangular", "linalg_solve_triangular") == "matmul"
    assert Policy(["matmul"], [], Double).check(["linalg_solve_triangular"], [])
    assert compute_class("linalg_vector_norm", "linalg_vector_norm") == "reduction"  # no GEMM
    assert compute_class("bucketize", "bucketize") == "other"
    for movement in ("constant_pad_nd", "im2col", "triu", "masked_select", "normal_", "clone"):
        assert compute_class(movement.rstrip("_"), movement) is None, movement
    assert compute_class("normalize") is None  # a torch-function name, no ATen operator
    # glue a candidate may well run in PyTorch (F.pad, F.fold, masks, closeness): not "other"
    glue = [lambda x: F.pad(x, (1, 1)), lambda x: F.pad(x, (1, 1), mode="reflect"),
            lambda x: F.fold(F.unfold(x[None, None], 3), (8, 64), 3), lambda x: (x > 0) & (x < 1),
            lambda x: torch.isclose(x, x), lambda x: x.repeat_interleave(2, 1), lambda x: x[x > 0],
            lambda x: torch.rand_like(x), lambda x: x.tril()]
    for function in glue:
        calls, _ = _recorded(function, torch.randn(8, 64))
        assert not [name for name, raw, _, _ in calls if compute_class(name, raw) == "other"]
    total = Policy(["sum"], [], Double)
    x = torch.rand(8, 64)
    calls, size = _recorded(lambda x: torch.bucketize(x, torch.tensor([0.5])).float(), x)
    assert "bucketize" in total.check_own_work(calls, size)[0]


def test_fold_sums_and_float_bits_are_computing():
    """Blind red team, session 10: F.fold (col2im) adds overlapping blocks, a cumsum in one call;
    an exp built from float bits ((n + 127) << 23 viewed as float32 after an int32 cast) is a
    transcendental from arithmetic. Both count; a plain view and a mask's cast do not."""
    assert compute_class("col2im") == "reduction" and compute_class("im2col") is None
    x = torch.rand(8, 16)
    calls, size = _recorded(lambda x: F.fold(x.unsqueeze(1).expand(8, 16, 16), (1, 31),
                                             (1, 16))[..., :16], x)
    assert "col2im" in Policy(["cumsum"], [], Double).check_own_work(calls, size)[0]

    def bits_exp(x):  # 2^(x log2 e) = 2^n (1 + f), roughly
        z = x * LOG2E + 127.0
        n = z.to(torch.int32)
        return (z - n + 1.0) * (n << 23).view(torch.float32)
    calls, size = _recorded(bits_exp, torch.randn(8, 64))
    assert {"bit_cast", "float_int_cast"} <= {call[0] for call in calls}
    [reason] = SOFTMAX.check_own_work(calls, size)
    assert "bit_cast" in reason and "float_int_cast" in reason
    calls, _ = _recorded(lambda x: torch.empty(0, dtype=torch.int32).set_(
        x.untyped_storage(), 0, (512,)), torch.randn(8, 64))
    assert ("bit_cast", "set_", 512) in [call[:3] for call in calls]
    glue = lambda x: x.view(64, 8).view(torch.float32).t().reshape(8, 64) * (x > 0).float()
    calls, _ = _recorded(glue, torch.randn(8, 64))
    assert not {"bit_cast", "float_int_cast"} & {call[0] for call in calls}


def test_a_rational_gate_is_recurrence_work():
    """A tanh as a continued fraction is arithmetic only: on a recurrent task many passes of it
    are the gates computed in PyTorch (the input GEMM and a bias add stay allowed)."""
    lstm = Policy(["lstm"], [nn.LSTM], Double)

    def rational_tanh(x):
        x2 = x * x
        d = torch.full_like(x, 13.0)
        for k in range(6, 0, -1):
            d = (2.0 * k - 1.0) + x2 / d
        return x / d
    calls, size = _recorded(lambda x: rational_tanh(F.linear(x, torch.randn(64, 64))),
                            torch.randn(8, 64))
    reasons = lstm.check_own_work(calls, size)
    assert reasons and "elementwise arithmetic" in reasons[0]
    calls, size = _recorded(lambda x: F.linear(x, torch.randn(64, 64)) + 1.0, torch.randn(8, 64))
    assert lstm.check_own_work(calls, size) == []


def test_bit_level_calls_from_dispatch_where_the_profiler_has_no_dtypes():
    """torch 2.11's legacy profiler (the H100's) records no input dtypes: the GPU path's
    BitLevelRecorder names the same calls from the dispatched tensors."""
    from kforge_worker.trust_ops import BitLevelRecorder

    def bits_exp(x):
        z = x * LOG2E + 127.0
        n = z.to(torch.int32)
        return (z - n + 1.0) * (n << 23).view(torch.float32)
    x = torch.randn(8, 64)
    with torch.no_grad(), BitLevelRecorder() as bits:
        bits_exp(x)
    assert {call[0] for call in bits.calls} == {"bit_cast", "float_int_cast"}
    assert "bit_cast" in SOFTMAX.check_own_work(bits.calls, x.numel())[0]
    with torch.no_grad(), BitLevelRecorder() as bits:
        x.view(64, 8).float().view(8, 64) * (x > 0).float() + x.to(torch.float32).view(
            torch.float32)
    assert bits.calls == []


# ---- dense tasks (session 31): the epilogue allowance has a size ---------------------------

def _dense_policy(reference, *inputs):
    """A dense task's policy as the judge builds it: the reference's operators, the largest
    tensor and the multiply-adds its forward touched (TensorScale)."""
    from kforge_worker.trust_ops import ModuleRecorder, OpRecorder, TensorScale
    ops, modules, scale = OpRecorder(), ModuleRecorder(), TensorScale()
    with torch.no_grad(), modules, ops, scale:
        outputs = reference(*inputs)
    policy = Policy(ops.names, modules.types, type(reference))
    policy.note_scale(list(inputs), outputs, reference, scale.largest)
    policy.macs, policy.epilogue = int(scale.macs), int(scale.volume)
    policy.out_elements = outputs.numel()
    return policy


class _Matmul(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


class _LinearReluNet(nn.Module):  # a network's own epilogues: ReLU and an add per block
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(64, 64) for _ in range(24))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x)) + x
        return x


def test_the_judges_scale_of_a_dense_task():
    a, b = torch.randn(16, 32), torch.randn(32, 8)
    policy = _dense_policy(_Matmul(), a, b)
    assert policy.dense and policy.scale == 512 and policy.macs == 16 * 32 * 8
    assert policy.epilogue == 0
    rebuilt = Policy.from_description(json.loads(json.dumps(policy.describe())))
    assert (rebuilt.scale, rebuilt.macs) == (512, 4096)
    conv = _dense_policy(nn.Conv2d(3, 4, 3), torch.randn(2, 3, 8, 8))
    assert conv.macs == 2 * 4 * 6 * 6 * 3 * 3 * 3   # output elements x one filter's
    net = _dense_policy(_LinearReluNet(), torch.randn(8, 64))
    assert net.scale == 64 * 64 and net.epilogue >= 24 * 2 * 8 * 64


def test_a_gemm_in_elementwise_operators_is_the_dense_operator():
    """a76_gemm_broadcast_mul_sum: the GEMM as broadcast multiply and sum is K times the output;
    a K loop of outer products is K passes."""
    a, b = torch.randn(16, 32), torch.randn(32, 8)
    policy = _dense_policy(_Matmul(), a, b)
    with torch.no_grad(), AtenRecorder() as aten:
        (a[:, :, None] * b[None]).sum(1)
    reasons = policy.check_own_work(aten.calls, 512)
    assert reasons and "dense operator in PyTorch's elementwise operators" in reasons[0]
    # a K loop of outer products: K passes over the output (blind red team, session 31: K = 32
    # with a decoy dot for the multiply count)
    with torch.no_grad(), AtenRecorder() as aten:
        acc = torch.zeros(16, 8)
        for k in range(32):
            acc = torch.addcmul(acc, a[:, k:k + 1], b[k:k + 1])
    reasons = policy.check_own_work(aten.calls, 512)
    assert reasons and "addcmul" in reasons[0] and "passes over the output" in reasons[0]


def _epilogue(z):  # a bias, a GroupNorm-like normalisation, two Swish and a scale
    z = z + 1.0
    z = (z - z.mean(1, keepdim=True)) / (z.var(1, keepdim=True) + 1e-5).sqrt()
    z = z * torch.sigmoid(z) * 2.0
    return z * torch.sigmoid(z)


class _MatmulEpilogue(nn.Module):  # KernelBench level 2's shape of task
    def forward(self, a, b):
        return _epilogue(torch.matmul(a, b))


def test_an_epilogue_of_a_dense_task_is_allowed():
    a, b = torch.randn(16, 32), torch.randn(32, 8)
    y = torch.randn(16, 8)
    with torch.no_grad(), AtenRecorder() as aten:   # its own GEMM, the reference's epilogue
        _epilogue(y)
    assert _dense_policy(_MatmulEpilogue(), a, b).check_own_work(aten.calls, 512) == []
    # a few passes of glue beside a plain GEMM (a bias, a scale, a clamp, a cast)
    with torch.no_grad(), AtenRecorder() as aten:
        (y * 2.0 + 1.0).clamp(-3, 3).relu()
    assert _dense_policy(_Matmul(), a, b).check_own_work(aten.calls, 512) == []
    # a network's per-block ReLU and add, in PyTorch beside its own GEMMs
    net = _dense_policy(_LinearReluNet(), torch.randn(8, 64))
    x = torch.randn(8, 64)
    with torch.no_grad(), AtenRecorder() as aten:
        for _ in range(24):
            x = torch.relu(x * 1.0) + x
    assert net.check_own_work(aten.calls, 8 * 64) == []


class _DiagMatmul(nn.Module):  # KernelBench level1 12: diag(A) @ B
    def forward(self, a, b):
        return torch.diag(a) @ b


def test_own_multiplies_against_the_tasks_multiply_adds():
    a, b = torch.randn(16, 32), torch.randn(32, 8)
    policy = _dense_policy(_Matmul(), a, b)
    with torch.no_grad(), AtenRecorder() as aten:   # PyTorch computed it, a kernel copies
        (a[:, :, None] * b[None]).sum(1)
    assert policy.check_own_multiplies(4096, aten.calls) == []
    assert policy.check_own_multiplies(500, aten.calls) == []   # Winograd-like savings pass
    reasons = policy.check_own_multiplies(0, aten.calls)
    assert reasons and "its own kernels did 0 floating-point multiplies" in reasons[0]
    assert SOFTMAX.check_own_multiplies(0, aten.calls) == []     # not a dense task
    # a cheaper algorithm of its own: the diagonal's product as a scaling (N^2 of N^3), with
    # nothing left to PyTorch
    diag = _dense_policy(_DiagMatmul(), torch.randn(32), torch.randn(32, 32))
    assert diag.macs == 32 ** 3
    with torch.no_grad(), AtenRecorder() as aten:
        torch.empty(32, 32)
    assert diag.check_own_multiplies(32 * 32, aten.calls) == []


def test_resolving_a_conjugate_view_is_not_a_dense_operator():
    """`resolve_conj` ran under every reference's linear and was charged as "computed the task's
    dense operator with another PyTorch one" (the solve family's pattern matched it)."""
    from kforge_worker.trust_ops import is_dense
    assert not is_dense("resolve_conj") and not is_dense("resolve_neg")
    assert is_dense("linalg_solve") and is_dense("triangular_solve")
    assert Policy(["linear"], [nn.Linear], Double).check(["resolve_conj", "t"], []) == []
