// The svmopt core extension module (built once per instruction-set variant, see CMakeLists.txt):
// build information and the per-concern bindings.
#include <Eigen/Core>
#include <cstdint>
#include <string>

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
      [](const py::object& syrk, const py::object& gemm, const py::object& potrf) {
        if (syrk.is_none() || gemm.is_none()) {
          svmopt::blas::set(nullptr, nullptr, nullptr, false);
          return;
        }
        // Cython names each capsule by the C signature: accept the LP64 Fortran one ("int *" dimensions) only.
        auto pointer = [](const py::object& o, const char* what, const char* prefix, int n_int) {
          PyObject* c = o.ptr();
          if (!PyCapsule_CheckExact(c)) throw py::type_error(std::string(what) + " must be a PyCapsule");
          const char* name = PyCapsule_GetName(c);
          const std::string sig = name ? name : "";
          int ints = 0;
          for (std::size_t i = sig.find("int *"); i != std::string::npos; i = sig.find("int *", i + 1)) ++ints;
          if (sig.rfind(prefix, 0) != 0 || ints != n_int) {
            throw py::value_error(std::string(what) + ": not the LP64 Fortran signature of " + what + ": " + sig);
          }
          void* p = PyCapsule_GetPointer(c, name);
          if (!p) throw py::error_already_set();
          return p;
        };
        void* s = pointer(syrk, "dsyrk", "void (char *, char *, int *", 4);
        void* g = pointer(gemm, "dgemm", "void (char *, char *, int *", 6);
        void* f = potrf.is_none() ? nullptr : pointer(potrf, "dpotrf", "void (char *, int *", 3);
        svmopt::blas::set(s, g, f, false);
      },
      py::arg("syrk"), py::arg("gemm"), py::arg("potrf") = py::none(),
      "Install Fortran dsyrk / dgemm / dpotrf (PyCapsules of scipy.linalg.cython_blas / cython_lapack, LP64) for\n"
      "the fixed-size LS-SVM's feature, Gram and Cholesky kernels, or remove them (None): see svmopt._core.use_blas.");
  m.def(
      "_set_blas_ilp64",
      [](std::uintptr_t syrk, std::uintptr_t gemm, std::uintptr_t potrf) {
        if (syrk == 0 || gemm == 0) throw py::value_error("syrk and gemm must be non-null addresses");
        svmopt::blas::set(reinterpret_cast<void*>(syrk), reinterpret_cast<void*>(gemm), reinterpret_cast<void*>(potrf),
                          true);
      },
      py::arg("syrk"), py::arg("gemm"), py::arg("potrf"),
      "Install the addresses of Fortran dsyrk / dgemm / dpotrf with 64-bit integer arguments (ILP64 OpenBLAS, e.g.\n"
      "NumPy's scipy_dsyrk_64_): the caller vouches for the signatures. See svmopt._core.use_blas.");
  m.def("blas_available", &svmopt::blas::available,
        "Whether the core's fixed-size LS-SVM products run on the installed BLAS (else on Eigen).");
  m.def("blas_interface", &svmopt::blas::interface,
        "The installed BLAS's integer interface: 'lp64', 'ilp64', or '' when none is installed.");
  m.def("lapack_potrf_available", &svmopt::blas::potrf_available,
        "Whether the ridge systems' Cholesky factorizations run on the installed LAPACK dpotrf (else on Eigen).");
  svmopt::bind::bind_kernels(m);
  svmopt::bind::bind_robust(m);
  svmopt::bind::bind_fixed_size(m);
  svmopt::bind::bind_pso(m);
}
