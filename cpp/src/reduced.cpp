#include "svmopt/reduced.hpp"

#include "svmopt/blas.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace svmopt {

namespace {

// One block's contribution: the sums of rows [r0, r0 + nb), all in group g.
struct BlockSums {
  Vector a;
  double b = 0.0, e = 0.0, n_c = 0.0, hinge = 0.0;
};

// Rows r0 .. r0 + nb - 1 of the kernel rows into dst (row-major, leading dimension ld >= L): copied from Phi when
// it is given, else computed as K(X, Z) with `threads` threads.
void block_rows(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z, const KernelParams& params, Index r0,
                Index nb, double* dst, Index ld, int threads) {
  if (Phi.data != nullptr) {
    if (Phi.rows_contiguous()) {
      for (Index i = 0; i < nb; ++i) {
        std::memcpy(dst + i * ld, Phi.data + (r0 + i) * Phi.row_stride, static_cast<std::size_t>(Phi.cols) * sizeof(double));
      }
      return;
    }
    for (Index i = 0; i < nb; ++i)
      for (Index j = 0; j < Phi.cols; ++j) dst[i * ld + j] = Phi(r0 + i, j);
    return;
  }
  MatrixView xb = X;
  xb.data = X.data + r0 * X.row_stride;
  xb.rows = nb;
  cross_into(xb, Z, params, dst, ld, threads);
}

}  // namespace

