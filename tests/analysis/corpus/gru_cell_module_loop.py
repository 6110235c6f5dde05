# Seed pattern (39_GRU initial seed): a GRUCell module whose forward launches three kernels
# (matmul_bias twice, gru_pointwise), called once per time step from ModelNew.forward.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_bias_kernel(a_ptr, w_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < N
    acc = tl.load(b_ptr + offs_n, mask=mask_n, other=0.0)
    for k in range(K):
        a = tl.load(a_ptr + row * K + k)
        acc += a * tl.load(w_ptr + k * N + offs_n, mask=mask_n, other=0.0)
    tl.store(c_ptr + row * N + offs_n, acc, mask=mask_n)


@triton.jit
def gru_pointwise_kernel(gx_ptr, gh_ptr, h_ptr, out_ptr, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < H
    base = row * 3 * H + offs
    r = tl.sigmoid(tl.load(gx_ptr + base, mask=mask) + tl.load(gh_ptr + base, mask=mask))
    z = tl.sigmoid(tl.load(gx_ptr + base + H, mask=mask) + tl.load(gh_ptr + base + H, mask=mask))
    n_pre = tl.load(gx_ptr + base + 2 * H, mask=mask) + r * tl.load(gh_ptr + base + 2 * H,
                                                                    mask=mask)
    n = 2.0 * tl.sigmoid(2.0 * n_pre) - 1.0
    h = tl.load(h_ptr + row * H + offs, mask=mask)
    tl.store(out_ptr + row * H + offs, (1.0 - z) * n + z * h, mask=mask)


def matmul_bias(x, w_t, b):
    M, K = x.shape
    N = w_t.shape[1]
    out = torch.empty(M, N, device=x.device, dtype=x.dtype)
    matmul_bias_kernel[(M, triton.cdiv(N, 64))](x, w_t, b, out, M, N, K=K, BLOCK_N=64)
    return out


def gru_pointwise(gates_x, gates_h, h_prev):
    B, H = h_prev.shape
    out = torch.empty_like(h_prev)
    gru_pointwise_kernel[(B,)](gates_x, gates_h, h_prev, out, H, BLOCK=triton.next_power_of_2(H))
    return out


class GRUCell(nn.Module):
    def __init__(self, w_ih, w_hh, b_ih, b_hh):
        super().__init__()
        self.W_ih, self.W_hh, self.b_ih, self.b_hh = w_ih, w_hh, b_ih, b_hh

    def forward(self, x, h_prev):
        # Per-timestep kernel launches
        gates_x = matmul_bias(x, self.W_ih, self.b_ih)  # Launch 1
        gates_h = matmul_bias(h_prev, self.W_hh, self.b_hh)  # Launch 2
        return gru_pointwise(gates_x, gates_h, h_prev)  # Launch 3


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first)
        self.num_layers = num_layers
        self.cells = nn.ModuleList([
            GRUCell(getattr(self.gru, f"weight_ih_l{i}").t().contiguous(),
                    getattr(self.gru, f"weight_hh_l{i}").t().contiguous(),
                    getattr(self.gru, f"bias_ih_l{i}"), getattr(self.gru, f"bias_hh_l{i}"))
            for i in range(num_layers)])

    def forward(self, x, h0):
        layer_input = x
        h_n = []
        for layer, cell in enumerate(self.cells):
            h = h0[layer]
            outputs = []
            for x_t in layer_input.unbind(0):
                h = cell(x_t, h)
                outputs.append(h)
            layer_input = torch.stack(outputs, 0)
            h_n.append(h)
        return torch.stack(h_n, 0)
