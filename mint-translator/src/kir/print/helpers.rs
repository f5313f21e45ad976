//! The device helper functions' definitions, as CUDA text: the helpers the expression
//! printer calls (`emit::cexpr::Helper`), the vector path's 16-byte accesses and its
//! shared-memory rings. They are part of the one printer: `cp.async`, `#pragma unroll` and
//! the like are written here and in `kir::print`, nowhere else.

use std::collections::BTreeSet;

use crate::emit::cexpr::Helper;

/// CUDA definitions of the helpers in `used`, matching Rust's semantics (`powi` is the
/// same square-and-multiply loop as compiler-rt's `__powidf2`).
pub fn helpers_source(used: &BTreeSet<Helper>) -> String {
    let mut s = String::new();
    for h in used {
        s.push_str(match h {
            Helper::Powi => {
                "template <typename T> static __device__ __forceinline__ T mint_powi(T a, int b) {\n    const bool recip = b < 0;\n    T r = 1;\n    while (true) {\n        if (b & 1) r *= a;\n        b /= 2;\n        if (b == 0) break;\n        a *= a;\n    }\n    return recip ? T(1) / r : r;\n}\n"
            }
            Helper::IPow => {
                "template <typename T> static __device__ __forceinline__ T mint_ipow(T a, unsigned int e) {\n    T r = 1;\n    while (e) {\n        if (e & 1u) r *= a;\n        e >>= 1;\n        if (e) a *= a;\n    }\n    return r;\n}\n"
            }
            // Integer min and max are computed on 64 bits: ptxas 13.0 for sm_90 fuses
            // `min(min(a, -a), b)`, `max(max(a, -a), b)` and the like on 32-bit operands
            // into one `VIMNMX3` and drops the negation (found by tests/fuzz.rs, seeds 12999,
            // 16445, 7256, 18424; C's ternary, CUDA's `min` and PTX `min.s32` alike; right
            // with `-G` or ptxas `-O0`). Regression test: tests/regressions.rs.
            Helper::IMin => IMINMAX_MIN,
            Helper::IMax => IMINMAX_MAX,
            Helper::VolatileLoad => {
                "template <typename T> static __device__ __forceinline__ T mint_vld(const T& r) { return *(const volatile T*)&r; }\n"
            }
            Helper::IAbs => {
                "template <typename T> static __device__ __forceinline__ T mint_iabs(T a) { return a < 0 ? T(-a) : a; }\n"
            }
            Helper::Clamp => {
                "template <typename T> static __device__ __forceinline__ T mint_clamp(T x, T lo, T hi) {\n    if (x < lo) x = lo;\n    if (x > hi) x = hi;\n    return x;\n}\n"
            }
            Helper::Signum => {
                "static __device__ __forceinline__ float mint_signum(float x) { return isnan(x) ? x : copysignf(1.0f, x); }\nstatic __device__ __forceinline__ double mint_signum(double x) { return isnan(x) ? x : copysign(1.0, x); }\ntemplate <typename T> static __device__ __forceinline__ T mint_signum(T x) { return T((x > 0) - (x < 0)); }\n"
            }
            Helper::Fract => {
                "static __device__ __forceinline__ float mint_fract(float x) { return x - truncf(x); }\nstatic __device__ __forceinline__ double mint_fract(double x) { return x - trunc(x); }\n"
            }
            Helper::AsyncCopy => {
                "template <typename T> static __device__ __forceinline__ void mint_cp_async(T* dst, const T* src, bool inside) {\n    static_assert(sizeof(T) == 4 || sizeof(T) == 8, \"cp.async copies 4 or 8 bytes here\");\n    const unsigned int s = (unsigned int)__cvta_generic_to_shared(dst);\n    asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2, %3;\\n\" :: \"r\"(s), \"l\"(src), \"n\"(sizeof(T)), \"r\"(inside ? (int)sizeof(T) : 0) : \"memory\");\n}\nstatic __device__ __forceinline__ void mint_cp_async16(void* dst, const void* src, bool inside) {\n    const unsigned int s = (unsigned int)__cvta_generic_to_shared(dst);\n    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" :: \"r\"(s), \"l\"(src), \"r\"(inside ? 16 : 0) : \"memory\");\n}\nstatic __device__ __forceinline__ void mint_cp_async_commit() { asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\"); }\ntemplate <int N> static __device__ __forceinline__ void mint_cp_async_wait() { asm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(N) : \"memory\"); }\n"
            }
            Helper::SatSub => {
                "template <typename T, bool U> static __device__ __forceinline__ T mint_sat_sub(T a, T b) {\n    if (U) return a > b ? T(a - b) : T(0);\n    const T lo = T(1ULL << (sizeof(T) * 8 - 1)), hi = T(~lo);\n    if (b > 0 && a < lo + b) return lo;\n    if (b < 0 && a > hi + b) return hi;\n    return T(a - b);\n}\n"
            }
            Helper::RemEuclid => {
                "static __device__ __forceinline__ float mint_rem_euclid(float a, float b) { float r = fmodf(a, b); return r < 0.0f ? r + fabsf(b) : r; }\nstatic __device__ __forceinline__ double mint_rem_euclid(double a, double b) { double r = fmod(a, b); return r < 0.0 ? r + fabs(b) : r; }\ntemplate <typename T> static __device__ __forceinline__ T mint_rem_euclid(T a, T b) { T r = a % b; return r < 0 ? (b < 0 ? T(r - b) : T(r + b)) : r; }\n"
            }
        });
    }
    s
}

