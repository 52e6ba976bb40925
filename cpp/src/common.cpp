#include "svmopt/common.hpp"

#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace svmopt {

void MatrixView::pack_rows(Index r0, Index nr, double* dst) const {
  if (col_stride == 1) {
    for (Index i = 0; i < nr; ++i) {
      std::memcpy(dst + i * cols, data + (r0 + i) * row_stride, static_cast<std::size_t>(cols) * sizeof(double));
    }
    return;
  }
  for (Index i = 0; i < nr; ++i) {
    const double* src = data + (r0 + i) * row_stride;
    double* d = dst + i * cols;
    for (Index j = 0; j < cols; ++j) d[j] = src[j * col_stride];
  }
}

int resolve_threads(int n_threads) {
#ifdef _OPENMP
  return n_threads > 0 ? n_threads : omp_get_max_threads();
#else
  (void)n_threads;
  return 1;
#endif
}

bool openmp_enabled() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

int max_threads() { return resolve_threads(0); }

}  // namespace svmopt
