// Hopper thread-block-cluster kernel for stacked GRU/LSTM layers (library/rnn_src/rnn_cluster.cu;
// embedded verbatim in each candidate and built with torch's load_inline).
//
// One cluster of CL CTAs per (layer, direction) group; CTA `rank` owns hidden units
// [rank*HS, rank*HS + HS) and keeps its rows of W_hh (and W_ih for in-kernel layers) in shared
// memory for the whole sequence. Each step every CTA writes its slice of h[t] straight into every
// CTA's shared memory (distributed shared memory), and one cluster barrier per step makes the
// full h[t] visible: no global-memory round trip on the recurrence. A unidirectional stack runs
// as a wavefront in one launch: layer l reads layer l-1's h[t] from global memory after a step
// counter (release/acquire) says it is there. All clusters must be co-resident: the host checks
// cudaOccupancyMaxActiveClusters before choosing how many layers go in one launch.
//
// Matvec mapping: warp w sums over its k-chunk; lane l owns rows l, l+32, l+64 of the weight
// slice; partial sums per warp go to shared memory and one thread per (unit, batch) pair adds
// them up and applies the gate nonlinearities. Exact fp32 (FMA, no tensor cores).

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kRowsPerLane = 3;  // rows per matrix <= 96 (G * HS)
constexpr int kMaxCluster = 16;   // flags: [groups][kMaxCluster] per-CTA counters (ASYNC)
constexpr int kPublish = 4;       // ASYNC: steps between publications of a layer's progress
constexpr int kGxRegs = 3;       // input gates prefetched in registers (G * HS * B <= 768)
constexpr int kXRegs = 12;       // layer input prefetched in registers: B * H <= 12 * 256 covers
                                 // batch 12 at H 256; the rest is loaded after the matvec

struct Params {
  const float* gx;                 // input gates of the launch's first layer (+ b_ih)
  long long gx_sd, gx_st, gx_sb;   // strides (elements): direction, time, batch
  const float* wih;                // [NL-1, G*H, H] input weights of in-kernel layers
  const float* bih;                // [NL-1, G*H]
  const float* whh;                // [NL, D, G*H, H]
  const float* bhh;                // [NL, D, G*H]
  const float* h0;                 // [NL, D, B, H]
  const float* c0;
  float* seq;                      // [NL, T, B, D*H] every layer's output, time-major
  float* hn;                       // [NL, D, B, H]
  float* cn;
  int* flags;                      // [NL*D] steps published, zeroed
  int T, B, H, NL, D, HS, HP, KC, R32;
};

__device__ __forceinline__ float sigm(float x) { return 1.f / (1.f + expf(-x)); }

// Release at GPU scope is cumulative: the cluster's stores, ordered before the calling thread by
// the cluster barrier, are visible before the counter moves.
__device__ __forceinline__ void release_add(int* p) {
  asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");
}

// dst[b * dst_stride + u] = src[b * src_stride + u] for u < hs, b < B (u fastest: coalesced)
__device__ __forceinline__ void store_slice(float* dst, const float* src, int hs, int B,
                                            int dst_stride, int src_stride, int tid) {
  for (int idx = tid; idx < hs * B; idx += kThreads) {
    const int b = idx / hs, u = idx % hs;
    dst[static_cast<size_t>(b) * dst_stride + u] = src[b * src_stride + u];
  }
}

__device__ __forceinline__ void release_store(int* p, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(value) : "memory");
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
}

// One arrival (the phase's only one) that also expects `bytes` of st.async data.
__device__ __forceinline__ void mbar_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  }
}

// Writes `value` at `local` (a shared address of this CTA's layout) in CTA `rank` of the cluster
// and counts its 4 bytes on that CTA's mbarrier at `bar`.
__device__ __forceinline__ void push_async(const float* local, float value,
                                           unsigned long long* bar, int rank) {
  unsigned remote, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(local)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(rank));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];"
               ::"r"(remote), "f"(value), "r"(remote_bar)
               : "memory");
}

