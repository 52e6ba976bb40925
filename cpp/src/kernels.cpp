#include "svmopt/kernels.hpp"

#include "svmopt/vecmath.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace svmopt {
namespace {

using Array = Eigen::ArrayXd;

// A tile of a row-major output (or of a scratch buffer): rows x cols with an outer stride.
using TileMap = Eigen::Map<RowMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

// Integer power of every entry of `t`, in place, by repeated squaring with `scratch` as workspace.
template <typename Tile>
void ipow_inplace(Tile&& t, int degree, RowMatrix& scratch) {
  if (degree == 1) return;
  if (degree == 2) {
    t.array() = t.array().square();
    return;
  }
  if (degree == 3) {
    t.array() = t.array().cube();
    return;
  }
  scratch = t;  // base
  t.setOnes();
  int e = degree;
  while (e > 0) {
    if (e & 1) t.array() *= scratch.array();
    e >>= 1;
    if (e) scratch.array() = scratch.array().square();
  }
}

// Apply the kernel map to a tile of inner products G = X_I Z_J^T, in place.
// nx, nz: squared row norms of the two blocks (used by RBF only).
template <typename Tile>
void apply_map(Tile&& t, const KernelParams& p, const double* nx, const double* nz, RowMatrix& scratch) {
  switch (p.kind) {
    case KernelKind::Linear:
      return;
    case KernelKind::Poly:
      ipow_inplace(t, p.degree, scratch);
      return;
    case KernelKind::InhomPoly:
      t.array() += p.c;
      ipow_inplace(t, p.degree, scratch);
      return;
    case KernelKind::RBF: {
      // exp(-(||x||^2 + ||z||^2 - 2<x,z>)_+ / (2 alpha^2)), one row of the tile at a time.
      const double scale = 1.0 / (2.0 * p.alpha * p.alpha);
      const Index r = t.rows();
      const Index c = t.cols();
      for (Index i = 0; i < r; ++i) {
        double* row = &t(i, 0);
        const double xi = nx[i];
#pragma omp simd
        for (Index j = 0; j < c; ++j) {
          const double d2 = xi + nz[j] - 2.0 * row[j];
          row[j] = d2 > 0.0 ? -scale * d2 : 0.0;
        }
        exp_nonpositive_inplace(row, c);
      }
      return;
    }
    case KernelKind::Sigmoid:
      for (Index i = 0; i < t.rows(); ++i) tanh_affine_inplace(&t(i, 0), t.cols(), p.a, p.b);
      return;
  }
}

double map_scalar(double g, double sq_dist_or_unused, const KernelParams& p) {
  switch (p.kind) {
    case KernelKind::Linear:
      return g;
    case KernelKind::Poly:
      return std::pow(g, p.degree);
    case KernelKind::InhomPoly:
      return std::pow(p.c + g, p.degree);
    case KernelKind::RBF:
      return exp_nonpositive(-std::max(sq_dist_or_unused, 0.0) / (2.0 * p.alpha * p.alpha));
    case KernelKind::Sigmoid:
      return tanh_fast(p.a * g + p.b);
  }
  return g;
}

RowMatrix pack_all(const MatrixView& X) {
  RowMatrix P(X.rows, X.cols);
  if (X.rows > 0 && X.cols > 0) X.pack_rows(0, X.rows, P.data());
  return P;
}

Vector row_sq_norms(const RowMatrix& P) { return P.rowwise().squaredNorm(); }

void check_out(const RowMatrixMap& out, Index r, Index c, const char* what) {
  if (out.rows() != r || out.cols() != c) {
    throw std::invalid_argument(std::string(what) + ": output has the wrong shape");
  }
}

Index clamp_block(Index block) { return std::max<Index>(1, block); }

// Z packed once, with its squared row norms: the right-hand side of every tile.
struct PackedRhs {
  RowMatrix rows;
  Vector norms;
  explicit PackedRhs(const MatrixView& Z) : rows(pack_all(Z)), norms(row_sq_norms(rows)) {}
};

// dst (ri x rj) <- k(X_I, Z_J) for the packed row block XI and rows [j0, j0 + rj) of Z.
template <typename Dst, typename XBlock>
void kernel_tile(Dst&& dst, const XBlock& XI, const double* xnorms, const PackedRhs& Z, Index j0,
                 const KernelParams& params, RowMatrix& scratch) {
  dst.noalias() = XI * Z.rows.middleRows(j0, dst.cols()).transpose();
  apply_map(dst, params, xnorms, Z.norms.data() + j0, scratch);
}

// Parallel loop over row blocks of X (static schedule): visit(i0, ri, XI, xnorms, scratch) gets the
// block packed row-major in thread-local storage, so any input layout is read once per block. The blocks left
// once `intr` is requested are skipped (the caller checks it after the loop; visit may stop early too).
template <typename Visit>
void for_each_row_block(const MatrixView& X, Index block, int n_threads, Interruption& intr, Visit&& visit) {
  const Index n = X.rows, d = X.cols;
  const Index nb = (n + block - 1) / block;
  // Never more threads than row blocks: an idle thread of a team spins (and bills CPU time) until the region ends.
  const int nt = static_cast<int>(std::min<Index>(resolve_threads(n_threads), nb));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    RowMatrix PX(block, d), scratch;
    Vector xnorms(block);
#pragma omp for schedule(static)
    for (Index b = 0; b < nb; ++b) {
      if (intr.requested()) continue;
      const Index i0 = b * block, ri = std::min(block, n - i0);
      X.pack_rows(i0, ri, PX.data());
      auto XI = PX.topRows(ri);
      xnorms.head(ri) = XI.rowwise().squaredNorm();
      visit(i0, ri, XI, xnorms.data(), scratch);
    }
  }
}

}  // namespace

