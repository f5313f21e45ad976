// Mint for Rust: kernel `k_vector_0` of fn `k_vector` at kernels/src/heat3d.rs:30:18
// nest(3) tile(128, 4, 4) chunksize(4, 1, 4): 32x4x1 threads per block
// optimizations: vectorize (4 x points per thread, 16-byte loads) + sliding window along z (register queue) + unroll
// vector width 4; 5 16-byte loads per thread and step
typedef int idx_t;
// 16-byte vector accesses (vectorize): V = 16 / sizeof(T) consecutive elements of a row
template <typename T> struct mint_vec;
template <> struct mint_vec<float> { typedef float4 type; };
__device__ __forceinline__ bool mint_valigned(const void* p, size_t pitch_bytes, size_t slice_bytes) {
    return (((size_t)p | pitch_bytes | slice_bytes) & 15) == 0;
}
// r = row[xv .. xv + V): a whole aligned vector inside the row (the caller checked)
template <typename T>
__device__ __forceinline__ void mint_vload_fast(const T* __restrict__ row, idx_t xv, T* r) {
    const typename mint_vec<T>::type w = __ldg(reinterpret_cast<const typename mint_vec<T>::type*>(row + xv));
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
template <typename T>
__device__ __forceinline__ void mint_vload_fast_rw(const T* row, idx_t xv, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(row + xv);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
// r = row[xv .. xv + V) through the read-only path; zeros outside 0..nx
template <typename T>
__device__ __forceinline__ void mint_vload(const T* __restrict__ row, idx_t xv, idx_t nx, bool vec, T* r) {
    constexpr int V = 16 / sizeof(T);
    if (vec && xv >= 0 && xv + V <= nx) {
        mint_vload_fast(row, xv, r);
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) r[k] = (xv + k >= 0 && xv + k < nx) ? __ldg(row + xv + k) : T(0);
    }
}
// r = row[x0 .. x0 + V) of an array the kernel writes (plain loads)
template <typename T>
__device__ __forceinline__ void mint_vload_rw(const T* row, idx_t x0, idx_t nx, bool vec, T* r) {
    constexpr int V = 16 / sizeof(T);
    if (vec && x0 + V <= nx) {
        mint_vload_fast_rw(row, x0, r);
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) r[k] = x0 + k < nx ? row[x0 + k] : T(0);
    }
}
// row[x0 .. min(x0 + V, hi)) = r
template <typename T>
__device__ __forceinline__ void mint_vstore(T* row, idx_t x0, idx_t hi, bool vec, const T* r) {
    constexpr int V = 16 / sizeof(T);
    if (vec && x0 + V <= hi) {
        typename mint_vec<T>::type w;
        T* q = reinterpret_cast<T*>(&w);
#pragma unroll
        for (int k = 0; k < V; ++k) q[k] = r[k];
        *reinterpret_cast<typename mint_vec<T>::type*>(row + x0) = w;
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (x0 + k < hi) row[x0 + k] = r[k];
    }
}
template <typename T>
__device__ __forceinline__ void mint_vzero(T* r) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = T(0);
}
template <typename T>
__device__ __forceinline__ void mint_vmove(T* d, const T* s) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) d[k] = s[k];
}
