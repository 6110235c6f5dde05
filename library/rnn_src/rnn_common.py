# ---- shared RNN kernels (library/rnn_src/rnn_common.py; copied verbatim into each candidate) ----
#
# On Hopper the stack runs on the CUDA thread-block-cluster kernel (rnn_cluster.cu, below; host
# side at the end of this file). Elsewhere, on CPU (TRITON_INTERPRET=1) and for shapes that
# kernel does not take, one persistent Triton kernel runs the whole time loop of one or more stacked layers.
# Programs split the hidden units: program `part` of group (layer, direction) owns units
# [part*HSB, part*HSB + HSB) and keeps its slice of W_hh (and W_ih) in registers for all steps.
# Each step needs the whole h[t-1] of its group, written by the group's other programs, so each
# group has a step counter in global memory: a program publishes its slice of h[t] to the layer's
# output sequence, then bumps the counter with release semantics; readers spin on it with acquire
# semantics. Every program must be resident at once (grid <= SM count), or the spin deadlocks.
#
# Unidirectional stacks run as a wavefront in one launch: layer l at step t waits for its own
# group at step t-1 and for layer l-1 at step t, and computes its input projection in-kernel.
# The first layer of a launch reads its input projection from one GEMM done outside (addmm).
# Bidirectional stacks cannot pipeline across layers (layer l needs both directions of layer l-1
# at every step), so they run one launch per layer with the two directions side by side.
#
# Under TRITON_INTERPRET=1 (CPU) programs run one after another, so a group has one program
# (P = 1, no cross-program wait) and groups are numbered layer-major: the same code, no deadlock.
#
# Precision: exact fp32 by default. RNN_CONFIG["tf32"] = None follows PyTorch's flag for cuDNN,
# read on every forward (issue 13): on CUDA with torch.backends.cudnn.allow_tf32 every matmul
# operand (x, h, W_ih, W_hh) is
# rounded to TF32 (10 mantissa bits, round to nearest even) before an exact product accumulated in
# fp32, as cuDNN's TF32 RNN does (bench/bench_rnn_tf32.py); the gate math and the h/c state stay
# fp32 (only the operand copy of h is rounded). Flag off, on the CPU or under the interpreter: exact
# fp32. RNN_CONFIG["tf32"] True / False forces either (the CPU tests run the rounding under the
# interpreter). Exact is the default because following measured 12-14% slower on the H100 (one
# more barrier and the ring rounding per step) and still missed 1e-4 of cuDNN's TF32 output on
# the bidirectional GRUs (docs/numerics.md, docs/bench/gpu_h100_20261125b.md).

import math
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    # exp of a non-positive argument: no overflow for large |x|
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x >= 0, t, -t)


@triton.jit
def _round_tf32(x):
    # fp32 -> the nearest TF32 value (ties to even) as fp32; NaN and Inf unchanged (round_tf32)
    bits = x.to(tl.uint32, bitcast=True)
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    rounded = tl.where((bits & 0x7F800000) == 0x7F800000, bits, rounded)
    return rounded.to(tl.float32, bitcast=True)


@triton.jit
def _mv(a, w, USE_DOT: tl.constexpr, PREC: tl.constexpr):
    # a: [BB, KB] activations, w: [KB, HSB] transposed weight slice -> [BB, HSB]
    if USE_DOT:
        return tl.dot(a, w, input_precision=PREC)
    else:
        return tl.sum(a[:, :, None] * w[None, :, :], axis=1)


@triton.jit
def _load_w(base, H, k, j, mask):
    # rows j of one gate block of a [G*H, H] matrix, transposed to [KB, HSB]
    return tl.load(base + j[None, :] * H + k[:, None], mask=mask, other=0.0)


@triton.jit
def _load_gates(row, H, mask, LSTM: tl.constexpr):
    g0 = tl.load(row, mask=mask, other=0.0)
    g1 = tl.load(row + H, mask=mask, other=0.0)
    g2 = tl.load(row + 2 * H, mask=mask, other=0.0)
    g3 = g2
    if LSTM:
        g3 = tl.load(row + 3 * H, mask=mask, other=0.0)
    return g0, g1, g2, g3


@triton.jit
def _wait(counter, target):
    seen = tl.atomic_add(counter, 0, sem="acquire")
    while seen < target:
        seen = tl.atomic_add(counter, 0, sem="acquire")