void validate(const KernelParams& p) {
  if (p.kind == KernelKind::Poly || p.kind == KernelKind::InhomPoly) {
    if (p.degree < 1) throw std::invalid_argument("degree must be an integer >= 1, got " + std::to_string(p.degree));
  }
  if (p.kind == KernelKind::InhomPoly && !(std::isfinite(p.c) && p.c >= 0.0)) {
    throw std::invalid_argument("c must be finite and >= 0 for the inhomogeneous polynomial kernel");
  }
  if (p.kind == KernelKind::RBF && !(std::isfinite(p.alpha) && p.alpha > 0.0)) {
    throw std::invalid_argument("alpha must be finite and > 0 for the RBF kernel");
  }
  if (p.kind == KernelKind::Sigmoid && !(std::isfinite(p.a) && std::isfinite(p.b))) {
    throw std::invalid_argument("a and b must be finite for the sigmoid kernel");
  }
}

void gram(const MatrixView& X, const KernelParams& params, RowMatrixMap out, int n_threads, Index block) {
  validate(params);
  check_finite_rows(X, "X");
  const Index n = X.rows;
  check_out(out, n, n, "gram");
  if (n == 0) return;
  block = clamp_block(block);
  const RowMatrix P = pack_all(X);
  const Vector norms = row_sq_norms(P);
  const Index nb = (n + block - 1) / block;
  std::vector<std::pair<Index, Index>> tiles;
  tiles.reserve(static_cast<std::size_t>(nb * (nb + 1) / 2));
  for (Index bi = 0; bi < nb; ++bi)
    for (Index bj = bi; bj < nb; ++bj) tiles.emplace_back(bi, bj);
  const Index ntiles = static_cast<Index>(tiles.size());
  // Never more threads than tiles, and one thread below ~1 Mflop: waking a team costs more than such a Gram,
  // and on a busy machine the spinning of idle threads showed up as a visible CPU cost even for a tiny Gram
  // (docs/performance.md#core-design-figures).
  int nt = static_cast<int>(std::min<Index>(resolve_threads(n_threads), ntiles));
  if (n * n * std::max<Index>(X.cols, 1) < (Index(1) << 20)) nt = 1;
  const bool is_rbf = params.kind == KernelKind::RBF;
  Interruption intr;

#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    RowMatrix scratch;
#pragma omp for schedule(static, 1)
    for (Index t = 0; t < ntiles; ++t) {
      if (intr.requested()) continue;
      const Index i0 = tiles[t].first * block, j0 = tiles[t].second * block;
      const Index ri = std::min(block, n - i0), rj = std::min(block, n - j0);
      auto tile = out.block(i0, j0, ri, rj);
      tile.noalias() = P.middleRows(i0, ri) * P.middleRows(j0, rj).transpose();
      apply_map(tile, params, norms.data() + i0, norms.data() + j0, scratch);
      if (i0 == j0) {
        // Symmetrise the diagonal tile exactly (GEMM rounding can differ across the diagonal).
        for (Index i = 0; i < ri; ++i) {
          if (is_rbf) tile(i, i) = 1.0;
          for (Index j = i + 1; j < rj; ++j) tile(j, i) = tile(i, j);
        }
      } else {
        out.block(j0, i0, rj, ri) = tile.transpose();
      }
    }
  }
  intr.check();
}

