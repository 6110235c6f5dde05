// Hopper thread-block-cluster kernel for stacked GRU/LSTM layers (library/rnn_src/rnn_cluster.cu;
// embedded verbatim in each candidate and built with torch's load_inline).
//
// Geometry. One cluster of CL CTAs per (layer, direction, batch group); CTA `rank` owns HS hidden
// units [rank*HS, rank*HS + HS). Inside a CTA, 16 lanes (half a warp) share one unit: lane s
// holds, in registers for the whole sequence, the unit's G gate rows of W_hh (and W_ih for
// in-kernel layers) at columns k = 4*(s + 16*m) + i. A step is 16 lanes x G rows x MC float4
// chunks of FMAs against h[t-1] in shared memory, then a shuffle reduction that leaves each
// (unit, batch) pair's gate sums in one lane, which applies the nonlinearity. fp32 FMAs, no
// tensor cores; exp and reciprocal on the MUFU unit. Batch rows go 8, 4 or 2 to a pass, each
// pass one FMA block, one 4-level shuffle reduction and one epilogue: the step is a latency
// chain per pass, so fewer, wider passes are faster (H100, 6-layer LSTM wavefront at B = 10:
// 6.0 us/step with 4 + 4 + 2 rows, 4.7 with 8 + 2, 4.45 with 8 and 2 interleaved in one pass).
// A bidirectional launch splits the batch over clusters so each has one pass of up to 4 rows.
// Sending h[t] in pieces, one per pass so that a piece's exchange overlaps the next pass,
// measured slower (7.3 against 6.0 us/step).
//
// Exchange, with no cluster barrier per step (a cluster barrier compiles to a GPU-scope membar and
// an L1 flush per thread, ~3.5 us a step on H100): each CTA writes its slice of h[t] into its own
// shared memory, then sends it to every peer, counting the bytes on the peer's mbarrier; a CTA
// waits on its own mbarrier, double-buffered by step parity. Two ways to send (Params::exchange,
// measured on H100 by bench/bench_rnn_scaling.py): 16-byte st.async stores spread over all
// threads (faster for single-layer launches), or one bulk DSMEM copy per peer (faster for
// wavefront launches, whose CTAs also stream their input through TMA).
//
// Inputs arrive ahead of use through a ring of slots filled by bulk copies from global memory
// (TMA), each slot with its mbarrier: the input gates of the launch's first layer (one GEMM
// outside, laid out [direction*CL + rank][t][b][gate][unit] so one step of a CTA is one block),
// or, for in-kernel layers of a unidirectional stack, layer l-1's h[t], whose W_ih product is
// accumulated with W_hh's (the input half first: it overlaps the wait for h[t-1]). Those layers
// run as a wavefront in one launch: each CTA publishes how many steps of its slice are in global
// memory (every `publish` steps, release); the consumer polls the producer's CTAs (relaxed, then
// one acquire fence) before it issues a copy. All clusters of such a launch must be co-resident:
// the host asks cudaOccupancyMaxActiveClusters first. Every spin is bounded and traps rather
// than hang.
//
// TF32 mode (Params::tf32, torch.backends.cudnn.allow_tf32 on, as cuDNN's RNN): the matmul
// operands are TF32 values (round_tf32), the products exact, the sums fp32 as in exact mode. The
// host passes the weights rounded; the exchanged h[t] (hbuf) holds the rounded operand copy, made
// once by the unit's owner lane, while the fp32 h (GRU's z * h[t-1], the outputs) lives in hraw, a
// double-buffered copy of the CTA's own slice; an in-kernel layer rounds its ring slot of layer
// l-1's h[t] in place once it has landed. With tf32 = 0 none of this runs (no hraw either).

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace cg = cooperative_groups;

