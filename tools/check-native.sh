#!/usr/bin/env bash
# Native-code checks of svmopt's C++ core (issue 6 §2), in build folders of their own so that the editable
# install of the checkout is neither used nor touched:
#
#   asan      build the core with ASan + UBSan (SVMOPT_SANITIZE="address;undefined") and run the core tests
#   valgrind  build the core without sanitizers (-O2 -g) and run the kernel and line-search tests under
#             valgrind memcheck; any error outside the suppressed CPython/numpy/OpenMP noise fails the run
#
# Usage: tools/check-native.sh [asan|valgrind|valgrind-quick|all]   (default: all; `make check-native` runs all)
# Environment: PYTHON (interpreter with numpy, pytest, hypothesis, scikit-build-core, pybind11 installed;
# default python3), SVMOPT_CHECK_DIR (work folder; default build/check-native), VALGRIND_TESTS (override the
# test files run under valgrind), ASAN_TESTS (override the ASan test files), SVMOPT_CHECK_INSTALLED=1 (run
# valgrind against the svmopt installed for PYTHON instead of building a -O2 -g copy).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=${SVMOPT_CHECK_DIR:-$root/build/check-native}
py=${PYTHON:-python3}
py=$("$py" -c 'import sys; print(sys.executable)')  # the real binary, not a shim script valgrind would trace
step=${1:-all}
mkdir -p "$work"

asan_tests=${ASAN_TESTS:-"tests/core/test_core_api.py tests/core/test_kernels.py tests/robust/test_line_search.py tests/ellipsoid/test_swarms.py
  tests/common/test_prototypes.py tests/fixed_size/test_nystrom.py tests/fixed_size/test_tuning.py tests/fixed_size/test_tuning_core.py tests/robust/test_reduced.py
  tests/core/test_robustness.py tests/core/test_threads.py"}
valgrind_tests=${VALGRIND_TESTS:-"tests/core/test_kernels.py tests/robust/test_line_search.py"}

# make_env NAME CMAKE_ARGS...: a virtual environment $work/NAME whose svmopt is a wheel built with the given
# -C options (baseline ISA only: one module, half the build time). The host's packages (numpy, pytest, ...)
# are reached through a plain path entry in a .pth file: the host's own .pth hooks (such as an editable
# svmopt) are not run from there, and the venv's regular svmopt package comes first on sys.path.
make_env() {
  local name=$1
  shift
  local venv=$work/$name
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv --without-pip "$venv"
  fi
  local vsite
  vsite=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  "$py" -c 'import sysconfig; p = sysconfig.get_paths(); print(p["purelib"]); print(p["platlib"])' \
    >"$vsite/_svmopt_host_site.pth"
  rm -rf "$work/$name-dist"
  echo "== building svmopt ($name) in $work/$name-build"
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} "$py" -m pip wheel -q --no-deps --no-build-isolation \
    -w "$work/$name-dist" -Cbuild-dir="$work/$name-build" -Ccmake.define.SVMOPT_AVX2=OFF "$@" .
  "$venv/bin/python" -m pip install -q --no-deps --ignore-installed --no-index "$work/$name-dist"/svmopt-*.whl
}

# where_is ENV [PRELOAD]: print which svmopt the environment imports (it must be the build under test).
where_is() {
  (cd "$work" && LD_PRELOAD="${2:-}" ASAN_OPTIONS=detect_leaks=0 "$work/$1/bin/python" -c \
    'import svmopt, svmopt._core as c; print("   svmopt from", svmopt.__file__, "isa", c.isa)')
}

run_asan() {
  make_env asan -Ccmake.build-type=RelWithDebInfo -Ccmake.define.SVMOPT_SANITIZE="address;undefined"
  local pre
  pre="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  where_is asan "$pre"
  echo "== ASan + UBSan: $asan_tests"
  # detect_leaks=0: CPython keeps allocations alive at exit; every other report aborts the run.
  # shellcheck disable=SC2086
  LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 SVMOPT_ISA=baseline \
    "$work/asan/bin/python" -m pytest -q -p no:cacheprovider $asan_tests
}

run_valgrind() {
  command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)"; exit 2; }
  local vpy=$work/memcheck/bin/python
  if [ "${SVMOPT_CHECK_INSTALLED:-0}" = "1" ]; then
    vpy=$py  # the svmopt already installed for $py (no debug info in a Release build: frames show as ???)
  else
    make_env memcheck -Ccmake.build-type=RelWithDebInfo
    where_is memcheck
  fi
  echo "== valgrind memcheck ($vpy): $valgrind_tests"
  # PYTHONMALLOC=malloc: every Python allocation goes through malloc, so memcheck sees it. The suppressions
  # cover only CPython/numpy/libgomp internals; none names an svmopt object (_core_*), so any error
  # reached from the core is reported. Leaks are not checked (interpreter-lifetime allocations).
  # shellcheck disable=SC2086
  local status=0
  PYTHONMALLOC=malloc SVMOPT_ISA=baseline OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
    valgrind --tool=memcheck --error-exitcode=1 --leak-check=no --num-callers=30 \
    --suppressions="$root/tools/valgrind-python.supp" --log-file="$work/valgrind.log" \
    "$vpy" -m pytest -q -p no:cacheprovider $valgrind_tests || status=$?
  grep -E "ERROR SUMMARY" "$work/valgrind.log" | tail -1
  return $status
}

