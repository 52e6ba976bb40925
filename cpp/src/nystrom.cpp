#include "svmopt/nystrom.hpp"

#include "svmopt/fast_cv.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "svmopt/blas.hpp"

namespace svmopt {
namespace {

constexpr Index kPanel = 64;     // fixed panel width: results independent of the thread count
constexpr Index kRowSlab = 256;  // rows per thread task in the feature product
constexpr Index kLinearSub = 256;  // rows per dsyrk + X^T [Y, 1] pair on explicit linear features (cache-resident)

MatrixView sub_rows(const MatrixView& X, Index r0, Index nr) {
  MatrixView v = X;
  v.data = X.data + r0 * X.row_stride;
  v.rows = nr;
  return v;
}

RowMatrix to_matrix(const MatrixView& v) {
  RowMatrix M(v.rows, v.cols);
  for (Index i = 0; i < v.rows; ++i)
    for (Index j = 0; j < v.cols; ++j) M(i, j) = v(i, j);
  return M;
}

Index default_chunk(Index m, Index p) {
  const Index per_row = 8 * (m + 2 * p + 1);
  return std::clamp<Index>((Index{48} << 20) / std::max<Index>(per_row, 1), 256, 16384);
}

}  // namespace

// acc (d x (k + 1)) += X^T Y1 for X row-major ns x d (row stride), Y1 ns x (k + 1): one read of X's rows (four at a
// time, so that each column of acc is loaded and stored once per four rows), for rows still in cache from the dsyrk.
static void xt_y1(const double* X, Index stride, Index ns, Index d, const Eigen::MatrixXd& Y1, Eigen::MatrixXd& acc) {
  using Vec = Eigen::Map<const Eigen::VectorXd>;
  Index i = 0;
  for (; i + 4 <= ns; i += 4) {
    const Vec x0(X + i * stride, d), x1(X + (i + 1) * stride, d), x2(X + (i + 2) * stride, d),
        x3(X + (i + 3) * stride, d);
    for (Index j = 0; j < Y1.cols(); ++j)
      acc.col(j) += Y1(i, j) * x0 + Y1(i + 1, j) * x1 + Y1(i + 2, j) * x2 + Y1(i + 3, j) * x3;
  }
  for (; i < ns; ++i) {
    const Vec x(X + i * stride, d);
    for (Index j = 0; j < Y1.cols(); ++j) acc.col(j) += Y1(i, j) * x;
  }
}

void syrk_lower_panels(const Eigen::Ref<const Eigen::MatrixXd>& F, Eigen::Ref<Eigen::MatrixXd> G, int n_threads) {
  const Index p = F.cols();
  if (F.rows() == 0 || p == 0) return;
  if (p >= blas::kMinDim && blas::syrk_lower_tn(F.rows(), p, F.data(), F.outerStride(), G.data(), G.outerStride())) {
    return;
  }
  const Index n_panels = (p + kPanel - 1) / kPanel;
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(n_threads)) if (F.rows() * p * p > (1 << 16))
  for (Index q = 0; q < n_panels; ++q) {
    const Index j0 = q * kPanel;
    const Index w = std::min(kPanel, p - j0);
    G.block(j0, j0, p - j0, w).noalias() += F.middleCols(j0, p - j0).transpose() * F.middleCols(j0, w);
  }
}

void nystrom_features(const MatrixView& X, const MatrixView& PV, const KernelParams& params, const MatrixView& P,
                      RowMatrixMap out, int n_threads, Index chunk) {
  if (X.cols != PV.cols) throw std::invalid_argument("X and PV must have the same number of columns");
  if (P.rows != PV.rows) throw std::invalid_argument("P must have one row per prototype");
  if (out.rows() != X.rows || out.cols() != P.cols) throw std::invalid_argument("out must be n x m'");
  check_finite_rows(X, "X");
  check_finite_rows(PV, "PV");
  const RowMatrix pv = to_matrix(PV), pm = to_matrix(P);
  const Index m = pv.rows();
  if (chunk <= 0) chunk = default_chunk(m, pm.cols());
  RowMatrix K;
  const int nt = resolve_threads(n_threads);
  for (Index r0 = 0; r0 < X.rows; r0 += chunk) {
    const Index nr = std::min(chunk, X.rows - r0);
    K.resize(nr, m);
    RowMatrixMap km(K.data(), nr, m);
    cross(sub_rows(X, r0, nr), view_of(pv), params, km, nt);
    if (pm.cols() >= blas::kMinDim &&
        blas::gemm_rowmajor(nr, m, pm.cols(), K.data(), pm.data(), out.data() + r0 * out.outerStride(),
                            out.outerStride())) {
      continue;
    }
    const Index n_slabs = (nr + kRowSlab - 1) / kRowSlab;
#pragma omp parallel for schedule(static) num_threads(nt) if (n_slabs > 1 && nt > 1)
    for (Index s = 0; s < n_slabs; ++s) {
      const Index a = s * kRowSlab, len = std::min(kRowSlab, nr - a);
      out.middleRows(r0 + a, len).noalias() = K.middleRows(a, len) * pm;
    }
  }
}