namespace {

constexpr int kSplit = 16;      // lanes per hidden unit, each summing its own columns
constexpr int kChunk = 4;       // batch rows are padded to a multiple of this; a pass takes 8, 4
                                // or 2 of them (reduce_unit<R>)
constexpr int kMaxRing = 8;     // input slots (Params::ring): copies issued ring-1 steps ahead
constexpr int kMaxCluster = 16;
// Phase clocks (built with -DKFORGE_RNN_PROFILE, bench/bench_rnn_scaling.py --profile): thread 0
// and the last warp's lane 0 of every CTA add up the clocks each phase of a step takes.
#ifdef KFORGE_RNN_PROFILE
constexpr int kPhases = 7;  // top, wait, compute, barrier, push, tail, total
#define PROF_MARK(phase)                     \
  do {                                       \
    const long long now_ = clock64();        \
    prof_acc[phase] += now_ - prof_last;     \
    prof_last = now_;                        \
  } while (0)
#else
#define PROF_MARK(phase) \
  do {                   \
  } while (0)
#endif
constexpr long long kSpinLimit = 1ll << 32;  // ~2 s of clocks: a lost wait traps, not hangs

struct Params {
  const float* gx;        // input gates (+ b_ih) of the launch's first layer,
                          // [D*CL][T][B][G*HS]: one contiguous block per CTA and step
  const float* wih;       // [NL-1][G*H][H] input weights of in-kernel layers
  const float* bih;       // [NL-1][G*H]
  const float* whh;       // [NL*D][G*H][H]
  const float* bhh;       // [NL*D][G*H]
  const float* h0;        // [NL*D][B][H]
  const float* c0;
  float* seq;             // [NL][T][B][D*H] every layer's output, time-major
  float* hn;              // [NL*D][B][H]
  float* cn;
  int* flags;             // [groups][kMaxCluster] steps published per CTA, zeroed
  int T, B, H, NL, D, NBG, NB;  // NB: batch rows per group, NBG groups
  int HS, CL, HP, SS, NBP, RW;  // units per CTA, cluster size, padded K, slice stride,
                                // padded rows, ring row width (floats)
  int ring, publish;            // input slots in use; steps between progress publications
  int exchange;                 // h[t] to the peers: 0 = st.async by every thread, 1 = one bulk
                                // copy per peer
  int fuse;                     // 9 or 10 rows left: one pass of 8 + 2 rows (1) or two passes
  int tf32;                     // 1: matmul operands rounded to TF32 (see the top of the file)
  long long* prof;              // KFORGE_RNN_PROFILE builds: [groups][CL][2][kPhases] clocks
};

// MUFU exp and reciprocal (one instruction each; __frcp_rn adds a Newton step and a slow-path
// branch): the step's epilogue is a latency chain, and these stay within ~1e-6 relative of the
// IEEE versions (checked against fp64 by the bench). 1 + exp >= 1: no denormal or zero input.
__device__ __forceinline__ float rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float sigm(float x) { return rcp(1.f + __expf(-x)); }
__device__ __forceinline__ float tanh_(float x) { return 1.f - 2.f * rcp(1.f + __expf(2.f * x)); }

// fp32 -> the nearest TF32 value (10 mantissa bits, ties to even) as fp32; NaN and Inf unchanged.
// The same bits as rnn_common.round_tf32 (and bench_rnn_tf32.round_tf32 "rne" on finite values).
__device__ __forceinline__ float round_tf32(float x) {
  unsigned u = __float_as_uint(x);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u;
  return __uint_as_float(u);
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void spin_guard(long long start) {
  if (clock64() - start > kSpinLimit) __trap();
}

__device__ __forceinline__ void mbar_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
}

// The phase's one arrival, announcing `bytes` of bulk-copy data.
__device__ __forceinline__ void mbar_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  const long long start = clock64();
  unsigned done = 0;
  for (;;) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
    if (done) return;
    spin_guard(start);
  }
}

// Global -> this CTA's shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

// This CTA's shared memory -> the same offset in CTA `peer`, completing on the peer's `bar`.
__device__ __forceinline__ void bulk_push(const void* local, unsigned bytes,
                                          unsigned long long* bar, int peer) {
  unsigned remote, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(local)), "r"(peer));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(peer));
  asm volatile(
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, "
      "[%3];" ::"r"(remote),
      "r"(smem_addr(local)), "r"(bytes), "r"(remote_bar)
      : "memory");
}

