#include "svmopt/reduced.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace svmopt {

CutSums reduced_cut_pass(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z, const KernelParams& params,
                         const double* y, const double* delta, const Vector& v, double gamma, double S,
                         double* scores_out, int n_threads, Index block, Index n_groups, Index row_offset,
                         Index n_total) {
  const bool cached = Phi.data != nullptr;
  const Index n = cached ? Phi.rows : X.rows;
  const Index L = cached ? Phi.cols : Z.rows;
  if (v.size() != L) throw std::invalid_argument("v must have one entry per landmark (" + std::to_string(L) + ")");
  if (!cached) {
    if (X.cols != Z.cols) throw std::invalid_argument("X and Z must have the same number of columns");
    validate(params);
    check_finite_rows(X, "X");
  }
  if (!std::isfinite(gamma) || !std::isfinite(S) || !v.allFinite()) {
    throw std::invalid_argument("the iterate (v, gamma, S) must be finite");
  }
  if (block < 1) throw std::invalid_argument("block must be >= 1");
  const Index N = n_total < 0 ? n : n_total;
  if (row_offset < 0 || row_offset + n > N) {
    throw std::invalid_argument("the rows must lie within the n_total rows: row_offset >= 0, row_offset + n <= n_total");
  }
  if (n_groups < 1 || (N > 0 && n_groups > N)) throw std::invalid_argument("n_groups must be in [1, n_total]");
  for (Index i = 0; i < n; ++i) {
    if (y[i] != 1.0 && y[i] != -1.0) throw std::invalid_argument("y must hold labels -1 or +1");
    if (delta && !(delta[i] >= 0.0 && std::isfinite(delta[i]))) {
      throw std::invalid_argument("delta must be finite and >= 0");
    }
  }
  CutSums out;
  out.a = Vector::Zero(L);
  const Index G = n_groups;
  out.a_groups = RowMatrix::Zero(G, L);
  out.b_groups = out.e_groups = out.n_c_groups = out.hinge_groups = Vector::Zero(G);
  // Group g: rows [group_start(g), group_start(g + 1)) of the whole data set, in this call's row numbers.
  auto group_start = [N, G, row_offset](Index g) { return g * N / G - row_offset; };
  RowMatrix K;
  Vector f, w;
  Index g = 0, nb = 0;
  for (Index r0 = 0; r0 < n; r0 += nb) {
    // A block never straddles a group boundary, so each block's cut goes to one group.
    while (group_start(g + 1) <= r0) ++g;
    nb = std::min({block, n - r0, group_start(g + 1) - r0});
    K.resize(nb, L);
    if (cached) {
      bool finite = true;
      for (Index i = 0; i < nb; ++i)
        for (Index j = 0; j < L; ++j) finite &= std::isfinite(K(i, j) = Phi(r0 + i, j));
      if (!finite) throw std::invalid_argument("Phi must be finite (no NaN or infinity)");
    } else {
      MatrixView xb = X;
      xb.data = X.data + r0 * X.row_stride;
      xb.rows = nb;
      cross(xb, Z, params, RowMatrixMap(K.data(), nb, L), n_threads);
    }
    f.noalias() = K * v;
    w.setZero(nb);  // c_i y_i
    for (Index i = 0; i < nb; ++i) {
      const double yi = y[r0 + i], di = delta ? delta[r0 + i] : 0.0;
      const double margin = 1.0 + yi * gamma - yi * f(i) + di * S;
      if (margin > 0.0) {
        w(i) = yi;
        out.b_groups(g) += yi;
        out.e_groups(g) += di;
        out.n_c_groups(g) += 1.0;
        out.hinge_groups(g) += margin;
      }
      if (scores_out) scores_out[r0 + i] = f(i);
    }
    out.a_groups.row(g).noalias() += (K.transpose() * w).transpose();
  }
  out.a = out.a_groups.colwise().sum().transpose();
  out.b = out.b_groups.sum();
  out.e = out.e_groups.sum();
  out.n_c = out.n_c_groups.sum();
  out.hinge = out.hinge_groups.sum();
  return out;
}

}  // namespace svmopt
