// Kernel functions of svmopt (paper 000, Table 2) and their blocked, OpenMP-parallel evaluation.
//
//   linear      k(x, z) = <x, z>
//   poly        k(x, z) = <x, z>^d                      (homogeneous polynomial, d >= 1)
//   inhom_poly  k(x, z) = (c + <x, z>)^d                (c >= 0, d >= 1)
//   rbf         k(x, z) = exp(-||x - z||^2 / (2 alpha^2))   (alpha > 0; paper 000's convention)
//   sigmoid     k(x, z) = tanh(a <x, z> + b)
//
// Every entry point works tile by tile: a tile of inner products is produced by one Eigen GEMM on
// packed row blocks, the kernel's elementwise map is applied while the tile is hot in cache, and
// the tile is written once. The RBF tile uses ||x||^2 + ||z||^2 - 2<x, z>, clamped at 0; the
// diagonal of a symmetric RBF Gram is exactly 1.
#pragma once

#include "svmopt/common.hpp"

namespace svmopt {

enum class KernelKind : int { Linear = 0, Poly = 1, InhomPoly = 2, RBF = 3, Sigmoid = 4 };

struct KernelParams {
  KernelKind kind = KernelKind::Linear;
  int degree = 1;
  double c = 0.0;
  double alpha = 1.0;
  double a = 1.0;
  double b = 0.0;
};

// Throws std::invalid_argument when a parameter is out of range (degree < 1, alpha <= 0 or not
// finite, c < 0 for inhom_poly, non-finite a or b).
void validate(const KernelParams& params);

// Default tile edge (rows and columns). Small values are accepted so tests can exercise edges.
constexpr Index kDefaultBlock = 256;

// out (n x n, row-major) = K(X, X). Computes the upper triangle of tiles and mirrors each tile.
void gram(const MatrixView& X, const KernelParams& params, RowMatrixMap out, int n_threads = 0,
          Index block = kDefaultBlock);

// out (n_x x n_z, row-major) = K(X, Z).
void cross(const MatrixView& X, const MatrixView& Z, const KernelParams& params, RowMatrixMap out,
           int n_threads = 0, Index block = kDefaultBlock);

// The same into the first n_z columns of a row-major buffer with leading dimension ld >= n_z (the remaining
// columns are left as they are): lets a caller lay K(X, Z) beside other columns without a copy.
void cross_into(const MatrixView& X, const MatrixView& Z, const KernelParams& params, double* out, Index ld,
                int n_threads = 0, Index block = kDefaultBlock);

// The kernel map applied in place to a rows x cols tile of inner products <x_i, z_j> (row-major, leading dimension
// ld) -- the second half of cross, for callers that form the inner products themselves (a BLAS dgemm). X: the tile's
// rows x_i (row-major rows x d, row stride ldx), whose squared norms the RBF kernel reads (computed here, as cross
// computes them per row block); nz: the squared norms of the z_j (read for the RBF kernel only). One thread.
void kernel_map_inplace(const KernelParams& params, double* tile, Index rows, Index cols, Index ld, const double* X,
                        Index d, Index ldx, const double* nz);

// out (n) = diag K(X, X) = k(x_i, x_i), from row norms only.
void diag(const MatrixView& X, const KernelParams& params, Eigen::Ref<Vector> out);

// out (n_x x k, row-major) = K(X, Z) V without ever storing K(X, Z): memory is
// O(threads * block * (block + d + k)). Each output row block is produced by one thread in a
// fixed order, so the result does not depend on the thread count.
void matvec(const MatrixView& X, const MatrixView& Z, const MatrixView& V, const KernelParams& params,
            RowMatrixMap out, int n_threads = 0, Index block = kDefaultBlock);

}  // namespace svmopt