// 16 bytes to the same shared-memory offset in CTA `peer`, counted on the peer's `bar`
// (st.async: no fence, no cluster barrier; the peer's wait on `bar` makes the data visible).
__device__ __forceinline__ void push16(const float* local, float4 v, unsigned long long* bar,
                                       int peer) {
  unsigned remote, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(local)), "r"(peer));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(peer));
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::
          "r"(remote),
      "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(remote_bar)
      : "memory");
}

__device__ __forceinline__ int load_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(int* p, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(value) : "memory");
}

// acc[a][b] += sum over this lane's columns of w[g] * src row b (b < R rows of the chunk), a =
// gate slot (GRU's input-side n gate has its own slot, 3, because r multiplies only the hidden
// side).
template <int G, int MC, bool INPUT_SIDE, int R>
__device__ __forceinline__ void accumulate(float (&acc)[4][R], const float4 (&w)[G][MC],
                                           const float* src, const int (&off)[MC], int stride) {
#pragma unroll
  for (int m = 0; m < MC; ++m) {
#pragma unroll
    for (int b = 0; b < R; ++b) {
      const float4 v = *reinterpret_cast<const float4*>(src + off[m] + b * stride);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const int a = (INPUT_SIDE && G == 3 && g == 2) ? 3 : g;
        float s = acc[a][b];
        s = fmaf(w[g][m].x, v.x, s);
        s = fmaf(w[g][m].y, v.y, s);
        s = fmaf(w[g][m].z, v.z, s);
        s = fmaf(w[g][m].w, v.w, s);
        acc[a][b] = s;
      }
    }
  }
}

// Sums acc over the 16 lanes of a unit, R = 8, 4 or 2 batch rows. The first log2(R) butterfly
// levels split the rows between the two halves (each lane keeps half of what it has and sends the
// other half), the rest sum: afterwards lane s holds, in out[a], the totals of the pass's row
// reduced_row<R>(s), as do the 16/R lanes that differ from it in the low bits; owner<R>(s) picks
// one of them. Shuffles: 32 for 8 rows, 20 for 4, 16 for 2, in 4 dependent levels.
template <int R>
__device__ __forceinline__ int reduced_row(int s) {
  return (s >> (R == 8 ? 1 : R == 4 ? 2 : 3)) & (R - 1);
}
template <int R>
__device__ __forceinline__ bool owner(int s) {
  return (s & (16 / R - 1)) == 0;
}

template <int R>
__device__ __forceinline__ void reduce_unit(float (&v)[4][R], float (&out)[4], int s) {
#pragma unroll
  for (int half = R / 2, off = 8; half >= 1; half /= 2, off /= 2) {
    const bool hi = (s & off) != 0;  // the upper half of the rows stays here
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < half; ++b) {
        const float mine = hi ? v[a][half + b] : v[a][b];
        const float send = hi ? v[a][b] : v[a][half + b];
        v[a][b] = mine + __shfl_xor_sync(0xffffffffu, send, off);
      }
  }
#pragma unroll
  for (int off = 8 / R; off >= 1; off /= 2)
#pragma unroll
    for (int a = 0; a < 4; ++a) v[a][0] += __shfl_xor_sync(0xffffffffu, v[a][0], off);
#pragma unroll
  for (int a = 0; a < 4; ++a) out[a] = v[a][0];
}

template <int R>
struct Rows {
  static constexpr int value = R;
};