CutSums reduced_cut_pass(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z, const KernelParams& params,
                         const double* y, const double* delta, const double* offset, const Vector& v, double gamma,
                         double S, double* scores_out, int n_threads, Index block, Index n_groups, Index row_offset,
                         Index n_total, const double* weight) {
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
    if (offset && !std::isfinite(offset[i])) throw std::invalid_argument("offset must be finite");
    if (weight && !(weight[i] > 0.0 && std::isfinite(weight[i]))) {
      throw std::invalid_argument("weight must be finite and > 0");
    }
  }
  CutSums out;
  const Index G = n_groups;
  out.a_groups = RowMatrix::Zero(G, L);
  out.b_groups = out.e_groups = out.n_c_groups = out.hinge_groups = Vector::Zero(G);
  // Group g: rows [group_start(g), group_start(g + 1)) of the whole data set, in this call's row numbers. A block
  // never straddles a group boundary, so each block's cut goes to one group.
  auto group_start = [N, G, row_offset](Index g) { return g * N / G - row_offset; };
  std::vector<Index> b_row, b_group;
  for (Index r0 = 0, g = 0, nb = 0; r0 < n; r0 += nb) {
    while (group_start(g + 1) <= r0) ++g;
    nb = std::min({block, n - r0, group_start(g + 1) - r0});
    b_row.push_back(r0);
    b_group.push_back(g);
  }
  b_row.push_back(n);
  const Index n_blocks = static_cast<Index>(b_group.size());

  using RowsMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
  // The sums of the rows of one block (nb x L, read in place when Phi's rows are contiguous) into `s`.
  auto accumulate = [&](Index r0, const RowsMap& rows, BlockSums& s) {
    const Index nb = rows.rows();
    const Vector f = rows * v;
    Vector w = Vector::Zero(nb);  // w_i c_i y_i
    s = BlockSums{};
    for (Index i = 0; i < nb; ++i) {
      // A NaN or infinity in row i of Phi makes f_i non-finite (v is finite): the check costs no second read.
      if (!std::isfinite(f(i))) throw std::invalid_argument("Phi must be finite (no NaN or infinity), and Phi v too");
      const double yi = y[r0 + i], di = delta ? delta[r0 + i] : 0.0, ai = offset ? offset[r0 + i] : 1.0;
      const double margin = ai + yi * gamma - yi * f(i) + di * S;
      if (margin > 0.0) {
        const double wi = weight ? weight[r0 + i] : 1.0;
        w(i) = wi * yi;
        s.b += wi * yi;
        s.e += wi * di;
        s.n_c += wi * ai;
        s.hinge += wi * margin;
      }
      if (scores_out) scores_out[r0 + i] = f(i);
    }
    s.a.noalias() = rows.transpose() * w;
  };
  // K is the block's workspace for computed or strided rows.
  auto block_sums = [&](Index k, RowMatrix& K, BlockSums& s, int inner_threads) {
    const Index r0 = b_row[static_cast<std::size_t>(k)], nb = b_row[static_cast<std::size_t>(k) + 1] - r0;
    if (cached && Phi.col_stride == 1) {
      const RowsMap rows(Phi.data + r0 * Phi.row_stride, nb, L, Eigen::OuterStride<>(Phi.row_stride));
      accumulate(r0, rows, s);
      return;
    }
    K.resize(nb, L);
    block_rows(Phi, X, Z, params, r0, nb, K.data(), L, inner_threads);
    accumulate(r0, RowsMap(K.data(), nb, L, Eigen::OuterStride<>(L)), s);
  };

  // Cached rows: the blocks of a batch run in parallel, each into its own sums, added up in block order (the result
  // does not depend on the thread count; memory O(batch x L) <= 8 MiB, whatever n), when the pass reads at least 2^21 values
  // (below, the threads' start-up and barriers cost more than they save: 10^4 x 50 took 45 ms a pass in parallel on
  // a loaded 2-core machine, against 0.5 ms serial). Computed rows: the kernel evaluation of each block is itself
  // parallel, the blocks run in order.
  const int threads = n * L >= (Index{1} << 21) ? resolve_threads(n_threads) : 1;
  // As many blocks a batch as 2^20 partial sums allow (8 MiB): one parallel region per pass at 10^6 x 50 instead of
  // 122, since on a machine shared with other jobs each region's barrier can wait a whole time slice for a thread.
  const Index batch = cached ? std::max<Index>(4 * threads, (Index{1} << 20) / std::max<Index>(L, 1)) : 1;
  std::vector<BlockSums> sums(static_cast<std::size_t>(std::min(batch, std::max<Index>(n_blocks, 1))));
  std::vector<RowMatrix> work(sums.size());
  bool failed = false;
  std::string error;
  Interruption intr;  // between blocks
  for (Index k0 = 0; k0 < n_blocks; k0 += batch) {
    const Index kn = std::min(batch, n_blocks - k0);
    if (cached && kn > 1 && threads > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (Index k = 0; k < kn; ++k) {
        if (intr.requested()) continue;
        try {
          block_sums(k0 + k, work[static_cast<std::size_t>(k)], sums[static_cast<std::size_t>(k)], 1);
        } catch (const std::exception& ex) {
#pragma omp critical(svmopt_reduced_pass_error)
          {
            failed = true;
            error = ex.what();
          }
        }
      }
      intr.check();
      if (failed) throw std::invalid_argument(error);
    } else {
      for (Index k = 0; k < kn; ++k) {
        intr.check();
        block_sums(k0 + k, work[static_cast<std::size_t>(k)], sums[static_cast<std::size_t>(k)], n_threads);
      }
    }
    for (Index k = 0; k < kn; ++k) {
      const Index g = b_group[static_cast<std::size_t>(k0 + k)];
      const BlockSums& s = sums[static_cast<std::size_t>(k)];
      out.a_groups.row(g).noalias() += s.a.transpose();
      out.b_groups(g) += s.b;
      out.e_groups(g) += s.e;
      out.n_c_groups(g) += s.n_c;
      out.hinge_groups(g) += s.hinge;
    }
  }
  out.a = out.a_groups.colwise().sum().transpose();
  out.b = out.b_groups.sum();
  out.e = out.e_groups.sum();
  out.n_c = out.n_c_groups.sum();
  out.hinge = out.hinge_groups.sum();
  return out;
}

