// LP assembly for paper 000's models (6) and (23); see robust.hpp.
#include "svmopt/robust.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "svmopt/strict_fp.hpp"

namespace svmopt {

void feature_norms(const MatrixView& K, double* r) {
  for (Index j = 0; j < K.rows; ++j) {
    const double kjj = K(j, j);
    r[j] = kjj > 0.0 ? std::sqrt(kjj) : 0.0;
  }
}

void robust_lp_matrix(const MatrixView& K, const double* y, const double* delta, std::int32_t* start,
                      std::int32_t* index, double* value, int n_threads) {
  const Index m = K.rows;
  if (K.cols != m) throw std::invalid_argument("robust_lp_matrix: K must be square");
  const Index nnz = robust_lp_nnz(m);
  if (nnz > static_cast<Index>(std::numeric_limits<std::int32_t>::max())) {
    throw std::invalid_argument("robust_lp_matrix: m = " + std::to_string(m) +
                                " gives more than 2^31 - 1 matrix entries, beyond HiGHS's 32-bit indices");
  }
  Interruption intr;  // between rows (columns) of K: m^2 values each pass
  for (Index i = 0; i < m; ++i) {
    intr.check();
    if (y[i] != 1.0 && y[i] != -1.0) throw std::invalid_argument("robust_lp_matrix: y must hold labels +1 or -1");
    if (delta && !(delta[i] >= 0.0 && std::isfinite(delta[i]))) {
      throw std::invalid_argument("robust_lp_matrix: delta must be finite and >= 0");
    }
    for (Index j = 0; j < m; ++j) {
      if (!std::isfinite(K(i, j))) throw std::invalid_argument("robust_lp_matrix: K must be finite");
    }
  }
  std::vector<double> r(static_cast<std::size_t>(m));
  feature_norms(K, r.data());
  const Index mm = m * m;
  const int threads = resolve_threads(n_threads);
  (void)threads;

  // u+ and u- blocks: column j holds rows 0..m-1. One pass over K, parallel over columns.
  // Small problems run serially: waking a thread team costs more than the whole pass below m ~ 500.
#pragma omp parallel for schedule(static) num_threads(threads) if (m >= 512)
  for (Index j = 0; j < m; ++j) {
    if (intr.requested()) continue;
    const double yj = y[j];
    const double rj = r[static_cast<std::size_t>(j)];
    double* vp = value + j * m;       // u+_j
    double* vm = value + mm + j * m;  // u-_j
    std::int32_t* ip = index + j * m;
    std::int32_t* im = index + mm + j * m;
    if (K.rows_contiguous()) {
      const double* krow = K.data + j * K.row_stride;  // row j == column j (symmetry)
      for (Index i = 0; i < m; ++i) {
        const double d = y[i] * yj * krow[i];
        const double rob = delta ? delta[i] * rj : 0.0;
        vp[i] = d - rob;
        vm[i] = -d - rob;
        ip[i] = static_cast<std::int32_t>(i);
        im[i] = static_cast<std::int32_t>(i);
      }
    } else {
      for (Index i = 0; i < m; ++i) {
        const double d = y[i] * yj * K(j, i);
        const double rob = delta ? delta[i] * rj : 0.0;
        vp[i] = d - rob;
        vm[i] = -d - rob;
        ip[i] = static_cast<std::int32_t>(i);
        im[i] = static_cast<std::int32_t>(i);
      }
    }
    start[j] = static_cast<std::int32_t>(j * m);
    start[m + j] = static_cast<std::int32_t>(mm + j * m);
  }
  intr.check();
  // gamma column: -y; xi columns: identity.
  const Index g0 = 2 * mm;
  start[2 * m] = static_cast<std::int32_t>(g0);
  for (Index i = 0; i < m; ++i) {
    value[g0 + i] = -y[i];
    index[g0 + i] = static_cast<std::int32_t>(i);
    const Index xi = g0 + m + i;
    start[2 * m + 1 + i] = static_cast<std::int32_t>(xi);
    value[xi] = 1.0;
    index[xi] = static_cast<std::int32_t>(i);
  }
  start[3 * m + 1] = static_cast<std::int32_t>(nnz);
}

}  // namespace svmopt
