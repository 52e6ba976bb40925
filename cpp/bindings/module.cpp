// The svmopt core extension module (built once per instruction-set variant, see CMakeLists.txt). This file only
// creates the submodules; each concept registers itself in its own register_*.cpp, typed by
// python/svmopt/_core/<submodule>.pyi.
#include "bindings.hpp"

#include <pythread.h>

#ifndef SVMOPT_MODULE_NAME
#define SVMOPT_MODULE_NAME _core_baseline
#endif

namespace {

// Python's main thread, the one its signal handlers run on (threading.main_thread(), read at import).
unsigned long g_main_thread = 0;

bool on_main_thread() { return PyThread_get_thread_ident() == g_main_thread; }

// The core's interrupt hook (svmopt/common.hpp): with the GIL, run the pending signal handlers; one that raises
// (KeyboardInterrupt) is thrown as py::error_already_set, which reaches Python as that exception.
void handle_signals() {
  pybind11::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

}  // namespace

PYBIND11_MODULE(SVMOPT_MODULE_NAME, m) {
  namespace bind = svmopt::bind;
  m.doc() = "svmopt's C++ core (Eigen + OpenMP), one submodule per concept. Entry points expect validated arrays of "
            "the exact dtype; use the Python API (svmopt.Kernel, the estimators) unless you need the raw routines.";
  g_main_thread = pybind11::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  svmopt::InterruptHook hook;
  hook.receives_signals = &on_main_thread;
  hook.handle_signals = &handle_signals;
  svmopt::set_interrupt_hook(hook);
  bind::register_build(m);
  auto blas = m.def_submodule("blas", "The BLAS / LAPACK the fixed-size core's dense kernels run on.");
  bind::register_blas(blas);
  auto kernels = m.def_submodule("kernels", "Kernel matrices: Gram, cross, diagonal, matrix-vector products.");
  bind::register_kernels(kernels);
  auto cutting_plane = m.def_submodule(
      "cutting_plane", "The reduced LPs' cutting-plane pass (papers 000 and 001): aggregated cuts, hinge sums.");
  bind::register_cutting_plane(cutting_plane);
  auto robust = m.def_submodule("robust", "Paper 000: LP (23) / model (6), line searches, dense simplex.");
  bind::register_robust(robust);
  auto prototypes = m.def_submodule(
      "prototypes", "Renyi-entropy prototypes (paper 002, Algorithm 1) and their plug-in bandwidths' psi estimates.");
  bind::register_prototypes(prototypes);
  auto fixed_size = m.def_submodule("fixed_size", "Paper 002: Nystrom, fast CV, CSA.");
  bind::register_fixed_size(fixed_size);
  auto ellipsoid = m.def_submodule("ellipsoid", "Paper 003: coupled particle swarms.");
  bind::register_ellipsoid(ellipsoid);
}