FoldAccumulator::FoldAccumulator(RowMatrix PV, KernelParams params, RowMatrix P, Index n_folds, Index n_targets,
                                 Index n_features_linear, int n_threads, Index chunk, bool keep_features)
    : pv_(std::move(PV)), params_(params), P_(std::move(P)), v_(n_folds), k_(n_targets), d_lin_(n_features_linear),
      threads_(n_threads), keep_(keep_features) {
  if (v_ < 1) throw std::invalid_argument("n_folds must be >= 1");
  if (k_ < 1) throw std::invalid_argument("n_targets must be >= 1");
  if (d_lin_ > 0) {
    p_ = d_lin_ + 1;
  } else {
    if (P_.rows() != pv_.rows()) throw std::invalid_argument("P must have one row per prototype");
    if (pv_.rows() < 1) throw std::invalid_argument("need at least one prototype (or explicit linear features)");
    validate(params_);
    p_ = P_.cols() + 1;
  }
  chunk_ = chunk > 0 ? chunk : default_chunk(pv_.rows(), p_);
  G_.assign(v_, Eigen::MatrixXd::Zero(p_, p_));
  t_.assign(v_, Eigen::MatrixXd::Zero(p_, k_));
  yy_.assign(v_, Eigen::VectorXd::Zero(k_));
  counts_.assign(v_, 0);
}

void FoldAccumulator::compute_features(const MatrixView& X, Index r0, Index nr, Eigen::MatrixXd& F) {
  F.resize(nr, p_);
  const int nt = resolve_threads(threads_);
  if (d_lin_ > 0) {
    if (X.cols != d_lin_) throw std::invalid_argument("X has the wrong number of columns");
    for (Index j0 = 0; j0 < d_lin_; j0 += 8) {  // 8 columns at a time: sequential reads of X's rows
      const Index w = std::min<Index>(8, d_lin_ - j0);
      for (Index i = 0; i < nr; ++i)
        for (Index j = 0; j < w; ++j) F(i, j0 + j) = X(r0 + i, j0 + j);
    }
  } else {
    if (X.cols != pv_.cols()) throw std::invalid_argument("X has the wrong number of columns");
    const Index m = pv_.rows();
    kbuf_.resize(nr, m);
    RowMatrixMap km(kbuf_.data(), nr, m);
    svmopt::cross(sub_rows(X, r0, nr), view_of(pv_), params_, km, nt);
    if (p_ - 1 >= blas::kMinDim &&
        blas::gemm_rowmajor_into_colmajor(nr, m, p_ - 1, kbuf_.data(), P_.data(), F.data(), F.outerStride())) {
      F.col(p_ - 1).setOnes();
      return;
    }
    const Index n_slabs = (nr + kRowSlab - 1) / kRowSlab;
#pragma omp parallel for schedule(static) num_threads(nt) if (n_slabs > 1 && nt > 1)
    for (Index s = 0; s < n_slabs; ++s) {
      const Index a = s * kRowSlab, len = std::min(kRowSlab, nr - a);
      F.block(a, 0, len, p_ - 1).noalias() = kbuf_.middleRows(a, len) * P_;
    }
  }
  F.col(p_ - 1).setOnes();
}

void FoldAccumulator::features(const MatrixView& X, double* out) {
  if (d_lin_ == 0) check_finite_rows(X, "X");
  Eigen::MatrixXd F;
  for (Index r0 = 0; r0 < X.rows; r0 += chunk_) {
    const Index nr = std::min(chunk_, X.rows - r0);
    compute_features(X, r0, nr, F);
    RowMatrixMap(out + r0 * p_, nr, p_) = F;
  }
}

