#include "svmopt/nystrom.hpp"

#include "svmopt/fast_cv.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
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
  Interruption intr;
  for (Index r0 = 0; r0 < X.rows; r0 += chunk) {
    intr.check();
    const Index nr = std::min(chunk, X.rows - r0);
    K.resize(nr, m);
    RowMatrixMap km(K.data(), nr, m);
    cross(sub_rows(X, r0, nr), view_of(pv), params, km, nt);
    if (pm.cols() >= blas::kMinDim &&
        blas::gemm_rowmajor_ld(nr, m, pm.cols(), K.data(), m, pm.data(), pm.cols(), out.data() + r0 * out.outerStride(),
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

RowMatrix symmetric_from_lower(const Eigen::Ref<const Eigen::MatrixXd>& L) {
  RowMatrix out = L.triangularView<Eigen::Lower>();
  out.triangularView<Eigen::StrictlyUpper>() = L.transpose().triangularView<Eigen::StrictlyUpper>();
  return out;
}

namespace {

// P~ = [[P, 0], [0, 1]] ((m + 1) x (m' + 1)), row-major.
RowMatrix extended_projection(const RowMatrix& P) {
  RowMatrix Pt = RowMatrix::Zero(P.rows() + 1, P.cols() + 1);
  Pt.topLeftCorner(P.rows(), P.cols()) = P;
  Pt(P.rows(), P.cols()) = 1.0;
  return Pt;
}

// G = P~^T S P~ for S symmetric (only its lower triangle is read), t = P~^T tk.
void project_one(const Eigen::Ref<const Eigen::MatrixXd>& Sl, const Eigen::Ref<const Eigen::MatrixXd>& tk,
                 const RowMatrix& Pt, const RowMatrix& PtT, Eigen::MatrixXd& G, Eigen::MatrixXd& t) {
  const Index q = Pt.rows(), p = Pt.cols();
  const RowMatrix S = symmetric_from_lower(Sl);
  RowMatrix SP(q, p), Gu(p, p);
  if (!(p >= blas::kMinDim && blas::gemm_rowmajor_ld(q, q, p, S.data(), q, Pt.data(), p, SP.data(), p) &&
        blas::gemm_rowmajor_ld(p, q, p, PtT.data(), q, SP.data(), p, Gu.data(), p))) {
    SP.noalias() = S * Pt;
    Gu.noalias() = PtT * SP;
  }
  G = Gu;  // symmetric up to rounding; the lower triangle is read
  t.noalias() = PtT * tk;
}

}  // namespace

bool kernel_statistics_preferred(const RowMatrix& P, Index n_targets) {
  const Index m = P.rows(), mp = P.cols();
  if (m == 0 || mp == 0) return false;
  const double ext = static_cast<double>(FoldAccumulator::kept_row_doubles(m, n_targets));
  if (ext * ext >= 2.0 * static_cast<double>(m) * static_cast<double>(mp) + static_cast<double>((mp + 1) * (mp + 1))) {
    return false;
  }
  const Eigen::VectorXd norms = P.colwise().squaredNorm().transpose();  // 1 / lambda_j for P = U' Lambda'^{-1/2}
  const double lo = norms.minCoeff(), hi = norms.maxCoeff();
  return lo > 0.0 && std::isfinite(hi) && hi <= kKernelStatsMaxCond * lo;
}

FoldAccumulator::FoldAccumulator(RowMatrix PV, KernelParams params, RowMatrix P, Index n_folds, Index n_targets,
                                 Index n_features_linear, int n_threads, Index chunk, bool keep_features,
                                 Statistics statistics)
    : pv_(std::move(PV)), params_(params), P_(std::move(P)), v_(n_folds), k_(n_targets), d_lin_(n_features_linear),
      threads_(n_threads), keep_(keep_features) {
  if (v_ < 1) throw std::invalid_argument("n_folds must be >= 1");
  if (k_ < 1) throw std::invalid_argument("n_targets must be >= 1");
  if (d_lin_ > 0) {
    p_ = d_lin_ + 1;
    if (statistics == Statistics::Kernel) {
      throw std::invalid_argument("kernel statistics need prototypes (not explicit linear features)");
    }
  } else {
    if (P_.rows() != pv_.rows()) throw std::invalid_argument("P must have one row per prototype");
    if (pv_.rows() < 1) throw std::invalid_argument("need at least one prototype (or explicit linear features)");
    validate(params_);
    p_ = P_.cols() + 1;
    kernel_ = statistics == Statistics::Kernel ||
              (statistics == Statistics::Auto && kernel_statistics_preferred(P_, k_));
  }
  Index q = p_;
  if (kernel_) {
    m_ = pv_.rows();
    ext_ = kept_row_doubles(m_, k_);
    q = ext_;
    Pt_ = extended_projection(P_);
    PtT_ = Pt_.transpose();
    check_finite_rows(view_of(pv_), "PV");  // the dgemm path below never reads PV through cross()
    pvt_ = pv_.transpose();
    pvnorm_ = pv_.rowwise().squaredNorm();
    Gp_.assign(v_, Eigen::MatrixXd());
    tp_.assign(v_, Eigen::MatrixXd());
  }
  chunk_ = chunk > 0 ? chunk : default_chunk(pv_.rows(), q);
  G_.assign(v_, Eigen::MatrixXd::Zero(q, q));
  t_.assign(v_, Eigen::MatrixXd::Zero(kernel_ ? 0 : p_, k_));
  yy_.assign(v_, Eigen::VectorXd::Zero(k_));
  counts_.assign(v_, 0);
}

void FoldAccumulator::add_kernel_block(const MatrixView& X, Index r0, Index nr, const MatrixView& Y,
                                       const Index* y_rows, Index u, double* features_out, const Index* out_rows,
                                       const double* sqrt_w) {
  if (X.cols != pv_.cols()) throw std::invalid_argument("X has the wrong number of columns");
  W_.resize(nr, ext_);
  const MatrixView Xb = sub_rows(X, r0, nr);
  const double* xp = Xb.data;
  Index ldx = Xb.row_stride;
  if (!Xb.rows_contiguous()) {
    xpack_.resize(nr, Xb.cols);
    Xb.pack_rows(0, nr, xpack_.data());
    xp = xpack_.data();
    ldx = Xb.cols;
  }
  // The inner products X PV^T by the BLAS (its threads), then the kernel map on this thread: an OpenMP team here,
  // between two BLAS calls, competed with the BLAS's spinning threads
  // (docs/performance.md#kernel-statistics-one-rank-k-update-per-row-block).
  if (pvt_.cols() >= 1 && blas::available() &&
      blas::gemm_rowmajor_ld(nr, Xb.cols, m_, xp, ldx, pvt_.data(), m_, W_.data(), ext_)) {
    kernel_map_inplace(params_, W_.data(), nr, m_, ext_, xp, Xb.cols, ldx, pvnorm_.data());
  } else {
    cross_into(Xb, view_of(pv_), params_, W_.data(), ext_, resolve_threads(threads_));
  }
  for (Index i = 0; i < nr; ++i) {
    const Index yi = y_rows ? y_rows[i] : r0 + i;
    W_(i, m_) = 1.0;
    for (Index j = 0; j < k_; ++j) W_(i, m_ + 1 + j) = Y(yi, j);
  }
  if (features_out) {  // from the rows themselves (before any weighting)
    const RowMatrix F = W_.leftCols(m_) * P_;  // (5): phi(x) = P^T k_m(x)
    for (Index i = 0; i < nr; ++i) {
      double* dst = features_out + (out_rows ? out_rows[i] : r0 + i) * p_;
      for (Index j = 0; j + 1 < p_; ++j) dst[j] = F(i, j);
      dst[p_ - 1] = 1.0;
    }
  }
  // Weighted: row i of [K(x, PV), 1, y] times sqrt(w_i), so that its Gram sums C^T W C, C^T W Y and y^T W y. In place
  // unless the block is kept (the kept rows stay unscaled: predict_kept's C (P~ theta) needs no weights).
  RowMatrix* Wu = &W_;
  if (sqrt_w) {
    if (keep_) {
      Ws_.resize(nr, ext_);
      for (Index i = 0; i < nr; ++i) Ws_.row(i) = sqrt_w[y_rows ? y_rows[i] : r0 + i] * W_.row(i);
      Wu = &Ws_;
    } else {
      for (Index i = 0; i < nr; ++i) W_.row(i) *= sqrt_w[y_rows ? y_rows[i] : r0 + i];
    }
  }
  auto Yc = Wu->rightCols(k_);
  yy_[u] += Yc.colwise().squaredNorm().transpose();
  counts_[u] += nr;
  if (!(ext_ >= blas::kMinDim && blas::syrk_lower_rowmajor(nr, ext_, Wu->data(), ext_, G_[u].data(), ext_))) {
    G_[u].selfadjointView<Eigen::Lower>().rankUpdate(Wu->transpose());
  }
  if (keep_) {
    KeptChunk c;
    c.fold = u;
    if (out_rows) {
      c.rows.resize(nr);
      for (Index i = 0; i < nr; ++i) c.rows[i] = n_rows_ + out_rows[i];
    } else {
      c.start = n_rows_ + r0;
    }
    c.W = std::move(W_);
    W_ = RowMatrix();
    kept_.push_back(std::move(c));
  }
}


std::pair<std::vector<Eigen::MatrixXd>, std::vector<Eigen::MatrixXd>> project_statistics(
    const std::vector<Eigen::MatrixXd>& Gk, const std::vector<Eigen::MatrixXd>& tk, const RowMatrix& P) {
  if (Gk.size() != tk.size()) throw std::invalid_argument("G and t must hold one entry per fold");
  const RowMatrix Pt = extended_projection(P), PtT = Pt.transpose();
  std::vector<Eigen::MatrixXd> G(Gk.size()), t(tk.size());
  for (std::size_t u = 0; u < Gk.size(); ++u) {
    if (Gk[u].rows() != Pt.rows() || Gk[u].cols() != Pt.rows() || tk[u].rows() != Pt.rows()) {
      throw std::invalid_argument("kernel statistics must be (m + 1) x (m + 1) and (m + 1) x k for P with m rows");
    }
    project_one(Gk[u], tk[u], Pt, PtT, G[u], t[u]);
  }
  return {std::move(G), std::move(t)};
}

void FoldAccumulator::require_complete() const {
  if (incomplete_) {
    throw std::logic_error("this FoldAccumulator's statistics are incomplete: an add stopped half-way (interrupted); "
                           "start a new accumulator");
  }
}

RowMatrix FoldAccumulator::kernel_gram(Index u) const {
  require_complete();
  if (!kernel_) throw std::invalid_argument("this accumulator holds feature statistics (kernel_statistics is False)");
  return symmetric_from_lower(G_[u].topLeftCorner(m_ + 1, m_ + 1));
}

Eigen::MatrixXd FoldAccumulator::kernel_cross(Index u) const {
  require_complete();
  if (!kernel_) throw std::invalid_argument("this accumulator holds feature statistics (kernel_statistics is False)");
  return G_[u].block(m_ + 1, 0, k_, m_ + 1).transpose();
}

std::pair<Eigen::MatrixXd, Eigen::MatrixXd> FoldAccumulator::totals() const {
  require_complete();
  Eigen::MatrixXd G, t;
  if (kernel_) {
    const Index q = m_ + 1;
    Eigen::MatrixXd S = G_[0];
    for (Index u = 1; u < v_; ++u) S.triangularView<Eigen::Lower>() += G_[u];
    project_one(S.topLeftCorner(q, q), S.block(q, 0, k_, q).transpose(), Pt_, PtT_, G, t);
  } else {
    G = G_[0];
    t = t_[0];
    for (Index u = 1; u < v_; ++u) {
      G.triangularView<Eigen::Lower>() += G_[u];
      t += t_[u];
    }
  }
  return {symmetric_from_lower(G), t};
}

void FoldAccumulator::ensure_transformed() const {
  if (!kernel_) return;
  const std::lock_guard<std::mutex> lock(phi_mutex_);
  if (phi_valid_) return;
  const Index q = m_ + 1;
  for (Index u = 0; u < v_; ++u) {
    // Phi_u^T Phi_u = P~^T (C_u^T C_u) P~, Phi_u^T Y_u = P~^T (C_u^T Y_u).
    project_one(G_[u].topLeftCorner(q, q), G_[u].block(q, 0, k_, q).transpose(), Pt_, PtT_, Gp_[u], tp_[u]);
  }
  phi_valid_ = true;
}

const std::vector<Eigen::MatrixXd>& FoldAccumulator::phi_G() const {
  if (!kernel_) return G_;
  ensure_transformed();
  return Gp_;
}

const std::vector<Eigen::MatrixXd>& FoldAccumulator::phi_t() const {
  if (!kernel_) return t_;
  ensure_transformed();
  return tp_;
}

const Eigen::MatrixXd& FoldAccumulator::cross(Index u) const {
  require_complete();
  return phi_t()[u];
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
  Interruption intr;
  for (Index r0 = 0; r0 < X.rows; r0 += chunk_) {
    intr.check();
    const Index nr = std::min(chunk_, X.rows - r0);
    compute_features(X, r0, nr, F);
    RowMatrixMap(out + r0 * p_, nr, p_) = F;
  }
}

void FoldAccumulator::add(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out,
                          const double* weights) {
  require_complete();
  if (X.cols != (d_lin_ > 0 ? d_lin_ : pv_.cols())) throw std::invalid_argument("X has the wrong number of columns");
  if (Y.rows != X.rows || Y.cols != k_) throw std::invalid_argument("Y must be rows x n_targets");
  if (d_lin_ == 0) check_finite_rows(X, "X");
  if (folds) {
    for (Index i = 0; i < X.rows; ++i)
      if (folds[i] < 0 || folds[i] >= v_) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
  }
  std::vector<double> sq;  // sqrt(w_i): the factor of row i in everything summed (weighted least squares)
  if (weights) {
    sq.resize(static_cast<std::size_t>(X.rows));
    for (Index i = 0; i < X.rows; ++i) {
      if (!(std::isfinite(weights[i]) && weights[i] > 0.0)) {
        std::ostringstream msg;
        msg << "weights must be finite and > 0; row " << i << " has " << weights[i];
        throw std::invalid_argument(msg.str());
      }
      sq[static_cast<std::size_t>(i)] = std::sqrt(weights[i]);
    }
  }
  const double* sqrt_w = weights ? sq.data() : nullptr;
  // The scaled copies of kept rows (Ws_, Fs_) are scratch of this call: released on every way out, so that an
  // accumulator held in a cache keeps no chunk-sized buffer beyond what the feature budget counts.
  struct ReleaseScratch {
    FoldAccumulator* acc;
    ~ReleaseScratch() {
      acc->Ws_ = RowMatrix();
      acc->Fs_.resize(0, 0);
    }
  } release{this};
  invalidate_totals();
  // From here on the statistics change chunk by chunk: an add that stops half-way (a Ctrl-C, a failing BLAS call)
  // leaves them incomplete, and the accumulator refuses any further use (require_complete).
  struct MarkIncomplete {
    FoldAccumulator* acc;
    int exceptions = std::uncaught_exceptions();
    ~MarkIncomplete() {
      if (std::uncaught_exceptions() > exceptions) acc->incomplete_ = true;
    }
  } mark{this};
  Interruption intr;
  if (folds && v_ > 1) {
    add_by_fold(X, Y, folds, features_out, sqrt_w, intr);
    n_rows_ += X.rows;
    return;
  }
  if (kernel_) {
    for (Index r0 = 0; r0 < X.rows; r0 += chunk_) {
      intr.check();
      add_kernel_block(X, r0, std::min(chunk_, X.rows - r0), Y, nullptr, 0, features_out, nullptr, sqrt_w);
    }
    n_rows_ += X.rows;
    return;
  }
  Eigen::MatrixXd F, Yc;
  for (Index r0 = 0; r0 < X.rows; r0 += chunk_) {
    intr.check();
    const Index nr = std::min(chunk_, X.rows - r0);
    Yc.resize(nr, k_);
    if (d_lin_ >= blas::kMinDim && !features_out && !keep_ && !sqrt_w && X.col_stride == 1 && blas::available()) {
      // Explicit linear features, row-contiguous: the Gram's d x d block straight from X's rows (no copy into F),
      // then the bias row and t as X^T [Y, 1] (xt_y1) while those rows are still in cache, kLinearSub rows at a
      // time. As an Eigen product over large chunks (rows back from memory) this pass had cost a sizeable share of
      // the dsyrk; now the whole accumulation runs about as fast as numpy's P.T @ P
      // (figures: docs/performance.md#fixed-size-design-figures).
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
    add_feature_piece(F, Yc, 0, sqrt_w, nullptr, r0);  // F is re-allocated by the next compute_features
  }
  n_rows_ += X.rows;
}

void FoldAccumulator::add_feature_piece(Eigen::MatrixXd& F, Eigen::MatrixXd& Yc, Index u, const double* sqrt_w,
                                        const Index* rows, Index r0) {
  const Index nr = F.rows();
  // Weighted: rows scaled by sqrt(w_i), so that the products below are Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u and
  // sum w y^2; F itself in place unless it is kept (the kept features stay those of the rows).
  const Eigen::MatrixXd* Fu = &F;
  if (sqrt_w) {
    Eigen::VectorXd s(nr);
    for (Index i = 0; i < nr; ++i) s(i) = sqrt_w[rows ? rows[i] : r0 + i];
    Yc.array().colwise() *= s.array();
    if (keep_) {
      Fs_ = F.array().colwise() * s.array();
      Fu = &Fs_;
    } else {
      F.array().colwise() *= s.array();
    }
  }
  syrk_lower_panels(*Fu, G_[u], threads_);
  t_[u].noalias() += Fu->transpose() * Yc;
  yy_[u] += Yc.colwise().squaredNorm().transpose();
  counts_[u] += nr;
  if (keep_) {
    KeptChunk c;
    c.fold = u;
    if (rows) {  // the fold-sorted chunk as it is (on magic at m = 50, the copy back to stream order had cost a
                 // quarter of the accumulation)
      c.rows.resize(nr);
      for (Index i = 0; i < nr; ++i) c.rows[i] = n_rows_ + rows[i];
    } else {
      c.start = n_rows_ + r0;
    }
    c.F = std::move(F);
    kept_.push_back(std::move(c));
  }
}

void FoldAccumulator::add_by_fold(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds,
                                  double* features_out, const double* sqrt_w, Interruption& intr) {
  // Stable counting sort of the block's rows by fold, then each fold's rows in pieces of up to chunk rows: the
  // input rows (d columns) are gathered before the features are computed, so a fold is a contiguous row range of
  // F (gathering F itself, p columns with p >> d, had cost more than the products on the magic set). Sorting the
  // whole block, not each chunk, gives every dsyrk all of its fold's rows in the block: with many folds a chunk's
  // folds had few rows each, and the updates of G_u cost measurably more
  // (docs/performance.md#fixed-size-design-figures).
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
      intr.check();
      const Index nr = std::min(chunk_, start[u + 1] - a);
      const Index* rows = order.data() + a;
      Xg.resize(nr, X.cols);
      for (Index i = 0; i < nr; ++i) X.pack_rows(rows[i], 1, Xg.data() + i * X.cols);
      if (kernel_) {
        add_kernel_block(view_of(Xg), 0, nr, Y, rows, u, features_out, rows, sqrt_w);
        continue;
      }
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
      add_feature_piece(F, Yc, u, sqrt_w, rows, 0);
    }
  }
}

void FoldAccumulator::kept_features(RowMatrixMap out) const {
  require_complete();
  if (!keep_) throw std::invalid_argument("this accumulator does not keep its features (keep_features=False)");
  if (out.rows() != n_rows_ || out.cols() != p_) throw std::invalid_argument("out must be n_rows x dim");
  Interruption intr;
  for (const KeptChunk& ch : kept_) {
    intr.check();
    const Eigen::MatrixXd F = kernel_ ? Eigen::MatrixXd(ch.W.leftCols(m_ + 1) * Pt_) : ch.F;
    if (ch.rows.empty()) {
      out.middleRows(ch.start, F.rows()) = F;
    } else {
      for (Index i = 0; i < F.rows(); ++i) out.row(ch.rows[i]) = F.row(i);
    }
  }
}

void FoldAccumulator::predict_kept(const std::vector<Eigen::MatrixXd>& theta, RowMatrixMap out) const {
  require_complete();
  if (!keep_) throw std::invalid_argument("this accumulator does not keep its features (keep_features=False)");
  if (static_cast<Index>(theta.size()) != v_) throw std::invalid_argument("theta must hold one model per fold");
  // Any number of columns: the k targets, or several models per fold (a gamma path, k columns each).
  const Index cols = theta.empty() ? 0 : theta[0].cols();
  for (const auto& th : theta)
    if (th.rows() != p_ || th.cols() != cols) throw std::invalid_argument("theta must be dim x c per fold, one c");
  if (out.rows() != n_rows_ || out.cols() != cols) throw std::invalid_argument("out must be n_rows x c");
  const Index nc = static_cast<Index>(kept_.size());
  std::vector<Eigen::MatrixXd> theta_k;  // kernel mode: P~ theta_u, the models on [K(x, PV), 1]
  if (kernel_) {
    for (const auto& th : theta) theta_k.push_back(Pt_ * th);
  }
  Interruption intr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(threads_)) if (nc > 1 && n_rows_ * p_ > (1 << 18))
  for (Index c = 0; c < nc; ++c) {
    if (intr.requested()) continue;
    const KeptChunk& ch = kept_[c];
    const Eigen::MatrixXd f =
        kernel_ ? Eigen::MatrixXd(ch.W.leftCols(m_ + 1) * theta_k[ch.fold]) : Eigen::MatrixXd(ch.F * theta[ch.fold]);
    if (ch.rows.empty()) {
      out.middleRows(ch.start, f.rows()) = f;
    } else {
      for (Index i = 0; i < f.rows(); ++i) out.row(ch.rows[i]) = f.row(i);
    }
  }
  intr.check();
}

void FoldAccumulator::invalidate_totals() {
  totals_valid_ = false;
  phi_valid_ = false;
}

void FoldAccumulator::update_totals() {
  const std::lock_guard<std::mutex> lock(totals_mutex_);
  if (totals_valid_) return;
  const auto& G = phi_G();
  const auto& t = phi_t();
  S_ = G[0];
  c_ = t[0];
  for (Index u = 1; u < v_; ++u) {
    S_.triangularView<Eigen::Lower>() += G[u];
    c_ += t[u];
  }
  totals_valid_ = true;
}

std::vector<Eigen::MatrixXd> FoldAccumulator::fold_solve(double gamma, bool regularize_bias) {
  require_complete();
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  update_totals();
  return fold_ridge_solves(phi_G(), phi_t(), S_, c_, gamma, regularize_bias, threads_);
}

RowMatrix FoldAccumulator::gram(Index u) const {
  require_complete();
  return symmetric_from_lower(phi_G()[u]);
}

}  // namespace svmopt
