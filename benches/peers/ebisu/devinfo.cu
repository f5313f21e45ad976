// Not EBISU: a helper for run.sh, which needs the SM count to tell beforehand which domains
// EBISU's 3-D kernels can run (every x-y tile must be resident at once, one block per SM).
// Prints: sms=<n> smem_per_sm=<bytes> cc=<major><minor> name=<name with '_' for ' '>
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) {
    fprintf(stderr, "devinfo: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (char *c = p.name; *c; ++c)
    if (*c == ' ') *c = '_';
  printf("sms=%d smem_per_sm=%zu cc=%d%d name=%s\n", p.multiProcessorCount,
         p.sharedMemPerMultiprocessor, p.major, p.minor, p.name);
  return 0;
}
