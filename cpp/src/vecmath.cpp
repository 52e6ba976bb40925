#include "svmopt/vecmath.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && !defined(SVMOPT_NO_CLONES)
#define SVMOPT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SVMOPT_CLONES
#endif

namespace svmopt {
namespace {

// q(r) = sum_{k=0}^{12} r^k / (k+1)!, by Horner: exp(r) = 1 + r q(r) and expm1(r) = r q(r) (truncation error
// r^14/14! < 5e-18 for |r| <= ln2/2).
inline double taylor_tail(double r) {
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  return p * r + 1.0;
}

// Cody-Waite range reduction x = n ln2 + r, |r| <= ln2/2, then a degree-13 Taylor polynomial
// (truncation error r^14/14! < 5e-18) and scaling by 2^n built in the exponent bits.
inline double exp_kernel(double x) {
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52: rounds to nearest integer
  constexpr double kMin = -708.3964185322641;    // exp(kMin) = smallest normal double
  const double xc = x < kMin ? kMin : x;
  const double t = xc * kLog2e + kShift;
  const double n = t - kShift;
  const double r = (xc - n * kLn2Hi) - n * kLn2Lo;
  const double p = taylor_tail(r) * r + 1.0;
  std::int64_t tb, sb;
  std::memcpy(&tb, &t, sizeof tb);
  std::memcpy(&sb, &kShift, sizeof sb);
  const std::int64_t e = ((tb - sb) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &e, sizeof scale);
  return x < kMin ? 0.0 : p * scale;
}

// expm1(x) for x <= 0: a Taylor polynomial near 0 (no cancellation), exp(x) - 1 elsewhere.
inline double expm1_kernel(double x) {
  constexpr double kSmall = -0.34657359027997264;  // -ln2/2
  const double p = taylor_tail(x);
  const double small = p * x;
  const double large = exp_kernel(x) - 1.0;
  return x > kSmall ? small : large;
}

// tanh(y) = sign(y) * (-e / (2 + e)) with e = expm1(-2|y|): accurate near 0 and saturating at +-1.
inline double tanh_kernel(double y) {
  const double a = y < 0.0 ? -y : y;
  const double e = expm1_kernel(-2.0 * a);
  const double t = -e / (2.0 + e);
  return y < 0.0 ? -t : t;
}

}  // namespace

double exp_nonpositive(double x) { return exp_kernel(x); }

double tanh_fast(double x) { return tanh_kernel(x); }

SVMOPT_CLONES void tanh_affine_inplace(double* p, Index n, double a, double b) {
#pragma omp simd
  for (Index i = 0; i < n; ++i) p[i] = tanh_kernel(a * p[i] + b);
}

SVMOPT_CLONES void exp_nonpositive_inplace(double* p, Index n) {
#pragma omp simd
  for (Index i = 0; i < n; ++i) p[i] = exp_kernel(p[i]);
}

}  // namespace svmopt