@triton.jit
def rnn_layers_kernel(
        gx_ptr, gx_sd, gx_st, gx_sb,      # input gates of the launch's first layer (+ b_ih)
        wih_ptr, bih_ptr,                 # [NL-1, G*H, H], [NL-1, G*H]: in-kernel input weights
        whh_ptr, bhh_ptr,                 # [NL, D, G*H, H], [NL, D, G*H]
        h0_ptr, c0_ptr,                   # [NL, D, B, H]
        seq_ptr,                          # [NL, T, B, D*H] outputs of every layer, time-major
        hn_ptr, cn_ptr,                   # [NL, D, B, H]
        cnt_ptr,                          # [NL*D] int32 step counters, zeroed
        T, B, H,
        NL: tl.constexpr, D: tl.constexpr, P: tl.constexpr, LSTM: tl.constexpr,
        BB: tl.constexpr, HSB: tl.constexpr, KB: tl.constexpr, USE_DOT: tl.constexpr,
        PREC: tl.constexpr, TF32: tl.constexpr):
    # TF32: the weights come rounded (packed so); x and h are rounded here, as matmul operands only
    pid = tl.program_id(0)
    part = pid % P
    grp = pid // P                        # layer-major, so layer l-1 comes first
    dirn = grp % D
    layer = grp // D
    G: tl.constexpr = 4 if LSTM else 3
    GH = G * H
    DH = D * H

    b = tl.arange(0, BB)
    j = part * HSB + tl.arange(0, HSB)
    k = tl.arange(0, KB)
    bm = b < B
    jm = j < H
    km = k < H
    wmask = km[:, None] & jm[None, :]
    smask = bm[:, None] & jm[None, :]
    amask = bm[:, None] & km[None, :]

    # weights and biases stay in registers for the whole sequence
    wh = whh_ptr + grp * GH * H
    wh0 = _load_w(wh, H, k, j, wmask)
    wh1 = _load_w(wh + H * H, H, k, j, wmask)
    wh2 = _load_w(wh + 2 * H * H, H, k, j, wmask)
    bh = bhh_ptr + grp * GH + j
    bh0 = tl.load(bh, mask=jm, other=0.0)[None, :]
    bh1 = tl.load(bh + H, mask=jm, other=0.0)[None, :]
    bh2 = tl.load(bh + 2 * H, mask=jm, other=0.0)[None, :]
    if LSTM:
        wh3 = _load_w(wh + 3 * H * H, H, k, j, wmask)
        bh3 = tl.load(bh + 3 * H, mask=jm, other=0.0)[None, :]
    if NL > 1:
        li = tl.maximum(layer - 1, 0)     # layer 0 loads layer 1's and never uses them
        wi = wih_ptr + li * GH * H
        wi0 = _load_w(wi, H, k, j, wmask)
        wi1 = _load_w(wi + H * H, H, k, j, wmask)
        wi2 = _load_w(wi + 2 * H * H, H, k, j, wmask)
        bi = bih_ptr + li * GH + j
        bi0 = tl.load(bi, mask=jm, other=0.0)[None, :]
        bi1 = tl.load(bi + H, mask=jm, other=0.0)[None, :]
        bi2 = tl.load(bi + 2 * H, mask=jm, other=0.0)[None, :]
        if LSTM:
            wi3 = _load_w(wi + 3 * H * H, H, k, j, wmask)
            bi3 = tl.load(bi + 3 * H, mask=jm, other=0.0)[None, :]

    st_off = grp * B * H + b[:, None] * H + j[None, :]
    h_own = tl.load(h0_ptr + st_off, mask=smask, other=0.0)
    if LSTM:
        c = tl.load(c0_ptr + st_off, mask=smask, other=0.0)

    seq_l = seq_ptr + layer * T * B * DH
    own_cnt = cnt_ptr + grp
    prev_cnt = cnt_ptr + tl.maximum(grp - D, 0)
    gx_cols = gx_ptr + dirn * gx_sd + b[:, None] * gx_sb + j[None, :]
    t = 0
    while t < T:                          # not range(T): the 3.6 interpreter fails on it with numpy 2
        tt = t + dirn * (T - 1 - 2 * t)   # reverse direction walks time backwards

        # input gates: from the GEMM for the launch's first layer, else from layer-1's h[tt]
        if NL > 1:
            if layer == 0:
                gi0, gi1, gi2, gi3 = _load_gates(gx_cols + tt * gx_st, H, smask, LSTM)
            else:
                _wait(prev_cnt, P * (t + 1))
                x = tl.load(seq_l - T * B * DH + tt * B * DH + b[:, None] * DH + k[None, :],
                            mask=amask, other=0.0, cache_modifier=".cg")
                if TF32:
                    x = _round_tf32(x)
                gi0 = _mv(x, wi0, USE_DOT, PREC) + bi0
                gi1 = _mv(x, wi1, USE_DOT, PREC) + bi1
                gi2 = _mv(x, wi2, USE_DOT, PREC) + bi2
                gi3 = gi2
                if LSTM:
                    gi3 = _mv(x, wi3, USE_DOT, PREC) + bi3
        else:
            gi0, gi1, gi2, gi3 = _load_gates(gx_cols + tt * gx_st, H, smask, LSTM)

        # h[t-1] of the whole group: wait until every program of the group has published it
        _wait(own_cnt, P * t)
        if t == 0:
            hp = tl.load(h0_ptr + grp * B * H + b[:, None] * H + k[None, :], mask=amask, other=0.0)
        else:
            t_prev = tt - 1 + 2 * dirn
            hp = tl.load(seq_l + t_prev * B * DH + b[:, None] * DH + dirn * H + k[None, :],
                         mask=amask, other=0.0, cache_modifier=".cg")
        if TF32:
            hp = _round_tf32(hp)       # the operand copy; h_own (GRU's z * h) stays fp32

        gh0 = _mv(hp, wh0, USE_DOT, PREC) + bh0
        gh1 = _mv(hp, wh1, USE_DOT, PREC) + bh1
        gh2 = _mv(hp, wh2, USE_DOT, PREC) + bh2
        if LSTM:
            gh3 = _mv(hp, wh3, USE_DOT, PREC) + bh3
            c = _sigmoid(gi1 + gh1) * c + _sigmoid(gi0 + gh0) * _tanh(gi2 + gh2)
            h_own = _sigmoid(gi3 + gh3) * _tanh(c)
        else:
            r = _sigmoid(gi0 + gh0)
            z = _sigmoid(gi1 + gh1)
            n = _tanh(gi2 + r * gh2)
            h_own = (1.0 - z) * n + z * h_own

        tl.store(seq_l + tt * B * DH + b[:, None] * DH + dirn * H + j[None, :], h_own, mask=smask)
        tl.debug_barrier()                # all threads' stores precede the release below
        tl.atomic_add(own_cnt, 1, sem="release")
        t += 1

    tl.store(hn_ptr + st_off, h_own, mask=smask)
    if LSTM:
        tl.store(cn_ptr + st_off, c, mask=smask)