void FoldAccumulator::add(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out) {
  if (Y.rows != X.rows || Y.cols != k_) throw std::invalid_argument("Y must be rows x n_targets");
  if (d_lin_ == 0) check_finite_rows(X, "X");
  if (folds) {
    for (Index i = 0; i < X.rows; ++i)
      if (folds[i] < 0 || folds[i] >= v_) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
  }
  invalidate_totals();
  if (folds && v_ > 1) {
    add_by_fold(X, Y, folds, features_out);
    n_rows_ += X.rows;
    return;
  }
  Eigen::MatrixXd F, Yc;
  for (Index r0 = 0; r0 < X.rows; r0 += chunk_) {
    const Index nr = std::min(chunk_, X.rows - r0);
    Yc.resize(nr, k_);
    if (d_lin_ >= blas::kMinDim && !features_out && !keep_ && X.col_stride == 1 && blas::available()) {
      // Explicit linear features, row-contiguous: the Gram's d x d block straight from X's rows (no copy into F),
      // then the bias row and t as X^T [Y, 1] (xt_y1) while those rows are still in cache, kLinearSub rows at a
      // time. As an Eigen product over large chunks (rows back from memory) this pass had cost a sizeable share of
      // the dsyrk; now the whole accumulation runs about as fast as numpy's P.T @ P (figures: docs/performance.md).
      Eigen::MatrixXd Y1(std::min(kLinearSub, nr), k_ + 1), XtY1(d_lin_, k_ + 1);
      XtY1.setZero();
      bool done = true;
      for (Index s0 = 0; s0 < nr; s0 += kLinearSub) {
        const Index ns = std::min(kLinearSub, nr - s0);
        const double* xs = X.data + (r0 + s0) * X.row_stride;
        if (!blas::syrk_lower_rowmajor(ns, d_lin_, xs, X.row_stride, G_[0].data(), G_[0].outerStride())) {
          // A stride beyond the BLAS's integers: nothing was added, the whole chunk goes to Eigen below. The BLAS
          // removed (use_blas from another thread) after part of the chunk was added cannot be repaired: raise.
          if (s0 > 0) throw std::runtime_error("the BLAS was removed during an accumulation (svmopt._core.use_blas)");
          done = false;
          break;
        }
        Y1.resize(ns, k_ + 1);
        for (Index j = 0; j < k_; ++j)
          for (Index i = 0; i < ns; ++i) Y1(i, j) = Y(r0 + s0 + i, j);
        Y1.col(k_).setOnes();
        xt_y1(xs, X.row_stride, ns, d_lin_, Y1, XtY1);
        t_[0].row(d_lin_) += Y1.leftCols(k_).colwise().sum();
        G_[0](d_lin_, d_lin_) += static_cast<double>(ns);
        yy_[0] += Y1.leftCols(k_).colwise().squaredNorm().transpose();
        counts_[0] += ns;
      }
      if (done) {
        t_[0].topRows(d_lin_) += XtY1.leftCols(k_);
        G_[0].row(d_lin_).head(d_lin_) += XtY1.col(k_).transpose();
        continue;
      }
    }
    compute_features(X, r0, nr, F);
    if (features_out) RowMatrixMap(features_out + r0 * p_, nr, p_) = F;
    for (Index j = 0; j < k_; ++j)
      for (Index i = 0; i < nr; ++i) Yc(i, j) = Y(r0 + i, j);
    syrk_lower_panels(F, G_[0], threads_);
    t_[0].noalias() += F.transpose() * Yc;
    yy_[0] += Yc.colwise().squaredNorm().transpose();
    counts_[0] += nr;
    if (keep_) {
      KeptChunk c;
      c.start = n_rows_ + r0;
      c.F = std::move(F);  // F is re-allocated by the next compute_features
      kept_.push_back(std::move(c));
    }
  }
  n_rows_ += X.rows;
}

