// Include first in a source file whose results must be bit-identical to a numpy reference and across
// the core's ISA variants: the AVX2 variant is compiled with -mfma, and this keeps a + b * c as two
// roundings (no fused multiply-add contraction) for every function defined after the include.
#pragma once

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
