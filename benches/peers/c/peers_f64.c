/* The C peers in double precision: kernels.inc instantiated for T = double. */
#define T double
#define NAME(f) mint_peer_##f##_f64
#include "kernels.inc"
