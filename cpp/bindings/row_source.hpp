// The rows of a reduced-LP pass, as the register_*.cpp files of the passes read them: Phi (n x L) given, or X, Z and
// params to compute K(X, Z) block by block.
#pragma once

#include <optional>

#include "bindings.hpp"
#include "svmopt/kernels.hpp"

namespace svmopt::bind {

struct RowSource {
  MatrixView Phi, X, Z;
  KernelParams params;
  Index n = 0;
};

inline RowSource row_source(const std::optional<DoubleArray>& Phi, const std::optional<DoubleArray>& X,
                            const std::optional<DoubleArray>& Z, const std::optional<KernelParams>& params) {
  RowSource src;
  if (Phi) {
    if (X || Z || params) throw py::value_error("give Phi, or X, Z and params, not both");
    src.Phi = view2d(*Phi, "Phi");
    src.n = src.Phi.rows;
  } else {
    if (!X || !Z || !params) throw py::value_error("give Phi, or X, Z and params");
    src.X = view2d(*X, "X");
    src.Z = view2d(*Z, "Z");
    src.params = *params;
    src.n = src.X.rows;
  }
  return src;
}

}  // namespace svmopt::bind