template <int G, int MC>
__global__ void __launch_bounds__(64 * MC, 1) rnn_cluster_kernel(Params p) {
  __shared__ alignas(8) unsigned long long full[2];          // h[t] complete, by buffer
  __shared__ alignas(8) unsigned long long ring[kMaxRing];  // input slot filled
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int CL = p.CL, HS = p.HS, H = p.H, T = p.T, SS = p.SS, RW = p.RW;
  const int slots = p.ring, publish_every = p.publish;
  const int grp = blockIdx.y;  // layer-major: [layer][direction][batch group]
  const int bg = grp % p.NBG, dir = (grp / p.NBG) % p.D, layer = grp / (p.NBG * p.D);
  const int b0 = bg * p.NB, nb = min(p.NB, p.B - b0);
  const int hs = max(0, min(HS, H - rank * HS));  // units this CTA owns
  const bool in_kernel = layer > 0;               // reads layer-1's h, not gx
  const bool publish = p.D == 1 && layer < p.NL - 1;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, s = lane & 15;
  const int u = 2 * warp + (lane >> 4), j = rank * HS + u;
  const bool owns = u < hs;
  const int nthreads = blockDim.x;
  const int gdir = layer * p.D + dir;  // index into [NL*D] tensors

  extern __shared__ float4 smem4[];
  float* hbuf = reinterpret_cast<float*>(smem4);  // [2][(CL+1) * SS]: CL slices + a zero slice
  const int hsize = (CL + 1) * SS;
  float* xring = hbuf + 2 * hsize;                // [slots][NBP][RW]
  float* cbuf = xring + slots * p.NBP * RW;       // [NBP][HS] LSTM cell state
  float* hraw = cbuf + p.NBP * HS;                // tf32: [2][NBP][HS] own slice of h, fp32
  const int hraw_size = p.tf32 ? 2 * p.NBP * HS : 0;
  for (int i = tid; i < 2 * hsize + slots * p.NBP * RW + p.NBP * HS + hraw_size; i += nthreads)
    hbuf[i] = 0.f;

  // weights in registers: row g*H + j, columns 4*(s + 16m) .. +3; zero outside the matrix
  float4 wh[G][MC], wi[G][MC];
  int hoff[MC], xoff[MC];
  const float* whh = p.whh + static_cast<size_t>(gdir) * G * H * H;
  const float* wih = p.wih + static_cast<size_t>(max(layer - 1, 0)) * G * H * H;
#pragma unroll
  for (int m = 0; m < MC; ++m) {
    const int k = 4 * (s + kSplit * m);
    hoff[m] = k < CL * HS ? (k / HS) * SS + k % HS : CL * SS;  // past the slices: zeros
    xoff[m] = k;
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float4 a = make_float4(0.f, 0.f, 0.f, 0.f), c = a;
      if (owns && k < H) {
        a = *reinterpret_cast<const float4*>(whh + static_cast<size_t>(g * H + j) * H + k);
        if (in_kernel)
          c = *reinterpret_cast<const float4*>(wih + static_cast<size_t>(g * H + j) * H + k);
      }
      wh[g][m] = a;
      wi[g][m] = c;
    }
  }
  float bh[G], bi[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    bh[g] = owns ? p.bhh[static_cast<size_t>(gdir) * G * H + g * H + j] : 0.f;
    bi[g] = owns && in_kernel ? p.bih[static_cast<size_t>(layer - 1) * G * H + g * H + j] : 0.f;
  }
  __syncthreads();  // zeros before h0
  // h[-1] = h0: every slice of buffer 0; the LSTM cell state of the owned units
  const float* h0 = p.h0 + (static_cast<size_t>(gdir) * p.B + b0) * H;
  for (int i = tid; i < nb * CL * HS; i += nthreads) {
    const int b = i / (CL * HS), k = i % (CL * HS);
    if (k < H) {
      const float v = h0[b * H + k];
      hbuf[(k / HS) * SS + b * HS + k % HS] = p.tf32 ? round_tf32(v) : v;
      if (p.tf32 && k / HS == rank) hraw[b * HS + k % HS] = v;  // buffer 0
    }
  }
  if constexpr (G == 4) {
    const float* c0 = p.c0 + (static_cast<size_t>(gdir) * p.B + b0) * H;
    for (int i = tid; i < nb * hs; i += nthreads) cbuf[(i / hs) * HS + i % hs] = c0[(i / hs) * H + rank * HS + i % hs];
  }
  // these generic writes come before any bulk copy (async proxy) into the same memory
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (tid == 0) {
    mbar_init(&full[0]);
    mbar_init(&full[1]);
    for (int r = 0; r < slots; ++r) mbar_init(&ring[r]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  cluster.sync();  // every CTA initialised before a peer copies into it

  // input copies (thread 0): step t's slot, after the producer layer has published step t
  const int* producer = p.flags + static_cast<size_t>(max(grp - p.NBG, 0)) * kMaxCluster;
  int seen = 0;  // thread 0: steps every producer CTA has published (last poll)
  const int rw = in_kernel ? p.HP : G * HS;  // this layer's ring row width (floats)
  auto issue_input = [&](int t) {
    const int slot = t % slots, tt = dir ? T - 1 - t : t;
    float* dst = xring + slot * p.NBP * RW;
    if (in_kernel) {
      if (seen < t + 1) {
        const long long start = clock64();
        while (seen < t + 1) {  // the CL loads in flight together, one fence when they suffice
          int low = T;
          for (int q = 0; q < CL; ++q) low = min(low, load_relaxed(producer + q));
          seen = low;
          spin_guard(start);
        }
        asm volatile("fence.acq_rel.gpu;" ::: "memory");          // acquire what they published
        asm volatile("fence.proxy.async.global;" ::: "memory");  // ... for TMA reads too
      }
      mbar_expect(&ring[slot], static_cast<unsigned>(nb * H * sizeof(float)));
      const float* x = p.seq + ((static_cast<size_t>(layer - 1) * T + tt) * p.B + b0) * H;
      if (rw == H) {  // rows back to back in both: one copy
        bulk_load(dst, x, nb * H * sizeof(float), &ring[slot]);
      } else {
        for (int b = 0; b < nb; ++b)
          bulk_load(dst + b * rw, x + static_cast<size_t>(b) * H, H * sizeof(float), &ring[slot]);
      }
    } else {
      const unsigned bytes = static_cast<unsigned>(nb * G * HS * sizeof(float));
      mbar_expect(&ring[slot], bytes);
      bulk_load(dst, p.gx + ((static_cast<size_t>(dir * CL + rank) * T + tt) * p.B + b0) * G * HS,
                bytes, &ring[slot]);
    }
  };
  if (tid == 0)
    for (int t = 0; t < min(slots, T); ++t) issue_input(t);

  const unsigned slice_bytes = static_cast<unsigned>(nb * HS * sizeof(float));
  const int slice_vecs = nb * HS / 4;
  unsigned full_phase = 0;  // bit b: parity of full[b]'s current phase
#ifdef KFORGE_RNN_PROFILE
  long long prof_acc[kPhases] = {};
  long long prof_last = clock64();
  const long long prof_begin = prof_last;
#endif
  for (int t = 0; t < T; ++t) {
    const int tt = dir ? T - 1 - t : t;
    const int cur = t & 1, nxt = cur ^ 1, slot = t % slots;
    PROF_MARK(0);
    const float* hcur = hbuf + cur * hsize;
    float* hnxt = hbuf + nxt * hsize;
    const float* xs = xring + slot * p.NBP * RW;
    mbar_wait(&ring[slot], (t / slots) & 1);
    if (p.tf32 && in_kernel) {  // layer l-1's h[t] is W_ih's operand: round it in place, once
      float* xw = xring + slot * p.NBP * RW;
      for (int i = tid; i < nb * rw; i += nthreads) xw[i] = round_tf32(xw[i]);
      // generic writes before the slot's next bulk copy (async proxy), issued after a barrier
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
    }

    // the cell update of (batch row b, this lane's unit) from its gate sums into hnxt; every
    // lane computes its row's (no divergent branch in the chain), `store` lanes write it
    auto update = [&](int b, bool store, const float (&gate)[4]) {
      // input gates: in the accumulators plus b_ih (in-kernel), or the GEMM's row in the ring
      float xin[4];
      const float* xg = xs + b * rw + u;
#pragma unroll
      for (int g = 0; g < G; ++g) xin[g] = in_kernel ? bi[g] : xg[g * HS];
      float h;
      if constexpr (G == 3) {
        const float hprev =
            p.tf32 ? hraw[cur * p.NBP * HS + b * HS + u] : hcur[rank * SS + b * HS + u];
        const float r = sigm(gate[0] + bh[0] + xin[0]);
        const float z = sigm(gate[1] + bh[1] + xin[1]);
        const float n = tanh_(xin[2] + gate[3] + r * (gate[2] + bh[2]));  // gate[3]: W_in x
        h = (1.f - z) * n + z * hprev;
      } else {
        const float ig = sigm(gate[0] + bh[0] + xin[0]);
        const float fg = sigm(gate[1] + bh[1] + xin[1]);
        const float gg = tanh_(gate[2] + bh[2] + xin[2]);
        const float og = sigm(gate[3] + bh[3 % G] + xin[3 % G]);
        const float cell = fg * cbuf[b * HS + u] + ig * gg;
        h = og * tanh_(cell);
        if (store) {
          cbuf[b * HS + u] = cell;
          if (t == T - 1) p.cn[(static_cast<size_t>(gdir) * p.B + b0 + b) * H + j] = cell;
        }
      }
      if (store) {
        hnxt[rank * SS + b * HS + u] = p.tf32 ? round_tf32(h) : h;  // the matmul operand copy
        if (p.tf32) hraw[nxt * p.NBP * HS + b * HS + u] = h;
        // bulk copies read it through the async proxy
        if (p.exchange) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      }
    };
    // one pass over R batch rows from r0, plus R2 more after them (0: none) whose FMAs,
    // reduction and update interleave with the first group's (two independent latency chains
    // in one): gate sums, then the cell updates. The first pass first waits for h[t-1].
    auto pass = [&](auto rows, auto rows2, int r0) {
      constexpr int R = decltype(rows)::value, R2 = decltype(rows2)::value;
      constexpr int R2N = R2 > 0 ? R2 : 1;
      float acc[4][R], acc2[4][R2N];
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < R; ++b) acc[a][b] = 0.f;
#pragma unroll
        for (int b = 0; b < R2N; ++b) acc2[a][b] = 0.f;
      }
      // the input side first: it does not need h[t-1], so the first pass's overlaps the exchange
      if (in_kernel) {
        accumulate<G, MC, true, R>(acc, wi, xs + r0 * rw, xoff, rw);
        if constexpr (R2 > 0) accumulate<G, MC, true, R2>(acc2, wi, xs + (r0 + R) * rw, xoff, rw);
      }
      if (r0 == 0 && t > 0) {
        PROF_MARK(2);
        mbar_wait(&full[cur], (full_phase >> cur) & 1);
        full_phase ^= 1u << cur;
        PROF_MARK(1);
      }
      accumulate<G, MC, false, R>(acc, wh, hcur + r0 * HS, hoff, HS);
      if constexpr (R2 > 0) accumulate<G, MC, false, R2>(acc2, wh, hcur + (r0 + R) * HS, hoff, HS);
      float gate[4], gate2[4];
      reduce_unit(acc, gate, s);
      if constexpr (R2 > 0) reduce_unit(acc2, gate2, s);
      // rows < NBP: rows are padded, never out of bounds
      const int b = r0 + reduced_row<R>(s);
      update(b, owns && owner<R>(s) && b < nb, gate);
      if constexpr (R2 > 0) {
        const int b2 = r0 + R + reduced_row<R2>(s);
        update(b2, owns && owner<R2>(s) && b2 < nb, gate2);
      }
    };
    // 8 rows a pass while more than 4 remain, then 4, then 2; 9 or 10 left: 8 and 2 in one
    // pass (B = 10: one pass), unless registers are short (MC = 5 spills with it)
    constexpr bool kFusable = MC <= 4;
    for (int r0 = 0; r0 < nb;) {
      const int left = nb - r0;
      if (kFusable && p.fuse && left > 8 && left <= 10) {
        if constexpr (kFusable) pass(Rows<8>{}, Rows<2>{}, r0);  // not even built for MC = 5
        r0 += 10;
      } else if (left > 4) {
        pass(Rows<8>{}, Rows<0>{}, r0);
        r0 += 8;
      } else if (left > 2) {
        pass(Rows<4>{}, Rows<0>{}, r0);
        r0 += 4;
      } else {
        pass(Rows<2>{}, Rows<0>{}, r0);
        r0 += 2;
      }
    }
    PROF_MARK(2);
    __syncthreads();  // the slice of h[t] is complete in this CTA: push it to every peer
    PROF_MARK(3);
    const float* mine = hnxt + rank * SS;
    if (CL > 1) {
      if (tid == 0) mbar_expect(&full[nxt], (CL - 1) * slice_bytes);
      if (p.exchange) {  // one copy per peer, the issuing spread over the warps
        if (lane == 0)
          for (int q = 1 + warp; q < CL; q += nthreads / 32)
            bulk_push(mine, slice_bytes, &full[nxt], (rank + q) % CL);
      } else {
        for (int i = tid; i < (CL - 1) * slice_vecs; i += nthreads) {
          const int peer = (rank + 1 + i / slice_vecs) % CL, v = i % slice_vecs;
          push16(mine + 4 * v, reinterpret_cast<const float4*>(mine)[v], &full[nxt], peer);
        }
      }
    }
    PROF_MARK(4);
    // the next layer may read h[0..t-1]: every thread stored them before the barrier above
    if (publish && tid == 32 && t > 0 && t % publish_every == 0)
      store_release(p.flags + static_cast<size_t>(grp) * kMaxCluster + rank, t);
    // off the step's critical path: next inputs (slot t % slots was last read above the
    // barrier), the slice to global memory
    if (tid == 0 && t + slots < T) issue_input(t + slots);
    const float* own = p.tf32 ? hraw + nxt * p.NBP * HS : mine;  // fp32 h, not the operand copy
    for (int i = tid; i < nb * hs; i += nthreads) {
      const int b = i / hs, uu = i % hs;
      const float h = own[b * HS + uu];
      p.seq[((static_cast<size_t>(layer) * T + tt) * p.B + b0 + b) * p.D * H + dir * H +
            rank * HS + uu] = h;
      if (t == T - 1) p.hn[(static_cast<size_t>(gdir) * p.B + b0 + b) * H + rank * HS + uu] = h;
    }
    PROF_MARK(5);
  }
