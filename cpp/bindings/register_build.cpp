// Build information of the core variant: instruction set, Eigen, OpenMP.
#include <Eigen/Core>
#include <string>

#include "bindings.hpp"

#ifndef SVMOPT_ISA
#define SVMOPT_ISA "baseline"
#endif

namespace svmopt::bind {
namespace {
// Whether this CPU can run the AVX2+FMA variant (x86-64-v3 subset the variant is compiled for).
bool cpu_supports_avx2_fma() {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
}  // namespace

void register_build(py::module_& m) {
  m.attr("isa") = SVMOPT_ISA;
  m.attr("eigen_version") = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION);
  m.def("cpu_supports_avx2_fma", &cpu_supports_avx2_fma, "Whether this CPU has AVX2 and FMA.");
  m.def("openmp_enabled", &svmopt::openmp_enabled, "Whether the core was compiled with OpenMP.");
  m.def("max_threads", &svmopt::max_threads, "Threads an OpenMP loop of the core uses when n_threads=0.");
  m.def("simd_instruction_sets", &Eigen::SimdInstructionSetsInUse, "SIMD instruction sets Eigen was compiled for.");
}

}  // namespace svmopt::bind