@triton.jit
def input_gates_kernel(x_ptr, sx_t, sx_b, w_ptr, b_ptr, out_ptr, M, N, B, GHS, K: tl.constexpr,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       GROUP: tl.constexpr, PREC: tl.constexpr, ROUND_X: tl.constexpr):
    """The cluster engine's input projection, out = x @ w.T + b, stored straight in the layout
    the kernel streams: column n of row r = t*B + b goes to out[n // GHS][r][n % GHS] (GHS = a
    CTA's gates x units), so no permute copy follows. x rows are (t, b) at any strides (batch
    first or not, no transpose copy); w is [N, K]. PREC "tf32x3": three TF32 tensor-core products
    per term (within ~1e-6 relative of fp32, against ~50 TFLOPS of fp32 FMA). TF32 mode: ROUND_X
    rounds x to TF32 as it is loaded, w comes rounded, and PREC "tf32" (one product per term) is
    then exact on them."""
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    # GROUP row blocks share their column blocks of w while they sit in L2
    width = GROUP * grid_n
    first_m = (pid // width) * GROUP
    rows_in_group = tl.minimum(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % width) % rows_in_group
    pid_n = (pid % width) // rows_in_group
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mm = rm < M
    nm = rn < N
    a_ptrs = x_ptr + ((rm // B) * sx_t + (rm % B) * sx_b)[:, None] + rk[None, :]
    w_ptrs = w_ptr + rn[None, :] * K + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):             # K constexpr: the interpreter cannot range over a tensor
        km = rk + k < K
        a = tl.load(a_ptrs, mask=mm[:, None] & km[None, :], other=0.0)
        if ROUND_X:
            a = _round_tf32(a)
        w = tl.load(w_ptrs, mask=km[:, None] & nm[None, :], other=0.0)
        acc = tl.dot(a, w, acc, input_precision=PREC)
        a_ptrs += BK
        w_ptrs += BK
    acc += tl.load(b_ptr + rn, mask=nm, other=0.0)[None, :]
    out = (rn // GHS)[None, :] * (M * GHS) + rm[:, None] * GHS + (rn % GHS)[None, :]
    tl.store(out_ptr + out, acc, mask=mm[:, None] & nm[None, :])


# ---- host side ----

def _interpreting():
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def _sm_count(device):
    if device.type != "cuda":
        return 1
    return torch.cuda.get_device_properties(device).multi_processor_count


# Tunables (None = automatic): use_dot = tl.dot (needs tiles >= 16) instead of a broadcast
# reduction; hsb = hidden units per program; prec = tl.dot's input_precision ("ieee" is exact
# fp32; "tf32x3" emulates fp32 on tensor cores with three TF32 products).
# engine: "auto" (the CUDA cluster kernel where it fits, else Triton), "triton" or "cluster";
# batch_groups: clusters per (layer, direction), each on its own rows of the batch (None = as many
# as fit, up to one per 4 rows); ring = input steps in flight per CTA (2..8), publish = steps
# between a wavefront layer's progress publications; exchange = how a CTA sends its slice of h[t]
# to the peers (0: 16-byte st.async by every thread, 1: one bulk copy per peer; None: the one
# measured faster on H100, bulk for wavefront launches); fuse = with 9 or 10 batch rows left, run
# them as one pass of 8 + 2 rows whose latency chains interleave (else 8, then 2); profile =
# build with per-phase clocks (kernel work only: bench/bench_rnn_scaling.py --profile), left in
# LAST_PROFILE.
# gemm = the cluster engine's input projection: "tf32x3" or "ieee" (input_gates_kernel, with that
# tl.dot precision, written in the kernel's layout) or "torch" (addmm, then a permute copy);
# gemm_tile = its (BM, BN, BK, num_warps, num_stages); graph = replay the cluster path's launches
# from a CUDA graph (rnn_forward).
# tf32 = matmul operands rounded to TF32 (tf32_mode): False (the default) exact fp32, None follows
# torch.backends.cudnn.allow_tf32 on CUDA (exact on the CPU), True forces it (also on the CPU).
RNN_CONFIG = {"use_dot": None, "hsb": None, "prec": "ieee", "num_warps": 4,
              "engine": "auto", "batch_groups": None, "ring": 4, "publish": 4, "exchange": None,
              "fuse": True, "profile": False, "gemm": "tf32x3", "gemm_tile": (128, 128, 32, 8, 3),
              "graph": True, "tf32": False}
LAST_KERNEL = []   # the last compiled kernel, for resource reports (registers, spills)
LAST_PROFILE = []  # profile builds: per launch, [groups, CL, 2, phases] clocks
PROFILE_PHASES = 7  # rnn_cluster.cu kPhases


def tf32_mode(device):
    """Whether this forward rounds its matmul operands to TF32. RNN_CONFIG["tf32"] None: as cuDNN's
    RNN does, on CUDA when torch.backends.cudnn.allow_tf32 allows it (read on every call, so
    flipping the flag takes effect at the next forward), never on the CPU; True / False force it."""
    forced = RNN_CONFIG["tf32"]
    if forced is not None:
        return bool(forced)
    return device.type == "cuda" and bool(torch.backends.cudnn.allow_tf32)


@triton.jit
def _round_tf32_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, _round_tf32(tl.load(src + offs, mask=offs < n)), mask=offs < n)


def round_tf32(t):
    """float32 tensor -> the nearest TF32 values (10 mantissa bits, ties to even), as float32;
    NaN and Inf unchanged. The same bits as _round_tf32 (Triton, which this launches) and
    round_tf32 (rnn_cluster.cu). A kernel of our own, not PyTorch's bit operators: a candidate's
    forward that reinterprets float bits in PyTorch is computing there (the own-work rule)."""
    src = t.float().contiguous()
    out = torch.empty_like(src)
    n = src.numel()
    if n:
        _round_tf32_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


def _plan(H, B, groups, device):
    """Slice width HSB (units per program), programs per group P, batch block BB, use_dot."""
    if _interpreting() or device.type != "cuda":
        hsb = triton.next_power_of_2(H)   # one program per group: no cross-program wait
        return hsb, 1, triton.next_power_of_2(B), bool(RNN_CONFIG["use_dot"])
    sms = _sm_count(device)
    hsb = RNN_CONFIG["hsb"]
    use_dot = RNN_CONFIG["use_dot"]
    if hsb is None:
        hsb = 1
        while groups * triton.cdiv(H, hsb) > sms and hsb < H:
            hsb *= 2
        hsb = min(hsb, triton.next_power_of_2(H))
    if use_dot is None:
        use_dot = hsb >= 16
    if use_dot:
        hsb = max(hsb, 16)
    p = triton.cdiv(H, hsb)
    if groups * p > sms:
        raise RuntimeError(f"rnn kernel needs {groups * p} co-resident programs, "
                           f"the GPU has {sms} SMs")
    bb = triton.next_power_of_2(B)
    if use_dot:
        bb = max(bb, 16)
    return hsb, p, bb, use_dot


def _layer_params(rnn, layer, sfx, G, H, device):
    w_ih = getattr(rnn, f"weight_ih_l{layer}{sfx}")
    w_hh = getattr(rnn, f"weight_hh_l{layer}{sfx}")
    if rnn.bias:
        b_ih = getattr(rnn, f"bias_ih_l{layer}{sfx}")
        b_hh = getattr(rnn, f"bias_hh_l{layer}{sfx}")
    else:
        b_ih = torch.zeros(G * H, device=device, dtype=w_ih.dtype)
        b_hh = torch.zeros(G * H, device=device, dtype=w_ih.dtype)
    return w_ih, w_hh, b_ih, b_hh


def _weights_key(rnn):
    """(data_ptr, _version) of every parameter: it changes when one is replaced (nn.RNNBase keeps
    _flat_weights current) or updated in place. Attribute reads only: rnn_forward's graph replay
    computes it on every call while the GPU idles."""
    weights = getattr(rnn, "_flat_weights", None) or list(rnn.parameters())
    return tuple((w.data_ptr(), w._version) for w in weights)


class _PackedWeights:
    """Per-launch weight stacks, rebuilt only when a parameter or the layout changes."""

    def __init__(self):
        self.key = None
        self.launches = None
        self.graph = None   # rnn_forward's CUDA graph: (key, graph, static inputs, outputs)

    def get(self, rnn, lstm, chunks, geometry=None, tf32=False):
        key = _weights_key(rnn) + (tuple(chunks), geometry, bool(tf32))
        if key != self.key:
            self.launches = [self._pack(rnn, lstm, l0, nl, geometry, tf32) for l0, nl in chunks]
            self.key = key
        return self.launches

    @staticmethod
    def _pack(rnn, lstm, l0, nl, geometry, tf32=False):
        """tf32: the weight matrices rounded to TF32 (the biases stay fp32)."""
        G = 4 if lstm else 3
        H = rnn.hidden_size
        D = 2 if rnn.bidirectional else 1
        device = rnn.weight_hh_l0.device
        sfxs = ["", "_reverse"][:D]
        per = [[_layer_params(rnn, l, s, G, H, device) for s in sfxs] for l in range(l0, l0 + nl)]
        first = per[0]
        with torch.no_grad():
            w_in = torch.cat([p[0] for p in first], 0)       # [D*G*H, I]
            b_in = torch.cat([p[2] for p in first], 0)
            if geometry is not None:   # cluster engine: rows as [direction][rank][gate][unit]
                w_in, b_in = _permute_gate_rows(w_in, b_in, D, G, H, *geometry)
            w_in, b_in = w_in.contiguous(), b_in.contiguous()
            whh = torch.stack([torch.stack([p[1] for p in lp]) for lp in per]).contiguous()
            bhh = torch.stack([torch.stack([p[3] for p in lp]) for lp in per]).contiguous()
            if nl > 1:   # unidirectional only
                wih = torch.stack([lp[0][0] for lp in per[1:]]).contiguous()
                bih = torch.stack([lp[0][2] for lp in per[1:]]).contiguous()
            else:
                wih, bih = whh, bhh       # unused
            if tf32:
                w_in, whh = round_tf32(w_in), round_tf32(whh)
                wih = whh if nl == 1 else round_tf32(wih)
        return w_in, b_in, wih, bih, whh, bhh


def _permute_gate_rows(w_in, b_in, D, G, H, HS, CL):
    """Rows g*H + unit of each direction's [G*H, I] block, reordered so that cluster rank r's
    gates are one contiguous run: [direction][rank][gate][unit in slice]; zero rows pad units
    past H."""
    src = []
    for d in range(D):
        for r in range(CL):
            for g in range(G):
                for u in range(HS):
                    unit = r * HS + u
                    src.append(d * G * H + g * H + unit if unit < H else -1)
    index = torch.tensor(src, device=w_in.device)
    valid = index >= 0
    w = torch.zeros(len(src), w_in.shape[1], device=w_in.device, dtype=w_in.dtype)
    b = torch.zeros(len(src), device=w_in.device, dtype=w_in.dtype)
    w[valid] = w_in[index[valid]]
    b[valid] = b_in[index[valid]]
    return w, b


# ---- the CUDA cluster engine (GPU fast path; the Triton kernel is the CPU path and fallback) ----

_CLUSTER = {"module": None, "error": None, "plans": {}, "profile": False}
_CLUSTER_DECL = ("int64_t rnn_cluster_run(int64_t gx, int64_t wih, int64_t bih, int64_t whh, "
                 "int64_t bhh, int64_t h0, int64_t c0, int64_t seq, int64_t hn, int64_t cn, "
                 "int64_t flags, int64_t T, int64_t B, int64_t H, int64_t NL, int64_t D, "
                 "int64_t NBG, int64_t lstm, int64_t ring, int64_t publish, int64_t exchange, "
                 "int64_t fuse, int64_t tf32, int64_t prof, int64_t stream, int64_t query);")
MAX_CLUSTER_HIDDEN = 320   # the kernel keeps a unit's weight rows in registers: H <= 5 * 64


def _cluster_geometry(H):
    """(units per CTA, CTAs per cluster), as rnn_cluster.cu computes them."""
    hs = 4 * ((H + 63) // 64)
    return hs, (H + hs - 1) // hs


def _cluster_source():
    source = globals().get("RNN_CLUSTER_CU")
    if source is None:   # running from library/rnn_src: the file beside this one
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "rnn_cluster.cu"), encoding="utf-8") as handle:
            source = handle.read()
    return source


def _cluster_module():
    """The compiled cluster kernel, or None (no CUDA toolchain, not Hopper, build failed)."""
    if _CLUSTER["profile"] != bool(RNN_CONFIG["profile"]):
        _CLUSTER.update(module=None, error=None, plans={}, profile=bool(RNN_CONFIG["profile"]))
    if _CLUSTER["module"] is None and _CLUSTER["error"] is None:
        try:
            if torch.cuda.get_device_capability()[0] < 9:
                raise RuntimeError("thread block clusters need compute capability 9.0")
            import hashlib
            source = _cluster_source()
            flags = ["-O3", "-std=c++17"] + (["-DKFORGE_RNN_PROFILE"] if _CLUSTER["profile"]
                                             else [])
            # the name hashes everything the build depends on, so a module built under it is
            # this source's
            digest = hashlib.sha1("\0".join([source, _CLUSTER_DECL] + flags).encode())
            name = f"kforge_rnn_cluster_{digest.hexdigest()[:12]}" + (
                "_profile" if _CLUSTER["profile"] else "")
            _CLUSTER["module"] = _built_module(name) or _load_inline(
                name=name, cpp_sources=_CLUSTER_DECL, cuda_sources=source,
                functions=["rnn_cluster_run"], extra_cuda_cflags=flags, verbose=False)
        except Exception as error:  # the Triton kernel takes over
            _CLUSTER["error"] = f"{type(error).__name__}: {error}"
    return _CLUSTER["module"]


def _load_inline(**arguments):
    from torch.utils.cpp_extension import load_inline  # (0.3 s to import: only when building)
    return load_inline(**arguments)


def _built_module(name):
    """The extension load_inline built before under `name` in TORCH_EXTENSIONS_DIR (the
    harness always sets it), imported directly, or None. load_inline itself imports
    torch.utils.cpp_extension (~0.3 s) and re-runs ninja and torch's checks in every process,
    even with its build up to date: 0.31-0.43 s of an RNN candidate's first call on an H200,
    against 0.002 s for the import (bench/diag/rnn_first_call.py, session 28)."""
    root = os.environ.get("TORCH_EXTENSIONS_DIR")
    if not root:
        return None
    try:
        import importlib.util
        path = os.path.join(root, name, name + ".so")
        if not os.path.isfile(path):
            return None
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module if hasattr(module, "rnn_cluster_run") else None
    except Exception:  # not built, built elsewhere, a torch without the helper: load_inline
        return None


def _cluster_call(module, query, T, B, H, nl, D, nbg, lstm, tf32, tensors=None, prof=None):
    ptrs = [0] * 11 if tensors is None else [t.data_ptr() for t in tensors]
    stream = torch.cuda.current_stream().cuda_stream
    exchange = RNN_CONFIG["exchange"]
    if exchange is None:
        exchange = 1 if nl > 1 else 0
    return module.rnn_cluster_run(*ptrs, T, B, H, nl, D, nbg, int(lstm), RNN_CONFIG["ring"],
                                  RNN_CONFIG["publish"], exchange, int(RNN_CONFIG["fuse"]),
                                  int(tf32), 0 if prof is None else prof.data_ptr(), stream,
                                  int(query))


def _cluster_plan(L, D, B, H, lstm, tf32=False):
    """(batch groups, layers per launch), or None when the cluster kernel cannot run this shape.
    A unidirectional wavefront needs all its clusters resident at once (they wait on each
    other); bidirectional launches (one layer each) only want their clusters to fit."""
    engine = RNN_CONFIG["engine"]
    if engine == "triton" or _interpreting() or not torch.cuda.is_available():
        return None
    if H % 4 != 0 or H > MAX_CLUSTER_HIDDEN:
        return None
    key = (L, D, B, H, lstm, RNN_CONFIG["batch_groups"], bool(tf32))   # TF32: more shared memory
    if key not in _CLUSTER["plans"]:
        module = _cluster_module()
        plan = None
        if module is not None:
            wanted = RNN_CONFIG["batch_groups"]
            most = min(B, (B + 3) // 4) if wanted is None else min(wanted, B)
            nl = L if D == 1 else 1
            while plan is None and nl >= 1:
                for nbg in range(most, 0, -1):
                    fit = _cluster_call(module, True, 1, B, H, nl, D, nbg, lstm, tf32)
                    if fit >= nl * D * nbg:
                        plan = (nbg, nl)
                        break
                nl = nl - 1 if D == 1 else 0
        _CLUSTER["plans"][key] = plan
    return _CLUSTER["plans"][key]


_GEMM = {"error": None}   # input_gates_kernel failed to build or launch: addmm from then on


def cluster_input_gates(inp, batch_first, w_in, b_in, ghs, tf32=False):
    """inp ([B, T, I] if batch_first else [T, B, I]) @ w_in.T + b_in, laid out [N // ghs][T][B][ghs]
    (N = w_in rows) as the cluster kernel streams it: by RNN_CONFIG["gemm"]. tf32: w_in comes
    rounded to TF32 and inp is rounded here; the product of the rounded operands is then exact,
    one TF32 tensor-core product per term (Triton) or addmm's."""
    if inp.stride(-1) != 1:
        inp = inp.contiguous()
    T, B = (inp.shape[1], inp.shape[0]) if batch_first else (inp.shape[0], inp.shape[1])
    st, sb = (inp.stride(1), inp.stride(0)) if batch_first else (inp.stride(0), inp.stride(1))
    N, K = w_in.shape
    if RNN_CONFIG["gemm"] != "torch" and _GEMM["error"] is None:
        gx = torch.empty(N // ghs, T, B, ghs, device=inp.device, dtype=torch.float32)
        bm, bn, bk, warps, stages = RNN_CONFIG["gemm_tile"]
        grid = (triton.cdiv(T * B, bm) * triton.cdiv(N, bn),)
        try:
            input_gates_kernel[grid](inp, st, sb, w_in, b_in, gx, T * B, N, B, ghs, K=K, BM=bm,
                                     BN=bn, BK=bk, GROUP=8,
                                     PREC="tf32" if tf32 else RNN_CONFIG["gemm"], ROUND_X=tf32,
                                     num_warps=warps, num_stages=stages)
            return gx
        except Exception as error:  # e.g. a Triton build without this precision: addmm
            _GEMM["error"] = f"{type(error).__name__}: {error}"
    rows = (inp.transpose(0, 1) if batch_first else inp).reshape(T * B, K)
    if tf32:
        rows = round_tf32(rows)
    gx = torch.addmm(b_in, rows, w_in.t())
    return gx.view(T, B, N // ghs, ghs).permute(2, 0, 1, 3).contiguous()


_GRAPH = {"error": None}   # capturing the cluster path failed once: launch it eagerly from then on


def rnn_forward(rnn, packed, x, h0, c0, lstm):
    """Runs `rnn` (an nn.GRU/nn.LSTM holding the parameters, never called) on x.
    Returns (output in the module's layout, h_n, c_n or None).

    On the cluster engine the launches (input GEMM, flag reset, cluster kernel, per layer for
    bidirectional stacks) are replayed from a CUDA graph captured on the first call of a shape:
    launched one by one from Python, the GPU waited ~0.2 ms on the host between them (H100,
    bench/profile_rnn_candidate.py). The call copies its inputs into the graph's, replays, and
    returns copies of the outputs, so results never alias between calls."""
    x = x.contiguous().float()
    h0 = h0.contiguous().float()
    c0 = c0.contiguous().float() if lstm else h0
    tf32 = tf32_mode(x.device)   # PyTorch's cuDNN flag, as it stands at this call
    if (RNN_CONFIG["graph"] and x.is_cuda and not RNN_CONFIG["profile"] and _GRAPH["error"] is None
            and not torch.cuda.is_current_stream_capturing()):
        B = x.shape[0] if rnn.batch_first else x.shape[1]
        D = 2 if rnn.bidirectional else 1
        if _cluster_plan(rnn.num_layers, D, B, rnn.hidden_size, lstm, tf32) is not None:
            return _graph_replay(rnn, packed, x, h0, c0, lstm, tf32)
    return _run_stack(rnn, packed, x, h0, c0, lstm, tf32)


def _graph_replay(rnn, packed, x, h0, c0, lstm, tf32):
    """rnn_forward through the CUDA graph cached in `packed` (captured again when the shapes,
    the parameters, the TF32 mode or RNN_CONFIG change)."""
    # everything here runs while the GPU idles: keep it to attribute reads
    key = (x.shape, h0.shape, lstm, x.device, tuple(RNN_CONFIG.values()), _weights_key(rnn),
           tf32)
    sources = [x, h0, c0] if lstm else [x, h0]
    if packed.graph is None or packed.graph[0] != key:
        packed.graph = None
        static = [source.clone() for source in sources]
        args = (static[0], static[1], static[-1])   # a GRU's c0 slot repeats h0
        _run_stack(rnn, packed, *args, lstm, tf32)   # outside the capture: builds, plans, packs
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                outputs = _run_stack(rnn, packed, *args, lstm, tf32)
        except Exception as error:  # e.g. a driver that refuses to capture a cluster launch
            _GRAPH["error"] = f"{type(error).__name__}: {error}"
            return _run_stack(rnn, packed, x, h0, c0, lstm, tf32)
        packed.graph = (key, graph, static, outputs)
    _, graph, static, outputs = packed.graph
    torch._foreach_copy_(static, sources)   # one launch for all the input copies
    graph.replay()
    return tuple(None if out is None else out.clone() for out in outputs)


def _run_stack(rnn, packed, x, h0, c0, lstm, tf32=False):
    """rnn_forward's launches, on contiguous fp32 inputs; tf32: matmul operands rounded to TF32
    (tf32_mode)."""
    H = rnn.hidden_size
    L = rnn.num_layers
    D = 2 if rnn.bidirectional else 1
    G = 4 if lstm else 3
    device = x.device
    if rnn.batch_first:
        B, T = x.shape[0], x.shape[1]
    else:
        T, B = x.shape[0], x.shape[1]
    plan = _cluster_plan(L, D, B, H, lstm, tf32) if device.type == "cuda" else None
    if plan is not None:
        per_launch = plan[1]
    elif D == 1:   # layers per launch: the whole unidirectional stack as one wavefront if it fits
        per_launch = min(L, _sm_count(device) if not _interpreting() else L)
    else:
        per_launch = 1
    chunks = [(l0, min(per_launch, L - l0)) for l0 in range(0, L, per_launch)]
    geometry = _cluster_geometry(H) if plan is not None else None
    launches = packed.get(rnn, lstm, chunks, geometry, tf32)

    hn = torch.empty(L * D, B, H, device=device, dtype=torch.float32)
    cn = torch.empty(L * D, B, H, device=device, dtype=torch.float32) if lstm else hn
    inp, inp_batch_first = x, rnn.batch_first
    for (l0, nl), (w_in, b_in, wih, bih, whh, bhh) in zip(chunks, launches):
        i_size = inp.shape[-1]
        if plan is not None:   # [D*CL][T][B][G*HS]: a CTA's gates for one step in one block
            gx = cluster_input_gates(inp, inp_batch_first, w_in, b_in, G * geometry[0], tf32)
        else:
            rows = inp.reshape(-1, i_size)
            if tf32:   # w_in comes rounded: the product of rounded operands
                rows = round_tf32(rows)
            gx = torch.addmm(b_in, rows, w_in.t())                        # [rows, D*G*H]
            row = gx.shape[1]
            st, sb = (row, T * row) if inp_batch_first else (B * row, row)
        seq = torch.empty(nl, T, B, D * H, device=device, dtype=torch.float32)
        s0, s1 = l0 * D, (l0 + nl) * D
        if plan is not None:
            nbg = plan[0]
            flags = torch.zeros(nl * D * nbg * 16, device=device, dtype=torch.int32)
            prof = None
            if _CLUSTER["profile"]:
                prof = torch.zeros(nl * D * nbg, geometry[1], 2, PROFILE_PHASES, device=device,
                                   dtype=torch.int64)
                LAST_PROFILE.append(prof)
            err = _cluster_call(_CLUSTER["module"], False, T, B, H, nl, D, nbg, lstm, tf32,
                                [gx, wih, bih, whh, bhh, h0[s0:s1], c0[s0:s1], seq, hn[s0:s1],
                                 cn[s0:s1], flags], prof)
            if err != 0:
                raise RuntimeError(f"rnn cluster kernel launch failed: cudaError {err}")
        else:
            cnt = torch.zeros(nl * D, device=device, dtype=torch.int32)
            hsb, p, bb, use_dot = _plan(H, B, nl * D, device)
            kernel = rnn_layers_kernel[(nl * D * p,)](
                gx, G * H, st, sb, wih, bih, whh, bhh,
                h0[s0:s1], c0[s0:s1], seq, hn[s0:s1], cn[s0:s1], cnt,
                T, B, H,
                NL=nl, D=D, P=p, LSTM=lstm, BB=bb, HSB=hsb,
                KB=triton.next_power_of_2(H), USE_DOT=use_dot,
                PREC="tf32" if tf32 else RNN_CONFIG["prec"],   # TF32: exact on rounded operands
                TF32=tf32, num_warps=RNN_CONFIG["num_warps"])
            LAST_KERNEL[:] = [kernel]
        inp, inp_batch_first = seq[nl - 1], False
    out = inp                                                             # [T, B, D*H]
    if rnn.batch_first:
        out = out.transpose(0, 1)
    return out, hn, (cn if lstm else None)