#ifdef KFORGE_RNN_PROFILE
  prof_acc[kPhases - 1] = clock64() - prof_begin;
  if (p.prof && (tid == 0 || tid == nthreads - 32)) {
    long long* out = p.prof + ((static_cast<size_t>(grp) * CL + rank) * 2 + (tid != 0)) * kPhases;
    for (int i = 0; i < kPhases; ++i) out[i] = prof_acc[i];
  }
#endif
  __syncthreads();
  if (publish && tid == 32) store_release(p.flags + static_cast<size_t>(grp) * kMaxCluster + rank, T);
  // peers' copies of the last step land here: wait for them before anyone leaves
  if (CL > 1 && T > 0) mbar_wait(&full[T & 1], (full_phase >> (T & 1)) & 1);
  cluster.sync();
}

template <int G, int MC>
cudaError_t launch(const Params& p, int groups, size_t smem, cudaStream_t stream,
                   int* max_clusters) {
  auto kernel = rnn_cluster_kernel<G, MC>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem));
  if (err != cudaSuccess) return err;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (err != cudaSuccess) return err;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(p.CL, groups, 1);
  config.blockDim = dim3(32 * ((p.HS + 1) / 2), 1, 1);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = p.CL;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  if (max_clusters) return cudaOccupancyMaxActiveClusters(max_clusters, kernel, &config);
  return cudaLaunchKernelEx(&config, kernel, p);
}

