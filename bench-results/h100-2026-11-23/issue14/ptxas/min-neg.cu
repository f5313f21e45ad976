template <typename T> static __device__ __forceinline__ T imin(T a, T b) { int r; asm("min.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
template <typename T> static __device__ __forceinline__ T imax(T a, T b) { int r; asm("max.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
extern "C" __global__ void ka(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) out[x] = imin<int>(imin<int>(a[x], -a[x]), b[x]);
}
extern "C" __global__ void kb(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) out[x] = imin<int>(a[x], -4 * x);
}
extern "C" __global__ void kc(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) out[x] = imax<int>(a[x], imax<int>(a[x], -b[x]));
}
extern "C" __global__ void kd(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) out[x] = imax<int>(a[x], -b[x]);
}
extern "C" __global__ void ke(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) out[x] = min(a[x], -b[x]);
}
extern "C" __global__ void kf(const int* a, const int* b, int* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) { int nb = -b[x]; out[x] = nb < a[x] ? nb : a[x]; }
}
