// The svmopt core extension module (built once per instruction-set variant, see CMakeLists.txt):
// build information and the per-concern bindings.
#include <Eigen/Core>

#include "bindings.hpp"
#include "svmopt/blas.hpp"

namespace py = pybind11;

#ifndef SVMOPT_MODULE_NAME
#define SVMOPT_MODULE_NAME _core_baseline
#define SVMOPT_ISA "baseline"
#endif

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

PYBIND11_MODULE(SVMOPT_MODULE_NAME, m) {
  m.doc() = "svmopt's C++ core (Eigen + OpenMP). Entry points expect validated float64 arrays; use the "
            "Python API (svmopt.Kernel, the estimators) unless you need the raw routines.";
  m.attr("isa") = SVMOPT_ISA;
  m.def("cpu_supports_avx2_fma", &cpu_supports_avx2_fma, "Whether this CPU has AVX2 and FMA.");
  m.def("openmp_enabled", &svmopt::openmp_enabled, "Whether the core was compiled with OpenMP.");
  m.def("max_threads", &svmopt::max_threads, "Threads an OpenMP loop of the core uses when n_threads=0.");
  m.def("simd_instruction_sets", &Eigen::SimdInstructionSetsInUse, "SIMD instruction sets Eigen was compiled for.");
  m.attr("eigen_version") = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION);
  m.def(
      "_set_blas",
      [](const py::object& syrk, const py::object& gemm) {
        if (syrk.is_none() || gemm.is_none()) {
          svmopt::blas::set(nullptr, nullptr);
          return;
        }
        auto pointer = [](const py::object& o, const char* what, int n_int) {
          PyObject* c = o.ptr();
          if (!PyCapsule_CheckExact(c)) throw py::type_error(std::string(what) + " must be a PyCapsule");
          const char* name = PyCapsule_GetName(c);
          // Cython names the capsule by the C signature: accept the LP64 one ("int *" dimensions) only.
          const std::string sig = name ? name : "";
          int ints = 0;
          for (std::size_t i = sig.find("int *"); i != std::string::npos; i = sig.find("int *", i + 1)) ++ints;
          if (sig.rfind("void (char *, char *, int *", 0) != 0 || ints != n_int) {
            throw py::value_error(std::string(what) + ": not the LP64 Fortran signature of " + what + ": " + sig);
          }
          void* p = PyCapsule_GetPointer(c, name);
          if (!p) throw py::error_already_set();
          return p;
        };
        svmopt::blas::set(reinterpret_cast<svmopt::blas::dsyrk_t>(pointer(syrk, "dsyrk", 4)),
                          reinterpret_cast<svmopt::blas::dgemm_t>(pointer(gemm, "dgemm", 6)));
      },
      py::arg("syrk"), py::arg("gemm"),
      "Install Fortran dsyrk / dgemm (PyCapsules of scipy.linalg.cython_blas, LP64) for the fixed-size LS-SVM's\n"
      "feature and Gram products, or remove them (None): see svmopt._core.use_blas.");
  m.def("blas_available", &svmopt::blas::available,
        "Whether the core's fixed-size LS-SVM products run on the installed BLAS (else on Eigen).");
  svmopt::bind::bind_kernels(m);
  svmopt::bind::bind_robust(m);
  svmopt::bind::bind_fixed_size(m);
  svmopt::bind::bind_pso(m);
}