template <int G>
cudaError_t launch_g(const Params& p, int mc, int groups, size_t smem, cudaStream_t stream,
                     int* max_clusters) {
  switch (mc) {
    case 1: return launch<G, 1>(p, groups, smem, stream, max_clusters);
    case 2: return launch<G, 2>(p, groups, smem, stream, max_clusters);
    case 3: return launch<G, 3>(p, groups, smem, stream, max_clusters);
    case 4: return launch<G, 4>(p, groups, smem, stream, max_clusters);
    case 5: return launch<G, 5>(p, groups, smem, stream, max_clusters);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

// Geometry shared with the host code (rnn_common.py computes the same): units per CTA
// HS = 4 * ceil(H / 64), cluster size CL = ceil(H / HS) <= 16, column chunks per lane
// MC = ceil(H / 64) <= 5.
// Launches (query == 0; returns a cudaError_t code) or returns how many clusters of this
// configuration fit on the GPU at once (query != 0; 0 = does not fit, negative = error).
int64_t rnn_cluster_run(int64_t gx, int64_t wih, int64_t bih,
                        int64_t whh, int64_t bhh, int64_t h0, int64_t c0, int64_t seq, int64_t hn,
                        int64_t cn, int64_t flags, int64_t T, int64_t B, int64_t H, int64_t NL,
                        int64_t D, int64_t NBG, int64_t lstm, int64_t ring, int64_t publish,
                        int64_t exchange, int64_t fuse, int64_t tf32,
                        int64_t prof, int64_t stream, int64_t query) {
  const int G = lstm ? 4 : 3;
  const int mc = static_cast<int>((H + 63) / 64);
  if (H % 4 != 0 || mc > 5 || NBG < 1 || B < 1 || ring < 2 || ring > kMaxRing || publish < 1)
    return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  Params p;
  p.gx = reinterpret_cast<const float*>(gx);
  p.wih = reinterpret_cast<const float*>(wih);
  p.bih = reinterpret_cast<const float*>(bih);
  p.whh = reinterpret_cast<const float*>(whh);
  p.bhh = reinterpret_cast<const float*>(bhh);
  p.h0 = reinterpret_cast<const float*>(h0);
  p.c0 = reinterpret_cast<const float*>(c0);
  p.seq = reinterpret_cast<float*>(seq);
  p.hn = reinterpret_cast<float*>(hn);
  p.cn = reinterpret_cast<float*>(cn);
  p.flags = reinterpret_cast<int*>(flags);
  p.T = static_cast<int>(T);
  p.B = static_cast<int>(B);
  p.H = static_cast<int>(H);
  p.NL = static_cast<int>(NL);
  p.D = static_cast<int>(D);
  p.NBG = static_cast<int>(NBG);
  p.ring = static_cast<int>(ring);
  p.publish = static_cast<int>(publish);
  p.exchange = static_cast<int>(exchange);
  p.fuse = static_cast<int>(fuse);
  p.tf32 = tf32 ? 1 : 0;
  p.prof = reinterpret_cast<long long*>(prof);
  p.NB = static_cast<int>((B + NBG - 1) / NBG);
  p.HS = 4 * mc;
  p.CL = (p.H + p.HS - 1) / p.HS;
  p.HP = 64 * mc;
  p.NBP = (p.NB + kChunk - 1) / kChunk * kChunk;
  // slice stride = 16 (mod 32) floats: the two slices one quarter-warp reads sit in different
  // bank halves
  p.SS = (p.NBP * p.HS + 15) / 32 * 32 + 16;
  p.RW = NL > 1 ? p.HP : G * p.HS;
  if (p.CL > kMaxCluster || (NL > 1 && D != 1))
    return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  const size_t floats = 2 * static_cast<size_t>(p.CL + 1) * p.SS +
                        static_cast<size_t>(p.ring) * p.NBP * p.RW + p.NBP * p.HS +
                        (p.tf32 ? 2 * static_cast<size_t>(p.NBP) * p.HS : 0);  // hraw
  const size_t smem = floats * sizeof(float);
  int device = 0, limit = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (smem > static_cast<size_t>(limit))
    return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  const int groups = static_cast<int>(NL * D * NBG);
  auto s = reinterpret_cast<cudaStream_t>(stream);
  int clusters = 0;
  int* out = query ? &clusters : nullptr;
  const cudaError_t err = G == 4 ? launch_g<4>(p, mc, groups, smem, s, out)
                                 : launch_g<3>(p, mc, groups, smem, s, out);
  if (query) return err == cudaSuccess ? clusters : -static_cast<int64_t>(err);
  return static_cast<int64_t>(err);
}