# valgrind-quick: the kernel and line-search entry points called directly, with only numpy and the extension
# module imported (no pytest, scikit-learn or scipy): minutes under memcheck instead of the hour the test files
# take on a loaded machine. Every layout (C, F, strided, reversed), empty/one-row shapes, several tile sizes and
# thread counts, results compared with numpy (so an uninitialised output would be read and reported), and the
# bad-input paths (exceptions thrown from the core).
run_valgrind_quick() {
  command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)"; exit 2; }
  local vpy=$work/memcheck/bin/python
  if [ "${SVMOPT_CHECK_INSTALLED:-0}" = "1" ]; then vpy=$py; else make_env memcheck -Ccmake.build-type=RelWithDebInfo; fi
  local status=0
  PYTHONMALLOC=malloc OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
    valgrind --tool=memcheck --error-exitcode=1 --leak-check=no --num-callers=30 \
    --suppressions="$root/tools/valgrind-python.supp" --log-file="$work/valgrind-quick.log" \
    "$vpy" - <<'PYEOF' || status=$?
import glob, importlib.util, os, sysconfig
import numpy as np
so = sorted(glob.glob(os.path.join(sysconfig.get_paths()["platlib"], "svmopt", "_core_baseline*.so")))[0]
spec = importlib.util.spec_from_file_location("svmopt._core_baseline", so)
c = importlib.util.module_from_spec(spec)
spec.loader.exec_module(c)
print("core:", so)
rng = np.random.default_rng(0)
def ref(X, Z, kind):
    G = X @ Z.T
    if kind == "linear": return G
    if kind == "poly": return G ** 2
    if kind == "inhom_poly": return (0.5 + G) ** 3
    if kind == "sigmoid": return np.tanh(0.3 * G - 0.1)
    d2 = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2 * G
    return np.exp(-np.maximum(d2, 0) / (2 * 1.3 ** 2))
kinds = {"linear": {}, "poly": {"degree": 2}, "inhom_poly": {"degree": 3, "c": 0.5}, "rbf": {"alpha": 1.3},
         "sigmoid": {"a": 0.3, "b": -0.1}}
def layouts(A):
    yield A
    yield np.asfortranarray(A)
    W = np.repeat(A, 2, axis=1)
    yield W[:, ::2]
    yield A[::-1][::-1].copy()[::-1][::-1]
    yield np.flip(np.flip(A, 0).copy(), 0)
n_checks = 0
for n, d in ((0, 3), (1, 1), (7, 3), (70, 5), (300, 4)):
    X = rng.standard_normal((n, d))
    Z = rng.standard_normal((max(n // 2, 1), d))
    V = rng.standard_normal((Z.shape[0], 2))
    for kind, kw in kinds.items():
        p = c.kernels.KernelParams(getattr(c.kernels.KernelKind, kind), **kw)
        for Xl in layouts(X):
            for t, block in ((1, 256), (2, 16), (2, 5)):
                np.testing.assert_allclose(c.kernels.gram(Xl, p, n_threads=t, block=block), ref(X, X, kind),
                                           rtol=1e-9, atol=1e-9)
                np.testing.assert_allclose(c.kernels.cross(Xl, Z, p, n_threads=t, block=block), ref(X, Z, kind),
                                           rtol=1e-9, atol=1e-9)
                np.testing.assert_allclose(c.kernels.matvec(Xl, Z, V, p, n_threads=t, block=block),
                                           ref(X, Z, kind) @ V, rtol=1e-8, atol=1e-8)
                n_checks += 3
            np.testing.assert_allclose(c.kernels.diag(Xl, p), np.diag(ref(X, X, kind)), rtol=1e-9, atol=1e-9)
p = c.kernels.KernelParams(c.kernels.KernelKind.rbf, alpha=1.0)
bad = [lambda: c.kernels.gram(np.array([[np.nan, 0.0]]), p),
       lambda: c.kernels.cross(np.ones((2, 2)), np.ones((2, 3)), p),
       lambda: c.kernels.matvec(np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 1)), p),
       lambda: c.robust.line_search_exact(np.array([np.nan, 1.0]), np.ones(2), -1, 1),
       lambda: c.robust.line_search_grid(np.zeros(2), np.array([0.0, 1.0]), -1, 1, 10)]
for f in bad:
    try:
        f()
    except (ValueError, TypeError):
        n_checks += 1
    else:
        raise AssertionError("bad input accepted")
def count(s, y, b, obj):
    pos = y > 0
    err_a = (s < b) if obj == c.robust.Objective.paper else (s <= b)
    return int(np.sum(np.where(pos, err_a, s > b)))
for m in (0, 1, 2, 9, 200, 3000):
    for ties in (False, True):
        s = rng.standard_normal(m)
        if ties:
            s = np.round(s, 1)
        if m > 3:
            s[:2] = (np.inf, -np.inf)
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        for obj in (c.robust.Objective.paper, c.robust.Objective.decision):
            b, cnt = c.robust.line_search_exact(s, y, -2.0, 2.0, 0.0, obj)
            assert cnt == count(s, y, b, obj) == c.robust.line_search_count(s, y, b, obj)
            bg, cg = c.robust.line_search_grid(s, y, 2.0, -2.0, 500, 0.0, obj, n_threads=2)
            assert cg == count(s, y, bg, obj) and cg >= cnt
            bu, cu = c.robust.line_search_exact(s, y, -np.inf, np.inf, 0.0, obj)
            assert cu <= cnt
            n_checks += 3
print("checks passed:", n_checks)
PYEOF
  grep -E "ERROR SUMMARY" "$work/valgrind-quick.log" | tail -1
  return $status
}

case $step in
  asan) run_asan ;;
  valgrind) run_valgrind ;;
  valgrind-quick) run_valgrind_quick ;;
  all) run_asan && run_valgrind ;;
  *) echo "usage: $0 [asan|valgrind|valgrind-quick|all]" >&2; exit 2 ;;
esac
