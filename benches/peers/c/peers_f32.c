/* The C peers in single precision: kernels.inc instantiated for T = float. */
#define T float
#define NAME(f) mint_peer_##f##_f32
#include "kernels.inc"
