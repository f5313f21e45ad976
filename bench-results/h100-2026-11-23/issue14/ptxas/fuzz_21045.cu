// Mint for Rust: kernel `fuzz_21045` of fn `fuzz` at :0:0
// nest(3) tile(32, 8, 1) chunksize(1, 1, 1): 32x8x1 threads per block
// optimizations: none (baseline: every reference goes to device memory)
typedef int idx_t;
template <typename T> static __device__ __forceinline__ T mint_imin(T a, T b) {
    if (T(-1) < T(0)) { long long r; asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"((long long)a), "l"((long long)b)); return (T)r; }
    unsigned long long r; asm("min.u64 %0, %1, %2;" : "=l"(r) : "l"((unsigned long long)a), "l"((unsigned long long)b)); return (T)r;
}
template <typename T> static __device__ __forceinline__ T mint_imax(T a, T b) {
    if (T(-1) < T(0)) { long long r; asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"((long long)a), "l"((long long)b)); return (T)r; }
    unsigned long long r; asm("max.u64 %0, %1, %2;" : "=l"(r) : "l"((unsigned long long)a), "l"((unsigned long long)b)); return (T)r;
}
extern "C" __global__ void __launch_bounds__(256) mint_fuzz_21045(
    const int* __restrict__ a0,
    const idx_t mint_pitch_a0,
    const idx_t mint_slice_a0,
    int* __restrict__ acc,
    const idx_t mint_pitch_acc,
    const idx_t mint_slice_acc,
    const int* __restrict__ a3,
    const idx_t mint_pitch_a3,
    const idx_t mint_slice_a3,
    const int* __restrict__ a1,
    const idx_t mint_pitch_a1,
    const idx_t mint_slice_a1,
    const int* __restrict__ a2,
    const idx_t mint_pitch_a2,
    const idx_t mint_slice_a2,
    int* __restrict__ out,
    const idx_t mint_pitch_out,
    const idx_t mint_slice_out,
    const int s0,
    const idx_t mint_lo_z,
    const idx_t mint_hi_z,
    const idx_t mint_lo_y,
    const idx_t mint_hi_y,
    const idx_t mint_lo_x,
    const idx_t mint_hi_x,
    int* __restrict__ mint_partials
)
{
    int total = (-2147483647 - 1);
    // this thread's points (work partitioner, thesis Sec. 4.2.5)
    const idx_t z = mint_lo_z + (idx_t)blockIdx.z + (idx_t)threadIdx.z;
    const idx_t y = mint_lo_y + (idx_t)blockIdx.y * 8 + (idx_t)threadIdx.y;
    const idx_t x = mint_lo_x + (idx_t)blockIdx.x * 32 + (idx_t)threadIdx.x;
    if (z < mint_hi_z && y < mint_hi_y && x < mint_hi_x) {
        int t0 = mint_imin<int>(a0[x + y * mint_pitch_a0 + z * mint_slice_a0] - acc[x + y * mint_pitch_acc + z * mint_slice_acc], (int)z);
        int t1 = a3[x + 1 + y * mint_pitch_a3 + (z - 1) * mint_slice_a3] + (int)z + a0[x + (y + 1) * mint_pitch_a0 + (z + 1) * mint_slice_a0] * a1[x + (y + 1) * mint_pitch_a1 + z * mint_slice_a1];
        int s = 4;
        for (int k = 0, k_end = 2; k < k_end; ++k) {
            s += mint_imin<int>(t0, a2[x - 1 + y * mint_pitch_a2 + z * mint_slice_a2]) + a1[x + 4 + y * mint_pitch_a1 + (z - 1) * mint_slice_a1];
        }
        out[x + y * mint_pitch_out + z * mint_slice_out] = a1[x + (y - 2) * mint_pitch_a1 + z * mint_slice_a1] << 3;
        acc[x + y * mint_pitch_acc + z * mint_slice_acc] += -a0[x + (y - 1) * mint_pitch_a0 + z * mint_slice_a0] - a0[x - 2 + (y - 2) * mint_pitch_a0 + z * mint_slice_a0] * s0;
        total = mint_imax<int>(total, (a1[x + (y - 1) * mint_pitch_a1 + (z - 1) * mint_slice_a1] >= a3[x + y * mint_pitch_a3 + z * mint_slice_a3] ? acc[x + y * mint_pitch_acc + z * mint_slice_acc] : a1[x + y * mint_pitch_a1 + (z - 1) * mint_slice_a1]) >> 2);
    }
    // reduction(max: total): the block's values are combined in a fixed order
    __shared__ int mint_red[256];
    const int mint_tid = threadIdx.x + 32 * (threadIdx.y + 8 * threadIdx.z);
    mint_red[mint_tid] = total;
    __syncthreads();
    for (int mint_s = 128; mint_s > 0; mint_s >>= 1) {
        if (mint_tid < mint_s && mint_tid + mint_s < 256) mint_red[mint_tid] = (mint_red[mint_tid + mint_s] > mint_red[mint_tid] ? mint_red[mint_tid + mint_s] : mint_red[mint_tid]);
        __syncthreads();
    }
    if (mint_tid == 0) mint_partials[blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z)] = mint_red[0];
}

extern "C" __global__ void __launch_bounds__(256) mint_fuzz_21045_finish(
    const int* __restrict__ mint_partials,
    const unsigned long long mint_n,
    int* __restrict__ mint_out)
{
    __shared__ int mint_red[256];
    int mint_acc = (-2147483647 - 1);
    for (unsigned long long i = threadIdx.x; i < mint_n; i += 256) mint_acc = (mint_partials[i] > mint_acc ? mint_partials[i] : mint_acc);
    mint_red[threadIdx.x] = mint_acc;
    __syncthreads();
    for (int mint_s = 128; mint_s > 0; mint_s >>= 1) {
        if (threadIdx.x < mint_s) mint_red[threadIdx.x] = (mint_red[threadIdx.x + mint_s] > mint_red[threadIdx.x] ? mint_red[threadIdx.x + mint_s] : mint_red[threadIdx.x]);
        __syncthreads();
    }
    if (threadIdx.x == 0) mint_out[0] = mint_red[0];
}