void FoldAccumulator::add_by_fold(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds,
                                  double* features_out) {
  // Stable counting sort of the block's rows by fold, then each fold's rows in pieces of up to chunk rows: the
  // input rows (d columns) are gathered before the features are computed, so a fold is a contiguous row range of
  // F (gathering F itself, p columns with p >> d, had cost more than the products on the magic set). Sorting the
  // whole block, not each chunk, gives every dsyrk all of its fold's rows in the block: with many folds a chunk's
  // folds had few rows each, and the updates of G_u cost measurably more (docs/performance.md).
  const Index n = X.rows;
  std::vector<Index> start(v_ + 1, 0), order(n);
  for (Index i = 0; i < n; ++i) ++start[folds[i] + 1];
  for (Index u = 0; u < v_; ++u) start[u + 1] += start[u];
  {
    std::vector<Index> fill(start.begin(), start.end() - 1);
    for (Index i = 0; i < n; ++i) order[fill[folds[i]]++] = i;
  }
  Eigen::MatrixXd F, Yc;
  RowMatrix Xg;
  for (Index u = 0; u < v_; ++u) {
    for (Index a = start[u]; a < start[u + 1]; a += chunk_) {
      const Index nr = std::min(chunk_, start[u + 1] - a);
      const Index* rows = order.data() + a;
      Xg.resize(nr, X.cols);
      for (Index i = 0; i < nr; ++i) X.pack_rows(rows[i], 1, Xg.data() + i * X.cols);
      Yc.resize(nr, k_);
      for (Index j = 0; j < k_; ++j)
        for (Index i = 0; i < nr; ++i) Yc(i, j) = Y(rows[i], j);
      compute_features(view_of(Xg), 0, nr, F);
      if (features_out) {  // back to stream order; 8 columns at a time so that the reads of F stay sequential
        for (Index j0 = 0; j0 < p_; j0 += 8) {
          const Index w = std::min<Index>(8, p_ - j0);
          for (Index i = 0; i < nr; ++i) {
            double* dst = features_out + rows[i] * p_ + j0;
            for (Index j = 0; j < w; ++j) dst[j] = F(i, j0 + j);
          }
        }
      }
      syrk_lower_panels(F, G_[u], threads_);
      t_[u].noalias() += F.transpose() * Yc;
      yy_[u] += Yc.colwise().squaredNorm().transpose();
      counts_[u] += nr;
      if (keep_) {  // the fold-sorted chunk as it is (on magic at m = 50, the copy back to stream order had cost
                    // a quarter of the accumulation)
        KeptChunk c;
        c.fold = u;
        c.rows.resize(nr);
        for (Index i = 0; i < nr; ++i) c.rows[i] = n_rows_ + rows[i];
        c.F = std::move(F);
        kept_.push_back(std::move(c));
      }
    }
  }
}

void FoldAccumulator::kept_features(RowMatrixMap out) const {
  if (!keep_) throw std::invalid_argument("this accumulator does not keep its features (keep_features=False)");
  if (out.rows() != n_rows_ || out.cols() != p_) throw std::invalid_argument("out must be n_rows x dim");
  for (const KeptChunk& ch : kept_) {
    if (ch.rows.empty()) {
      out.middleRows(ch.start, ch.F.rows()) = ch.F;
    } else {
      for (Index i = 0; i < ch.F.rows(); ++i) out.row(ch.rows[i]) = ch.F.row(i);
    }
  }
}

void FoldAccumulator::predict_kept(const std::vector<Eigen::MatrixXd>& theta, RowMatrixMap out) const {
  if (!keep_) throw std::invalid_argument("this accumulator does not keep its features (keep_features=False)");
  if (static_cast<Index>(theta.size()) != v_) throw std::invalid_argument("theta must hold one model per fold");
  for (const auto& th : theta)
    if (th.rows() != p_ || th.cols() != k_) throw std::invalid_argument("theta must be dim x n_targets per fold");
  if (out.rows() != n_rows_ || out.cols() != k_) throw std::invalid_argument("out must be n_rows x n_targets");
  const Index nc = static_cast<Index>(kept_.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(threads_)) if (nc > 1 && n_rows_ * p_ > (1 << 18))
  for (Index c = 0; c < nc; ++c) {
    const KeptChunk& ch = kept_[c];
    const Eigen::MatrixXd f = ch.F * theta[ch.fold];
    if (ch.rows.empty()) {
      out.middleRows(ch.start, f.rows()) = f;
    } else {
      for (Index i = 0; i < f.rows(); ++i) out.row(ch.rows[i]) = f.row(i);
    }
  }
}

void FoldAccumulator::invalidate_totals() { totals_valid_ = false; }

void FoldAccumulator::update_totals() {
  const std::lock_guard<std::mutex> lock(totals_mutex_);
  if (totals_valid_) return;
  S_ = G_[0];
  c_ = t_[0];
  for (Index u = 1; u < v_; ++u) {
    S_.triangularView<Eigen::Lower>() += G_[u];
    c_ += t_[u];
  }
  totals_valid_ = true;
}

std::vector<Eigen::MatrixXd> FoldAccumulator::fold_solve(double gamma, bool regularize_bias) {
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  update_totals();
  return fold_ridge_solves(G_, t_, S_, c_, gamma, regularize_bias, threads_);
}

RowMatrix FoldAccumulator::gram(Index u) const {
  RowMatrix out = G_[u].triangularView<Eigen::Lower>();
  out.triangularView<Eigen::StrictlyUpper>() = G_[u].transpose().triangularView<Eigen::StrictlyUpper>();
  return out;
}

}  // namespace svmopt
