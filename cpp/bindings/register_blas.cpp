// The BLAS the fixed-size core runs on (cpp/include/svmopt/blas.hpp): installed by the Python layer, on first use.
#include <cstdint>
#include <string>

#include "bindings.hpp"
#include "svmopt/blas.hpp"

namespace svmopt::bind {
namespace {

// This variant's `blas` submodule, handed to the Python lookup (each variant has its own BLAS state). Never
// destroyed: it may be needed until the interpreter's last call into the core.
py::module_* g_blas_module = nullptr;

// Cython names each capsule by the C signature: accept the LP64 Fortran one ("int *" dimensions) only.
void* capsule_pointer(const py::object& o, const char* what, const char* prefix, int n_int) {
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
}

}  // namespace

void ensure_blas() {
  static bool asked = false;  // guarded by the GIL
  if (asked || blas::configured() || g_blas_module == nullptr) return;
  asked = true;
  py::module_::import("svmopt._core").attr("_first_use")(*g_blas_module);
}

void register_blas(py::module_& m) {
  g_blas_module = new py::module_(m);
  m.def(
      "set_lp64",
      [](const py::object& syrk, const py::object& gemm, const py::object& potrf, const py::object& syevd) {
        void* s = capsule_pointer(syrk, "dsyrk", "void (char *, char *, int *", 4);
        void* g = capsule_pointer(gemm, "dgemm", "void (char *, char *, int *", 6);
        void* f = potrf.is_none() ? nullptr : capsule_pointer(potrf, "dpotrf", "void (char *, int *", 3);
        void* e = syevd.is_none() ? nullptr : capsule_pointer(syevd, "dsyevd", "void (char *, char *, int *", 6);
        blas::set(s, g, f, e, false);
      },
      py::arg("syrk"), py::arg("gemm"), py::arg("potrf") = py::none(), py::arg("syevd") = py::none(),
      "Install Fortran dsyrk / dgemm / dpotrf / dsyevd given as the PyCapsules of scipy.linalg.cython_blas / "
      "cython_lapack (LP64; each capsule's signature is checked).");
  m.def(
      "set_ilp64",
      [](std::uintptr_t syrk, std::uintptr_t gemm, std::uintptr_t potrf, std::uintptr_t syevd) {
        if (syrk == 0 || gemm == 0) throw py::value_error("syrk and gemm must be non-null addresses");
        blas::set(reinterpret_cast<void*>(syrk), reinterpret_cast<void*>(gemm), reinterpret_cast<void*>(potrf),
                  reinterpret_cast<void*>(syevd), true);
      },
      py::arg("syrk"), py::arg("gemm"), py::arg("potrf"), py::arg("syevd") = 0,
      "Install the addresses of Fortran dsyrk / dgemm / dpotrf / dsyevd with 64-bit integer arguments (ILP64 "
      "OpenBLAS, e.g. NumPy's scipy_dsyrk_64_): the caller vouches for the signatures; 0 leaves one on Eigen.");
  m.def("clear", [] { blas::set(nullptr, nullptr, nullptr, nullptr, false); },
        "Run on Eigen's kernels (a choice: no BLAS is looked for on first use after this).");
  m.def("configured", &blas::configured, "Whether a choice was made (by set_*/clear, or on first use).");
  m.def("available", &blas::available, "Whether dsyrk and dgemm are installed.");
  m.def("potrf_available", &blas::potrf_available, "Whether dpotrf is installed.");
  m.def("syevd_available", &blas::syevd_available, "Whether dsyevd is installed.");
  m.def("interface", &blas::interface, "'lp64', 'ilp64', or '' when none is installed.");
}

}  // namespace svmopt::bind