/// `mint_imin` for every integer type, as PTX `min.s64`/`min.u64` on the operands widened to
/// 64 bits (see [`Helper::IMin`]'s note): ptxas lowers those to a compare and select, which it
/// does not fuse into the 32-bit three-operand `VIMNMX3` that drops negations.
const IMINMAX_MIN: &str = concat!(
    "template <typename T> static __device__ __forceinline__ T mint_imin(T a, T b) {\n",
    "    if (T(-1) < T(0)) { long long r; asm(\"min.s64 %0, %1, %2;\" : \"=l\"(r) : \"l\"((long long)a), \"l\"((long long)b)); return (T)r; }\n",
    "    unsigned long long r; asm(\"min.u64 %0, %1, %2;\" : \"=l\"(r) : \"l\"((unsigned long long)a), \"l\"((unsigned long long)b)); return (T)r;\n",
    "}\n",
);

/// `mint_imax`, as [`IMINMAX_MIN`].
const IMINMAX_MAX: &str = concat!(
    "template <typename T> static __device__ __forceinline__ T mint_imax(T a, T b) {\n",
    "    if (T(-1) < T(0)) { long long r; asm(\"max.s64 %0, %1, %2;\" : \"=l\"(r) : \"l\"((long long)a), \"l\"((long long)b)); return (T)r; }\n",
    "    unsigned long long r; asm(\"max.u64 %0, %1, %2;\" : \"=l\"(r) : \"l\"((unsigned long long)a), \"l\"((unsigned long long)b)); return (T)r;\n",
    "}\n",
);

/// Device helpers of vectorized kernels (`vectorize`), with `types` the `mint_vec<T>`
/// specializations of the kernel's element types: alignment test, 16-byte loads through
/// the read-only path and plain, 16-byte and partial stores, vector moves.
pub fn vector_helpers(types: &str) -> String {
    format!("{VECTOR_HELPERS_HEAD}{types}{VECTOR_HELPERS_TAIL}")
}

/// [`vector_helpers`] before the vector types.
const VECTOR_HELPERS_HEAD: &str = r#"// 16-byte vector accesses (vectorize): V = 16 / sizeof(T) consecutive elements of a row
template <typename T> struct mint_vec;
"#;

/// [`vector_helpers`] after the vector types.
const VECTOR_HELPERS_TAIL: &str = r#"__device__ __forceinline__ bool mint_valigned(const void* p, size_t pitch_bytes, size_t slice_bytes) {
    return (((size_t)p | pitch_bytes | slice_bytes) & 15) == 0;
}
// r = a[i .. i + V) through the read-only path: a whole aligned vector (the caller checked)
template <typename T>
__device__ __forceinline__ void mint_vload(const T* __restrict__ a, idx_t i, T* r) {
    const typename mint_vec<T>::type w = __ldg(reinterpret_cast<const typename mint_vec<T>::type*>(a + i));
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
// r = a[i .. i + V) of an array the kernel writes (a plain load)
template <typename T>
__device__ __forceinline__ void mint_vload_rw(const T* a, idx_t i, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(a + i);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
// a[i .. i + V) = r
template <typename T>
__device__ __forceinline__ void mint_vstore(T* a, idx_t i, const T* r) {
    typename mint_vec<T>::type w;
    T* q = reinterpret_cast<T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) q[k] = r[k];
    *reinterpret_cast<typename mint_vec<T>::type*>(a + i) = w;
}
// a[i .. i + min(n, V)) = r: the last thread of a row, whose lanes past the loop end are
// not stored
template <typename T>
__device__ __forceinline__ void mint_vstore_part(T* a, idx_t i, idx_t n, const T* r) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k)
        if (k < n) a[i + k] = r[k];
}
template <typename T>
__device__ __forceinline__ void mint_vmove(T* d, const T* s) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) d[k] = s[k];
}
"#;

/// Device helper of the vector path's shared-memory rings (`pipeline` with `vectorize`):
/// a 16-byte vector from shared memory.
pub const RING_HELPERS: &str = r#"// r = s[0 .. V) from shared memory (the ring path): one 16-byte load
template <typename T>
__device__ __forceinline__ void mint_vload_shared(const T* s, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(s);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
"#;