__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Partial sums of one matrix slice: rows [0, R32) of `w` (row stride HP) times src[b][k]
// (row stride HP) over this warp's k-chunk, written to part[warp][b][row].
template <int NB>
__device__ __forceinline__ void partial(const float* w, const float* src, float* part,
                                        int rows, int R32, int k_begin, int k_end, int HP,
                                        int lane, int warp) {
  float acc[kRowsPerLane][NB];
#pragma unroll
  for (int i = 0; i < kRowsPerLane; ++i)
#pragma unroll
    for (int b = 0; b < NB; ++b) acc[i][b] = 0.f;
  const int nr = R32 / 32;  // rows per lane actually used (warp-uniform)
  for (int k = k_begin; k < k_end; k += 4) {
    float4 hv[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) hv[b] = *reinterpret_cast<const float4*>(src + b * HP + k);
#pragma unroll
    for (int i = 0; i < kRowsPerLane; ++i) {
      if (i < nr) {
        const float4 wv = *reinterpret_cast<const float4*>(w + (lane + 32 * i) * HP + k);
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          acc[i][b] = fmaf(wv.x, hv[b].x, acc[i][b]);
          acc[i][b] = fmaf(wv.y, hv[b].y, acc[i][b]);
          acc[i][b] = fmaf(wv.z, hv[b].z, acc[i][b]);
          acc[i][b] = fmaf(wv.w, hv[b].w, acc[i][b]);
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kRowsPerLane; ++i) {
    if (i < nr) {
      const int r = lane + 32 * i;
#pragma unroll
      for (int b = 0; b < NB; ++b) part[(warp * NB + b) * R32 + r] = acc[i][b];
    }
  }
  (void)rows;
}

// ASYNC (built only with -DKFORGE_RNN_ASYNC; engine "cluster_async"; NOT yet run on a GPU): no
// cluster barrier per step. h[t] is pushed with st.async, which counts its bytes on the
// receiving CTA's mbarrier; each CTA waits on its own mbarrier (armed for B*H*4 bytes). A
// cluster barrier compiles to a GPU-scope MEMBAR per thread per step; this does not (SASS:
// STAS + SYNCS). Layer-to-layer counters become per-CTA and are published every kPublish steps.
template <int G, int NB, bool ASYNC>
__global__ void __launch_bounds__(kThreads, 1) rnn_cluster_kernel(Params p) {
  __shared__ alignas(8) unsigned long long bars[2];  // ASYNC: one per h buffer
  cg::cluster_group cluster = cg::this_cluster();
  const int CL = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  const int grp = blockIdx.y;  // layer-major
  const int dir = grp % p.D, layer = grp / p.D;
  const int T = p.T, H = p.H, HS = p.HS, HP = p.HP, R32 = p.R32;
  const int GH = G * H, DH = p.D * H;
  const int j0 = rank * HS;
  const int hs = max(0, min(HS, H - j0));
  const bool in_kernel = layer > 0;  // the launch's first layer reads gx instead
  const bool publish = p.D == 1 && layer < p.NL - 1;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int nmat = p.NL > 1 ? 2 : 1;  // hh rows at [0, R32), ih rows at [R32, 2*R32)

  extern __shared__ float4 smem4[];
  float* w = reinterpret_cast<float*>(smem4);        // [nmat*R32][HP]
  float* hbuf = w + nmat * R32 * HP;                  // [2][NB][HP]
  float* xbuf = hbuf + 2 * NB * HP;                   // [NB][HP]
  float* part = xbuf + NB * HP;                       // [nmat][kWarps][NB][R32]
  float* gxs = part + nmat * kWarps * R32 * NB;       // [NB][G*HS] this step's input gates
  float* cbuf = gxs + G * HS * NB;                    // [NB][HS] LSTM cell state
  float* bias = cbuf + HS * NB;                       // [2][G*HS]: b_hh, b_ih

  // weights: row r = g*HS + u of each matrix; rows past the owned units and padding are zero
  const float* whh = p.whh + static_cast<size_t>(grp) * GH * H;
  const float* wih = p.wih + static_cast<size_t>(max(layer - 1, 0)) * GH * H;
  for (int idx = tid; idx < nmat * R32 * HP; idx += kThreads) {
    const int row = idx / HP, k = idx % HP;
    const int m = row / R32, r = row % R32;
    const int g = r / HS, u = r % HS;
    float v = 0.f;
    if (g < G && u < hs && k < H && (m == 0 || in_kernel))
      v = (m == 0 ? whh : wih)[static_cast<size_t>(g * H + j0 + u) * H + k];
    w[idx] = v;
  }
  for (int idx = tid; idx < G * HS; idx += kThreads) {
    const int g = idx / HS, u = idx % HS;
    const bool ok = u < hs;
    bias[idx] = ok ? p.bhh[static_cast<size_t>(grp) * GH + g * H + j0 + u] : 0.f;
    bias[G * HS + idx] =
        ok && in_kernel ? p.bih[static_cast<size_t>(max(layer - 1, 0)) * GH + g * H + j0 + u] : 0.f;
  }
  for (int idx = tid; idx < 3 * NB * HP; idx += kThreads) hbuf[idx] = 0.f;  // hbuf and xbuf
  __syncthreads();
  const float* h0 = p.h0 + static_cast<size_t>(grp) * p.B * H;
  for (int idx = tid; idx < p.B * H; idx += kThreads) hbuf[(idx / H) * HP + idx % H] = h0[idx];
  if (G == 4) {
    for (int idx = tid; idx < hs * NB; idx += kThreads) {
      const int b = idx / hs, u = idx % hs;
      cbuf[b * HS + u] = b < p.B ? p.c0[(static_cast<size_t>(grp) * p.B + b) * H + j0 + u] : 0.f;
    }
  }
  if constexpr (ASYNC) {
    if (tid == 0) {
      mbar_init(&bars[0]);
      mbar_init(&bars[1]);
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
  }
  cluster.sync();  // every CTA started and initialised before anyone writes into its memory
  unsigned phases = 0;  // ASYNC: parity of each mbarrier's current phase

  const int k_begin = warp * p.KC, k_end = min(H, k_begin + p.KC);
  const float* gxd = p.gx + dir * p.gx_sd;
  int cur = 0;
  int seen = 0;  // thread 0: the last step count read from layer-1's counter
  for (int t = 0; t < T; ++t) {
    const int tt = dir ? T - 1 - t : t;
    // h[t-1] to global memory early in the step, so the barrier at its end does not wait on it
    if (t > 0) store_slice(p.seq + (static_cast<size_t>(layer) * T + (dir ? tt + 1 : tt - 1)) *
                                       p.B * DH + dir * H + j0,
                           hbuf + cur * NB * HP + j0, hs, p.B, DH, HP, tid);
    if constexpr (ASYNC) {  // expect h[t]'s bytes from every CTA in the other buffer
      if (tid == 0) mbar_expect(&bars[cur ^ 1], static_cast<unsigned>(H * p.B * sizeof(float)));
    }
    // this step's input gates: loads issued now, stored to shared memory after the matvec
    float gr[kGxRegs];
    const int ngx = in_kernel ? 0 : G * hs * p.B;
#pragma unroll
    for (int i = 0; i < kGxRegs; ++i) {
      const int idx = tid + i * kThreads;
      gr[i] = 0.f;
      if (idx < ngx) {
        const int b = idx / (G * hs), rem = idx % (G * hs), g = rem / hs, u = rem % hs;
        gr[i] = __ldg(gxd + tt * p.gx_st + b * p.gx_sb + g * H + j0 + u);
      }
    }
    // in-kernel layers: wait for layer-1's h[tt], then issue its loads before the recurrent
    // matvec so their latency hides behind it
    float xr[kXRegs];
    const float* x = p.seq + (static_cast<size_t>(max(layer - 1, 0)) * T + tt) * p.B * DH;
    if (in_kernel) {
      if (tid == 0) {  // poll only when the last count seen does not cover step t
        if constexpr (ASYNC) {  // every CTA of layer-1 publishes its own count
          while (seen < t + 1) {
            int low = T;
            for (int q = 0; q < CL; ++q)
              low = min(low, load_acquire(p.flags + (grp - 1) * kMaxCluster + q));
            seen = low;
          }
        } else {
          while (seen < t + 1) seen = load_acquire(p.flags + grp - 1);
        }
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < kXRegs; ++i) {
        const int idx = tid + i * kThreads;
        xr[i] = idx < p.B * H ? __ldcg(x + idx) : 0.f;
      }
    }
    const float* hcur = hbuf + cur * NB * HP;
    partial<NB>(w, hcur, part, G * HS, R32, k_begin, k_end, HP, lane, warp);
#pragma unroll
    for (int i = 0; i < kGxRegs; ++i) {
      const int idx = tid + i * kThreads;
      if (idx < ngx) {
        const int b = idx / (G * hs), rem = idx % (G * hs), g = rem / hs, u = rem % hs;
        gxs[b * G * HS + g * HS + u] = gr[i];
      }
    }
    for (int idx = tid + kGxRegs * kThreads; idx < ngx; idx += kThreads) {
      const int b = idx / (G * hs), rem = idx % (G * hs), g = rem / hs, u = rem % hs;
      gxs[b * G * HS + g * HS + u] = __ldg(gxd + tt * p.gx_st + b * p.gx_sb + g * H + j0 + u);
    }
    if (in_kernel) {
#pragma unroll
      for (int i = 0; i < kXRegs; ++i) {
        const int idx = tid + i * kThreads;
        if (idx < p.B * H) xbuf[(idx / H) * HP + idx % H] = xr[i];
      }
      for (int idx = tid + kXRegs * kThreads; idx < p.B * H; idx += kThreads)
        xbuf[(idx / H) * HP + idx % H] = __ldcg(x + idx);
      __syncthreads();
      partial<NB>(w + R32 * HP, xbuf, part + kWarps * R32 * NB, G * HS, R32, k_begin, k_end, HP,
                  lane, warp);
    }
    __syncthreads();

    float* hnext_local = hbuf + (cur ^ 1) * NB * HP;
    for (int idx = tid; idx < hs * p.B; idx += kThreads) {
      const int b = idx / hs, u = idx % hs;  // u fastest: a warp's stores are contiguous
      float gh[G], gi[G];
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const int r = g * HS + u;
        float s = bias[r];
#pragma unroll
        for (int q = 0; q < kWarps; ++q) s += part[(q * NB + b) * R32 + r];
        gh[g] = s;
        if (in_kernel) {
          float si = bias[G * HS + r];
#pragma unroll
          for (int q = 0; q < kWarps; ++q) si += part[((kWarps + q) * NB + b) * R32 + r];
          gi[g] = si;
        } else {
          gi[g] = gxs[b * G * HS + r];
        }
      }
      float h;
      if (G == 3) {
        const float rg = sigm(gi[0] + gh[0]);
        const float z = sigm(gi[1] + gh[1]);
        const float n = tanhf(gi[2] + rg * gh[2]);
        h = (1.f - z) * n + z * hcur[b * HP + j0 + u];
      } else {
        float c = cbuf[b * HS + u];
        c = sigm(gi[1] + gh[1]) * c + sigm(gi[0] + gh[0]) * tanhf(gi[2] + gh[2]);
        cbuf[b * HS + u] = c;
        h = sigm(gi[G - 1] + gh[G - 1]) * tanhf(c);
      }
      if constexpr (ASYNC) {
        for (int q = 0; q < CL; ++q)
          push_async(hnext_local + b * HP + j0 + u, h, &bars[cur ^ 1], q);
      } else {
        for (int q = 0; q < CL; ++q) cluster.map_shared_rank(hnext_local, q)[b * HP + j0 + u] = h;
      }
    }
    if constexpr (ASYNC) {
      mbar_wait(&bars[cur ^ 1], (phases >> (cur ^ 1)) & 1);  // h[t] complete here
      phases ^= 1u << (cur ^ 1);
      __syncthreads();  // part/gxs/xbuf free for the next step
      // h[0..t-1] of this CTA are in global memory (stored this step, ordered by the barrier)
      if (publish && t > 0 && t % kPublish == 0 && tid == 0)
        release_store(p.flags + grp * kMaxCluster + rank, t);
    } else {
      cluster.sync();  // h[t] complete in every CTA; part/gxs/xbuf free for the next step
      // the counter says how many steps are in global memory: h[t-1] was stored this step
      if (publish && t > 0 && rank == 0 && tid == 0) release_add(p.flags + grp);
    }
    cur ^= 1;
  }
  // the last step's h, h_n and c_n
  const int t_last = dir ? 0 : T - 1;
  store_slice(p.seq + (static_cast<size_t>(layer) * T + t_last) * p.B * DH + dir * H + j0,
              hbuf + cur * NB * HP + j0, hs, p.B, DH, HP, tid);
  store_slice(p.hn + static_cast<size_t>(grp) * p.B * H + j0, hbuf + cur * NB * HP + j0, hs, p.B,
              H, HP, tid);
  if (G == 4)
    store_slice(p.cn + static_cast<size_t>(grp) * p.B * H + j0, cbuf, hs, p.B, H, HS, tid);
  if constexpr (ASYNC) {
    __syncthreads();
    if (publish && tid == 0) release_store(p.flags + grp * kMaxCluster + rank, T);
    cluster.sync();  // nobody leaves while a peer could still address its shared memory
  } else if (publish) {
    cluster.sync();
    if (rank == 0 && tid == 0) release_add(p.flags + grp);
  }
}

#ifdef KFORGE_RNN_ASYNC
constexpr bool kAsync = true;
#else
constexpr bool kAsync = false;
#endif

template <int G, int NB>
cudaError_t launch_nb(const Params& p, int cl, int groups, size_t smem, cudaStream_t stream,
                      int* max_clusters) {
  auto kernel = rnn_cluster_kernel<G, NB, kAsync>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem));
  if (err != cudaSuccess) return err;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (err != cudaSuccess) return err;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(cl, groups, 1);
  config.blockDim = dim3(kThreads, 1, 1);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cl;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  if (max_clusters) return cudaOccupancyMaxActiveClusters(max_clusters, kernel, &config);
  return cudaLaunchKernelEx(&config, kernel, p);
}

