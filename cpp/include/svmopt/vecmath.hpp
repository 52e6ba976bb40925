// Vectorised elementwise maths for the kernel tiles.
#pragma once

#include "svmopt/common.hpp"

namespace svmopt {

// p[i] <- exp(p[i]) for p[i] <= 0 (the RBF argument). Relative error <= 2 ulp against std::exp on
// [-708.39, 0]; results below the smallest normal double (x < -708.39) are flushed to 0.
// Auto-vectorised; on x86-64 an AVX2+FMA clone is chosen at load time where the CPU has it.
void exp_nonpositive_inplace(double* p, Index n);

// p[i] <- tanh(a * p[i] + b) (the sigmoid kernel map), <= 4 ulp, through a vectorised expm1.
void tanh_affine_inplace(double* p, Index n, double a, double b);

// Scalar versions of the same algorithms (for the diagonal and for tests).
double exp_nonpositive(double x);
double tanh_fast(double x);

}  // namespace svmopt
