// The svmopt._core extension module: build information and the per-concern bindings.
#include <Eigen/Core>

#include "bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "svmopt's C++ core (Eigen + OpenMP). Entry points expect validated float64 arrays; use the "
            "Python API (svmopt.Kernel, the estimators) unless you need the raw routines.";
  m.def("openmp_enabled", &svmopt::openmp_enabled, "Whether the core was compiled with OpenMP.");
  m.def("max_threads", &svmopt::max_threads, "Threads an OpenMP loop of the core uses when n_threads=0.");
  m.def("simd_instruction_sets", &Eigen::SimdInstructionSetsInUse, "SIMD instruction sets Eigen was compiled for.");
  m.attr("eigen_version") = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION);
  svmopt::bind::bind_kernels(m);
}
