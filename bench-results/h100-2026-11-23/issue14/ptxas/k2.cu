__device__ __forceinline__ int m64(int a, int b) { long long r; asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"((long long)a), "l"((long long)b)); return (int)r; }
__device__ __forceinline__ int x64(int a, int b) { long long r; asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"((long long)a), "l"((long long)b)); return (int)r; }
__device__ __forceinline__ int msel(int a, int b) { int r; asm("{ .reg .pred p; setp.lt.s32 p, %2, %1; selp.b32 %0, %2, %1, p; }" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ int xsel(int a, int b) { int r; asm("{ .reg .pred p; setp.gt.s32 p, %2, %1; selp.b32 %0, %2, %1, p; }" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ int neg_opaque(int a) { int r; asm volatile("sub.s32 %0, 0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ int mfl(int a, int b) { return b < a ? b : a; }
__device__ __forceinline__ int xfl(int a, int b) { return b > a ? b : a; }
#define K(name, expr) extern "C" __global__ void name(const int* A, const int* B, int* out, int n) { int x = blockIdx.x * blockDim.x + threadIdx.x; if (x < n) { int a = A[x], b = B[x]; out[x] = expr; } }
K(ka_m64, m64(m64(a, -a), b))
K(kc_x64, x64(a, x64(a, -b)))
K(ka_sel, msel(msel(a, -a), b))
K(kc_sel, xsel(a, xsel(a, -b)))
K(ka_neg, mfl(mfl(a, neg_opaque(a)), b))
K(kc_neg, xfl(a, xfl(a, neg_opaque(b))))
K(ka_plain, mfl(mfl(a, -a), b))
K(kc_plain, xfl(a, xfl(a, -b)))
K(kg_plain, mfl(mfl(a, b), -b))
K(kh_plain, xfl(xfl(a, -a), b))
K(ki_plain, mfl(b, mfl(a, -a)))
K(kj_plain, mfl(mfl(a, -a), -b))
K(kk_plain, mfl(mfl(a, 3 - a), b))
K(kl_plain, mfl(mfl(a, ~a), b))
K(km_plain, xfl(a, xfl(a, b)))
K(kn_plain, xfl(a, xfl(a, 5 - b)))