template <int G>
cudaError_t launch_g(const Params& p, int nb, int cl, int groups, size_t smem,
                     cudaStream_t stream, int* max_clusters) {
  switch (nb) {
    case 2: return launch_nb<G, 2>(p, cl, groups, smem, stream, max_clusters);
    case 4: return launch_nb<G, 4>(p, cl, groups, smem, stream, max_clusters);
    case 8: return launch_nb<G, 8>(p, cl, groups, smem, stream, max_clusters);
    case 10: return launch_nb<G, 10>(p, cl, groups, smem, stream, max_clusters);
    case 12: return launch_nb<G, 12>(p, cl, groups, smem, stream, max_clusters);
    case 16: return launch_nb<G, 16>(p, cl, groups, smem, stream, max_clusters);
    default: return cudaErrorInvalidValue;
  }
}

int batch_block(int b) {
  const int sizes[] = {2, 4, 8, 10, 12, 16};
  for (int s : sizes)
    if (b <= s) return s;
  return 0;
}

}  // namespace

// Launches (or, with query != 0, returns how many clusters fit at once: 0 = does not fit).
// Returns a cudaError_t code for a launch; the cluster count for a query (negative = error).
int64_t rnn_cluster_run(int64_t gx, int64_t gx_sd, int64_t gx_st, int64_t gx_sb, int64_t wih,
                        int64_t bih, int64_t whh, int64_t bhh, int64_t h0, int64_t c0,
                        int64_t seq, int64_t hn, int64_t cn, int64_t flags, int64_t T, int64_t B,
                        int64_t H, int64_t NL, int64_t D, int64_t lstm, int64_t cl,
                        int64_t stream, int64_t query) {
  const int G = lstm ? 4 : 3;
  const int nb = batch_block(static_cast<int>(B));
  if (nb == 0 || H % 4 != 0) return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  Params p;
  p.gx = reinterpret_cast<const float*>(gx);
  p.gx_sd = gx_sd;
  p.gx_st = gx_st;
  p.gx_sb = gx_sb;
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
  p.HS = static_cast<int>((H + cl - 1) / cl);
  p.HP = p.H + 4;  // row padding: lanes' 16-byte loads of different rows hit different banks
  p.KC = ((p.H + kWarps - 1) / kWarps + 3) / 4 * 4;
  p.R32 = (G * p.HS + 31) / 32 * 32;
  if (p.R32 > 32 * kRowsPerLane) return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  const int nmat = NL > 1 ? 2 : 1;
  const size_t floats = static_cast<size_t>(nmat) * p.R32 * p.HP + 3 * nb * p.HP +
                        static_cast<size_t>(nmat) * kWarps * p.R32 * nb + G * p.HS * nb +
                        p.HS * nb + 2 * G * p.HS;
  const size_t smem = floats * sizeof(float);
  int device = 0, limit = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (smem > static_cast<size_t>(limit))
    return query ? 0 : static_cast<int64_t>(cudaErrorInvalidValue);
  const int groups = static_cast<int>(NL * D);
  auto s = reinterpret_cast<cudaStream_t>(stream);
  if (query) {
    int clusters = 0;
    cudaError_t err = G == 4 ? launch_g<4>(p, nb, static_cast<int>(cl), groups, smem, s, &clusters)
                             : launch_g<3>(p, nb, static_cast<int>(cl), groups, smem, s, &clusters);
    return err == cudaSuccess ? clusters : -static_cast<int64_t>(err);
  }
  cudaError_t err = G == 4 ? launch_g<4>(p, nb, static_cast<int>(cl), groups, smem, s, nullptr)
                           : launch_g<3>(p, nb, static_cast<int>(cl), groups, smem, s, nullptr);
  return static_cast<int64_t>(err);
}