void cross(const MatrixView& X, const MatrixView& Z, const KernelParams& params, RowMatrixMap out, int n_threads,
           Index block) {
  check_out(out, X.rows, Z.rows, "cross");
  cross_into(X, Z, params, out.data(), Z.rows, n_threads, block);
}

void cross_into(const MatrixView& X, const MatrixView& Z, const KernelParams& params, double* out, Index ld,
                int n_threads, Index block) {
  validate(params);
  if (X.cols != Z.cols) throw std::invalid_argument("cross: X and Z have different numbers of features");
  const Index nx = X.rows, nz = Z.rows;
  if (ld < nz) throw std::invalid_argument("cross: the leading dimension is smaller than the number of columns");
  check_finite_rows(X, "X");
  check_finite_rows(Z, "Z");
  if (nx == 0 || nz == 0) return;
  block = clamp_block(block);
  const PackedRhs PZ(Z);
  TileMap o(out, nx, ld, Eigen::OuterStride<>(ld));
  Interruption intr;
  for_each_row_block(X, block, n_threads, intr, [&](Index i0, Index ri, const auto& XI, const double* xn,
                                                    RowMatrix& sc) {
    for (Index j0 = 0; j0 < nz && !intr.requested(); j0 += block) {
      kernel_tile(o.block(i0, j0, ri, std::min(block, nz - j0)), XI, xn, PZ, j0, params, sc);
    }
  });
  intr.check();
}

void kernel_map_inplace(const KernelParams& params, double* tile, Index rows, Index cols, Index ld, const double* X,
                        Index d, Index ldx, const double* nz) {
  validate(params);
  if (rows == 0 || cols == 0) return;
  TileMap t(tile, rows, cols, Eigen::OuterStride<>(ld));
  Vector nx;
  if (params.kind == KernelKind::RBF) {  // the only map that reads the norms
    nx.resize(rows);
    for (Index i = 0; i < rows; ++i) nx[i] = Eigen::Map<const Eigen::RowVectorXd>(X + i * ldx, d).squaredNorm();
  }
  RowMatrix scratch;
  apply_map(t, params, nx.data(), nz, scratch);
}

void diag(const MatrixView& X, const KernelParams& params, Eigen::Ref<Vector> out) {
  validate(params);
  if (out.size() != X.rows) throw std::invalid_argument("diag: output has the wrong length");
  check_finite_rows(X, "X");
  for (Index i = 0; i < X.rows; ++i) {
    double s = 0.0;
    for (Index j = 0; j < X.cols; ++j) s += X(i, j) * X(i, j);
    out[i] = map_scalar(s, 0.0, params);
  }
}

void matvec(const MatrixView& X, const MatrixView& Z, const MatrixView& V, const KernelParams& params,
            RowMatrixMap out, int n_threads, Index block) {
  validate(params);
  if (X.cols != Z.cols) throw std::invalid_argument("matvec: X and Z have different numbers of features");
  if (V.rows != Z.rows) throw std::invalid_argument("matvec: v must have one row per row of Z");
  check_finite_rows(X, "X");
  check_finite_rows(Z, "Z");
  const Index nx = X.rows, nz = Z.rows, k = V.cols;
  check_out(out, nx, k, "matvec");
  if (nx == 0 || k == 0) return;
  out.setZero();
  if (nz == 0) return;
  block = clamp_block(block);
  const PackedRhs PZ(Z);
  const RowMatrix PV = pack_all(V);
  const Index tile_cols = std::min(block, nz);
  Interruption intr;
  for_each_row_block(X, block, n_threads, intr, [&](Index i0, Index ri, const auto& XI, const double* xn,
                                                    RowMatrix& sc) {
    thread_local RowMatrix T;
    T.resize(block, tile_cols);
    auto acc = out.middleRows(i0, ri);
    for (Index j0 = 0; j0 < nz && !intr.requested(); j0 += block) {
      const Index rj = std::min(block, nz - j0);
      auto tile = T.topLeftCorner(ri, rj);
      kernel_tile(tile, XI, xn, PZ, j0, params, sc);
      acc.noalias() += tile * PV.middleRows(j0, rj);
    }
  });
  intr.check();
}

}  // namespace svmopt