NormalSums reduced_normal_pass(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z,
                               const KernelParams& params, const double* extra, const double* theta,
                               const MatrixView& B, const MatrixView& V, double* F_out, const MatrixView& Q,
                               int n_threads, Index block) {
  const bool cached = Phi.data != nullptr;
  const Index n = cached ? Phi.rows : X.rows;
  const Index L = cached ? Phi.cols : Z.rows;
  const Index p = L + 1 + (extra ? 1 : 0);
  if (!cached) {
    if (X.cols != Z.cols) throw std::invalid_argument("X and Z must have the same number of columns");
    validate(params);
    check_finite_rows(X, "X");
  }
  if (block < 1) throw std::invalid_argument("block must be >= 1");
  const bool with_B = B.data != nullptr, with_V = V.data != nullptr;
  if (with_B && B.rows != n) throw std::invalid_argument("B must have one row per data row (" + std::to_string(n) + ")");
  if (with_V && V.rows != p) throw std::invalid_argument("V must have p = " + std::to_string(p) + " rows");
  if (with_V && !F_out) throw std::invalid_argument("F_out is needed with V");
  const bool with_Q = Q.data != nullptr;
  if (with_Q && (Q.rows != n || Q.cols != 3)) throw std::invalid_argument("Q must be n x 3 (" + std::to_string(n) + " x 3)");
  if (with_Q && !(with_V && V.cols >= 1)) throw std::invalid_argument("Q needs V (its rows read F's first column)");
  const Index k = with_B ? B.cols : 0, k2 = with_V ? V.cols : 0;
  for (Index i = 0; i < n; ++i) {
    if (theta && !(theta[i] >= 0.0 && std::isfinite(theta[i]))) {
      throw std::invalid_argument("theta must be finite and >= 0");
    }
    if (extra && !std::isfinite(extra[i])) throw std::invalid_argument("extra must be finite");
    for (Index j = 0; j < k; ++j) {
      if (!std::isfinite(B(i, j))) throw std::invalid_argument("B must be finite");
    }
    if (with_Q && !(std::isfinite(Q(i, 0)) && std::isfinite(Q(i, 1)) && std::isfinite(Q(i, 2)))) {
      throw std::invalid_argument("Q must be finite");
    }
  }
  RowMatrix Vm(p, k2);
  for (Index i = 0; i < p; ++i)
    for (Index j = 0; j < k2; ++j) Vm(i, j) = V(i, j);
  if (!Vm.allFinite()) throw std::invalid_argument("V must be finite");

  NormalSums out;
  if (with_B) out.H = Eigen::MatrixXd::Zero(p, k);
  if (with_Q) out.Hq = Eigen::VectorXd::Zero(p);
  const int threads = resolve_threads(n_threads);
  const Index nb_max = std::min(block, std::max<Index>(n, 1));
  // With theta and B, H joins the dsyrk as k more columns b_i / sqrt(theta_i) beside sqrt(theta_i) u_i (their
  // cross block is U'B): one BLAS call instead of a second, single-threaded product (0.3 s a pass per 2 10^5 rows
  // at L = 500). Needs every theta_i > 0.
  bool fold = theta && with_B && blas::available() && p + k >= blas::kMinDim;
  for (Index i = 0; fold && i < n; ++i) fold = theta[i] > 0.0;
  const Index q = fold ? p + k : p;
  if (theta) out.G = Eigen::MatrixXd::Zero(q, q);
  // The kernel rows on one thread when the pass runs a dsyrk: an OpenMP team between two BLAS calls competes with
  // the BLAS's spinning threads (as in the fixed-size LS-SVM's pass, nystrom.cpp): at 2 10^5 x 20 rows, L = 500,
  // 2 threads, the pass took 2.0 s with a 2-thread kernel evaluation and 1.3 s with a 1-thread one.
  const int kernel_threads = theta && blas::available() ? 1 : threads;
  Vector bq(with_Q ? nb_max : 0);
  // The light passes (no theta: F = U V, and Hq, and H) over cached rows in place: u_i = (Phi_i, 1, extra_i) is
  // read as Phi's row and the two scalars, with no copy of the rows into a block (at 2,000 x 100 the copy was half
  // of such a pass).
  const bool in_place = !theta && cached && Phi.rows_contiguous();
  Interruption intr;  // between blocks
  if (in_place) {
    using RowsMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
    const Eigen::Map<const Vector> ex(extra ? extra : nullptr, extra ? n : 0);
    RowMatrix Bb(with_B ? nb_max : 0, k);
    for (Index r0 = 0; r0 < n; r0 += nb_max) {
      intr.check();
      const Index nb = std::min(nb_max, n - r0);
      const RowsMap Pb(Phi.data + r0 * Phi.row_stride, nb, L, Eigen::OuterStride<>(Phi.row_stride));
      if (with_V) {
        Eigen::Map<RowMatrix> Fb(F_out + r0 * k2, nb, k2);
        // Column by column (matrix-vector products): a product with k2 = 1-2 columns would have Eigen pack
        // the whole block of rows first.
        for (Index j = 0; j < k2; ++j) Fb.col(j).noalias() = Pb * Vm.col(j).head(L);
        Fb.rowwise() += Vm.row(L);
        if (extra) Fb.noalias() += ex.segment(r0, nb) * Vm.row(L + 1);
        if (with_Q) {
          for (Index i = 0; i < nb; ++i) {
            const double e = Q(r0 + i, 1) - Fb(i, 0);
            bq(i) = Q(r0 + i, 0) * e * (1.0 + Q(r0 + i, 2) * e);
          }
          const auto b = bq.head(nb);
          out.Hq.head(L).noalias() += Pb.transpose() * b;
          out.Hq(L) += b.sum();
          if (extra) out.Hq(L + 1) += ex.segment(r0, nb).dot(b);
        }
      }
      if (with_B) {
        for (Index i = 0; i < nb; ++i)
          for (Index j = 0; j < k; ++j) Bb(i, j) = B(r0 + i, j);
        const auto Bt = Bb.topRows(nb);
        out.H.topRows(L).noalias() += Pb.transpose() * Bt;
        out.H.row(L) += Bt.colwise().sum();
        if (extra) out.H.row(L + 1).noalias() += ex.segment(r0, nb).transpose() * Bt;
      }
    }
  }
  RowMatrix W(in_place ? 0 : nb_max, q), Bb(with_B && !fold && !in_place ? nb_max : 0, k);
  for (Index r0 = 0; !in_place && r0 < n; r0 += nb_max) {
    intr.check();
    const Index nb = std::min(nb_max, n - r0);
    // W = [kernel rows | 1 | extra (| B / sqrt(theta))] for rows r0 .. r0 + nb - 1.
    block_rows(Phi, X, Z, params, r0, nb, W.data(), q, kernel_threads);
    for (Index i = 0; i < nb; ++i) {
      W(i, L) = 1.0;
      if (extra) W(i, L + 1) = extra[r0 + i];
    }
    const auto Wb = W.topLeftCorner(nb, p);
    if (with_V) {
      Eigen::Map<RowMatrix> Fb(F_out + r0 * k2, nb, k2);
      Fb.noalias() = Wb * Vm;
      if (with_Q) {
        for (Index i = 0; i < nb; ++i) {
          const double e = Q(r0 + i, 1) - Fb(i, 0);
          bq(i) = Q(r0 + i, 0) * e * (1.0 + Q(r0 + i, 2) * e);
        }
        out.Hq.noalias() += Wb.transpose() * bq.head(nb);
      }
    }
    if (with_B && !fold) {
      for (Index i = 0; i < nb; ++i)
        for (Index j = 0; j < k; ++j) Bb(i, j) = B(r0 + i, j);
      out.H.noalias() += Wb.transpose() * Bb.topRows(nb);
    }
    if (theta) {
      for (Index i = 0; i < nb; ++i) {
        const double st = std::sqrt(theta[r0 + i]);
        W.row(i).head(p) *= st;
        for (Index j = 0; fold && j < k; ++j) W(i, p + j) = B(r0 + i, j) / st;
      }
      if (!(q >= blas::kMinDim && blas::syrk_lower_rowmajor(nb, q, W.data(), q, out.G.data(), q))) {
        out.G.selfadjointView<Eigen::Lower>().rankUpdate(W.topRows(nb).transpose());
      }
    }
  }
  if (fold) {
    out.H = out.G.bottomLeftCorner(k, p).transpose();
    out.G = out.G.topLeftCorner(p, p).eval();
  }
  if (theta) out.G.triangularView<Eigen::StrictlyUpper>() = out.G.transpose();
  // A NaN or infinity among the rows reaches every product that reads it (the inputs above are finite): checking
  // the results costs no second read of the rows.
  const char* bad = cached ? "Phi must be finite (no NaN or infinity) and its sums must not overflow float64"
                           : "the kernel rows must be finite and their sums must not overflow float64";
  if ((theta && !out.G.allFinite()) || (with_B && !out.H.allFinite()) || (with_Q && !out.Hq.allFinite())) {
    throw std::invalid_argument(bad);
  }
  if (with_V && !Eigen::Map<const Vector>(F_out, n * k2).allFinite()) throw std::invalid_argument(bad);
  return out;
}

}  // namespace svmopt
