"""Thread safety of the core (issue 6 §2): every entry point called concurrently from several Python threads gives
bit-identical results to a serial call.

The bindings release the GIL around their C++ loops, so these calls really overlap (and each may start its own
OpenMP team inside a Python thread). Shared state in the core -- a static buffer, a global RNG, a cached
plan -- would show up here as differing results or as a crash under the sanitizer build (``make check-native``).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from svmopt import _core

PAPER, DECISION = _core.robust.Objective.paper, _core.robust.Objective.decision
kernels, cutting_plane, robust = _core.kernels, _core.cutting_plane, _core.robust
prototypes, fixed_size, ellipsoid = _core.prototypes, _core.fixed_size, _core.ellipsoid

N_WORKERS = 4
REPEATS = 3

_rng = np.random.default_rng(0)
X = _rng.standard_normal((90, 5))
Zc = _rng.standard_normal((40, 5))
y = np.where(_rng.random(90) < 0.5, -1.0, 1.0)
KP = kernels.KernelParams(kernels.KernelKind.rbf, alpha=1.3)
KPOLY = kernels.KernelParams(kernels.KernelKind.inhom_poly, degree=3, c=1.0)
K = kernels.gram(X, KP)
S = K @ y
PV = X[:12]
P = np.linalg.cholesky(np.linalg.inv(kernels.gram(PV, KP) + 1e-8 * np.eye(12)))
FOLDS = (np.arange(90) % 3).astype(np.int32)


def _fold_accumulate(seed: int):
    acc = fixed_size.FoldAccumulator(PV, KP, P, n_folds=3, n_targets=1, n_threads=2)
    for lo in range(0, 90, 25):
        acc.add(X[lo:lo + 25], y[lo:lo + 25, None], FOLDS[lo:lo + 25])
    return acc.results()


W = _rng.uniform(0.2, 3.0, 90)


def _weighted_fold_accumulate(statistics: str):
    """Weighted sums (each row sqrt(w)-scaled into the update), kept rows, both statistics."""
    acc = fixed_size.FoldAccumulator(PV, KP, P, n_folds=3, n_targets=1, n_threads=2, chunk=20, keep_features=True,
                                     statistics=statistics)
    for lo in range(0, 90, 25):
        acc.add(X[lo:lo + 25], y[lo:lo + 25, None], FOLDS[lo:lo + 25], weights=W[lo:lo + 25])
    return [*acc.results(), *acc.totals(), acc.predict_kept(acc.fold_solve(5.0))]


def _weighted_cv_costs():
    cv = fixed_size.CVCost(X, y[:, None].copy(), FOLDS, 3, PV, KP, True, 0, fixed_size.CVTask.classification,
                           n_threads=2, weights=W)
    return [cv.cost(g, s) for g in (0.5, 20.0) for s in (1.0, 3.0)] + [cv.fit(2.0, 3.0)[1]]


def _kernel_statistics():
    acc = fixed_size.FoldAccumulator(PV, KP, P, n_folds=3, n_targets=1, n_threads=2, chunk=20, keep_features=True,
                                     statistics="kernel")
    acc.add(X, y[:, None].copy(), FOLDS)
    return [*acc.results(), *acc.totals(), acc.predict_kept(acc.fold_solve(5.0))]


def _project_statistics():
    acc = fixed_size.FoldAccumulator(PV, KP, P, n_folds=3, n_targets=1, statistics="kernel")
    acc.add(X, y[:, None].copy(), FOLDS)
    G, t, _, _ = acc.results(raw=True)
    return fixed_size.project_statistics(G, t, P)


def _predict_kept():
    acc = fixed_size.FoldAccumulator(PV, KP, P, n_folds=3, n_targets=1, n_threads=2, chunk=20, keep_features=True)
    acc.add(X, y[:, None].copy(), FOLDS)
    return acc.predict_kept(acc.fold_solve(5.0))


def _fast_cv():
    G, t, _, _ = _fold_accumulate(0)
    return fixed_size.fast_cv_solve(G, t, 10.0, True, n_threads=2)


def _fast_cv_holdout():
    F = np.hstack([fixed_size.nystrom_features(X, PV, KP, P), np.ones((90, 1))])
    return fixed_size.fast_cv_holdout(F, y[:, None].copy(), FOLDS, 3, F.T @ F, F.T @ y[:, None], 10.0, n_threads=2)


V_CUT = Zc[:, 0] / 4


def _cut_pass(**rows):
    """One pass of the reduced LP over the 90 rows of X (40 landmarks, block 16): the cut's sums and the scores."""
    scores = np.empty(90)
    c = cutting_plane.cut_pass(y, V_CUT, 0.2, float(np.abs(V_CUT).sum()), delta=np.full(90, 0.05),
                               scores_out=scores, n_threads=2, block=16, **rows)
    return c.a, c.b, c.e, c.n_c, c.hinge, scores


def _normal_pass(**rows):
    """One interior-point pass of the reduced LP over the 90 rows of X (block 16): G, H and F = U V."""
    p = (rows["Phi"].shape[1] if "Phi" in rows else rows["Z"].shape[0]) + 2
    n = (rows["Phi"] if "Phi" in rows else rows["X"]).shape[0]
    F = np.empty((n, 2))
    G, H = robust.reduced_normal_pass(extra=np.linspace(-0.1, 0.1, n), theta=np.linspace(0.5, 2.0, n),
                                      B=np.ones((n, 2)), V=np.linspace(-1.0, 1.0, 2 * p).reshape(p, 2), F_out=F,
                                      n_threads=2, block=16, **rows)
    return G, H, F


def _dense_lp():
    lp = robust.DenseLP(K[:40, :40], y[:40], np.full(40, 0.01))
    return [lp.solve(nu).x for nu in (0.01, 0.1, 1.0)]


XL = _rng.standard_normal((300, 20))  # large enough (n^2 d >= 2^20) for kernels.gram to start a thread team

PVW = np.ascontiguousarray(XL[:150, :])  # 150 prototypes: the BLAS gemm / syrk path (p >= 128) when installed
PW = np.linalg.cholesky(np.linalg.inv(kernels.gram(PVW, KP) + 1e-6 * np.eye(150)))


def _fold_accumulate_wide():
    acc = fixed_size.FoldAccumulator(PVW, KP, PW, n_folds=3, n_targets=1, n_threads=2)
    acc.add(XL, np.ones((300, 1)), (np.arange(300) % 3).astype(np.int32))
    return acc.results()


def _csa():
    return fixed_size.csa_minimize(lambda v: float(np.sum((v - 0.3) ** 2)), np.zeros((4, 2)), -np.ones(2),
                                   np.ones(2), max_evals=60, seed=11).x


def _sphere(v):
    return float(np.sum((v - 0.3) ** 2))


def _cv_cost():
    return fixed_size.CVCost(X, y[:, None].copy(), FOLDS, 3, PV, KP, True, 0, fixed_size.CVTask.classification,
                             n_threads=2)


def _cv_costs():
    cv = _cv_cost()
    return [cv.cost(g, s) for g in (0.5, 20.0) for s in (1.0, 3.0)] + [cv.fit(2.0, 3.0)[1]]


# "submodule.name[_variant]" -> zero-argument call; each is deterministic, so every concurrent call must equal the
# serial one.
CALLS = {
    "kernels.gram": lambda: kernels.gram(X, KP, n_threads=2, block=16),
    "kernels.gram_poly": lambda: kernels.gram(X, KPOLY, n_threads=2, block=7),
    "kernels.gram_team": lambda: kernels.gram(XL, KP, n_threads=2, block=64),
    "kernels.cross": lambda: kernels.cross(X, Zc, KP, n_threads=2, block=16),
    "kernels.diag": lambda: kernels.diag(X, KPOLY),
    "kernels.matvec": lambda: kernels.matvec(X, Zc, Zc[:, :2].copy(), KP, n_threads=2, block=8),
    "robust.lp_matrix": lambda: robust.lp_matrix(K, y, np.full(90, 0.05), n_threads=2),
    "robust.line_search_exact": lambda: robust.line_search_exact(S, y, S.min(), S.max(), 0.0, PAPER),
    "robust.line_search_grid": lambda: robust.line_search_grid(S, y, S.min(), S.max(), 2000, 0.0, DECISION,
                                                               n_threads=2),
    "robust.line_search_grid_naive": lambda: robust.line_search_grid_naive(S, y, S.min(), S.max(), 2000, 0.0, PAPER,
                                                                           n_threads=2),
    "robust.line_search_count": lambda: robust.line_search_count(S, y, 0.1, PAPER),
    "robust.DenseLP": _dense_lp,
    "cutting_plane.cut_pass": lambda: _cut_pass(X=X, Z=Zc, params=KP),
    "cutting_plane.cut_pass_kept": lambda: _cut_pass(Phi=K[:, :40]),
    "robust.reduced_normal_pass": lambda: _normal_pass(X=X, Z=Zc, params=KP),
    "robust.reduced_normal_pass_kept": lambda: _normal_pass(Phi=K[:, :40]),
    "robust.reduced_normal_pass_team": lambda: _normal_pass(X=XL, Z=PVW, params=KP),  # p >= 128: the BLAS syrk
    "prototypes.entropy_select": lambda: prototypes.entropy_select(X / 2.0, 10, seed=5).idx,
    "prototypes.entropy_select_stratified": lambda: prototypes.entropy_select(
        X / 2.0, 10, labels=(y > 0).astype(np.int64), seed=6).idx,
    "prototypes.entropy_log_offdiag": lambda: prototypes.entropy_log_offdiag(X, np.arange(0, 90, 2), n_threads=2),
    "prototypes.entropy_log_rowsum": lambda: prototypes.entropy_log_rowsum(X, np.arange(20), 40, 3),
    "prototypes.kde_psi": lambda: prototypes.kde_psi(np.sort(X[:, 0]), 0.7, 6, n_threads=2),
    "prototypes.kde_psi_with_derivative": lambda: prototypes.kde_psi_with_derivative(np.sort(X[:, 0]), 0.7,
                                                                                     n_threads=2),
    "fixed_size.nystrom_features": lambda: fixed_size.nystrom_features(X, PV, KP, P, n_threads=2, chunk=16),
    "fixed_size.FoldAccumulator": lambda: _fold_accumulate(0),
    "fixed_size.FoldAccumulator_team": _fold_accumulate_wide,
    "fixed_size.FoldAccumulator_kept": _predict_kept,
    "fixed_size.FoldAccumulator_kernel": _kernel_statistics,
    "fixed_size.FoldAccumulator_weighted": lambda: _weighted_fold_accumulate("features"),
    "fixed_size.FoldAccumulator_weighted_kernel": lambda: _weighted_fold_accumulate("kernel"),
    "fixed_size.project_statistics": _project_statistics,
    "fixed_size.kernel_statistics_preferred": lambda: fixed_size.kernel_statistics_preferred(P),
    "fixed_size.fast_cv_solve": _fast_cv,
    "fixed_size.fast_cv_holdout": _fast_cv_holdout,
    "fixed_size.ridge_solve": lambda: fixed_size.ridge_solve(K[:10, :10], S[:10, None], 3.0),
    "fixed_size.fold_predict": lambda: fixed_size.fold_predict(fixed_size.nystrom_features(X, PV, KP, P), FOLDS,
                                                               np.stack([np.eye(12, 2)] * 3), n_threads=2),
    "fixed_size.csa_minimize": _csa,
    "fixed_size.csa_acceptance": lambda: fixed_size.csa_acceptance(np.linspace(0, 1, 7), 0.5),
    "fixed_size.nystrom_projection": lambda: fixed_size.nystrom_projection(PV, KP, n_threads=2),
    "fixed_size.nelder_mead": lambda: fixed_size.nelder_mead(_sphere, np.zeros(2), -np.ones(2), np.ones(2),
                                                             max_evals=40).history,
    "fixed_size.csa_simplex": lambda: fixed_size.csa_simplex(_sphere, np.zeros((4, 2)), -np.ones(2), np.ones(2),
                                                             n_csa=30, n_simplex=20, seed=11).history,
    "fixed_size.CVCost": _cv_costs,
    "fixed_size.CVCost_weighted": _weighted_cv_costs,
    "fixed_size.tune_cv": lambda: fixed_size.tune_cv(_cv_cost(), np.zeros((3, 2)), -np.ones(2), np.full(2, 3.0), True,
                                                     True, 1.0, 1.0, n_csa=12, n_simplex=10, seed=4).history,
    "ellipsoid.two_swarm": lambda: ellipsoid.two_swarm(np.zeros(3), np.eye(3), np.full(3, 4.0), 2 * np.eye(3),
                                                       n_particles=8, max_iter=40, seed=9,
                                                       n_threads=2).distance_history,
    "ellipsoid.single_swarm": lambda: ellipsoid.single_swarm(np.zeros(3), np.eye(3), np.full(3, 4.0), n_particles=8,
                                                             max_iter=30, seed=3, n_threads=2).fitness_history,
    "ellipsoid.draws": lambda: ellipsoid.draws(1, 0, 5, 6, 3),
    # the deadline path (a limit the run does not reach: the result is the unlimited run's)
    "ellipsoid.two_swarm_kept": lambda: ellipsoid.two_swarm(np.zeros(3), np.eye(3), np.full(3, 4.0), 2 * np.eye(3),
                                                            n_particles=8, max_iter=40, seed=9, n_threads=2,
                                                            time_limit=600.0).distance_history,
}


def _flatten(result):
    """Comparable bytes of a result (arrays, tuples, dicts, scalars)."""
    if isinstance(result, dict):
        return tuple((k, _flatten(v)) for k, v in sorted(result.items()))
    if isinstance(result, (tuple, list)):
        return tuple(_flatten(v) for v in result)
    if isinstance(result, np.ndarray):
        return (result.shape, result.dtype.str, result.tobytes())
    return repr(result)


def test_every_computing_entry_point_is_exercised():
    """Every public routine of the computing submodules is in CALLS, but for the option enums, the parameter and
    result classes, and the scalar helpers (ellipsoid.uniform, ellipsoid.particle_step, fixed_size.csa_update_tac,
    fixed_size.holdout_cheaper); the blas submodule only configures."""
    skip = {"kernels.KernelKind", "kernels.KernelParams", "robust.Objective", "robust.DenseLPStatus",
            "robust.DenseLPResult", "prototypes.EntropySelectResult", "fixed_size.CSAResult",
            "fixed_size.csa_update_tac", "ellipsoid.RandScope", "ellipsoid.Sync", "ellipsoid.Boundary",
            "ellipsoid.Fitness", "ellipsoid.SwarmTrace", "ellipsoid.TwoSwarmResult", "ellipsoid.uniform",
            "ellipsoid.particle_step", "fixed_size.SearchResult", "fixed_size.CVTask", "fixed_size.holdout_cheaper",
            "cutting_plane.CutSums"}
    public = {f"{sub}.{n}" for sub in ("kernels", "cutting_plane", "robust", "prototypes", "fixed_size", "ellipsoid")
              for n in dir(getattr(_core, sub)) if not n.startswith("_")}
    assert skip <= public, skip - public
    base = {re.sub(r"(_(poly|stratified|team|kept|kernel|weighted))+$", "", c) for c in CALLS}
    assert public - skip <= base, (public - skip) - base
    assert base <= public, base - public


@pytest.mark.parametrize("name", list(CALLS))
def test_concurrent_calls_are_identical(name):
    call = CALLS[name]
    ref = _flatten(call())
    with ThreadPoolExecutor(max_workers=N_WORKERS) as pool:
        futures = [pool.submit(call) for _ in range(N_WORKERS * REPEATS)]
        results = [_flatten(f.result()) for f in futures]
    assert all(r == ref for r in results), f"{name}: a concurrent call differs from the serial one"


def test_mixed_entry_points_concurrently():
    """Different routines interleaved in one pool (different OpenMP teams alive at once)."""
    names = list(CALLS)
    refs = {n: _flatten(CALLS[n]()) for n in names}
    order = names * 2
    with ThreadPoolExecutor(max_workers=N_WORKERS) as pool:
        results = list(pool.map(lambda n: (n, _flatten(CALLS[n]())), order))
    bad = sorted({n for n, r in results if r != refs[n]})
    assert not bad, f"differing under mixed concurrency: {bad}"


def test_thread_count_does_not_change_results():
    """Same inputs, n_threads 1..4 (and 0 = all): identical bits (static schedules, fixed reduction order)."""
    for fn in (lambda t: kernels.gram(X, KP, n_threads=t, block=16),
               lambda t: kernels.matvec(X, Zc, Zc[:, :2].copy(), KP, n_threads=t, block=8),
               lambda t: robust.lp_matrix(K, y, np.full(90, 0.05), n_threads=t),
               lambda t: robust.line_search_grid(S, y, S.min(), S.max(), 2000, 0.0, PAPER, n_threads=t),
               lambda t: cutting_plane.cut_pass(y, V_CUT, 0.2, 1.0, X=X, Z=Zc, params=KP, n_threads=t, block=16).a,
               lambda t: robust.reduced_normal_pass(X=XL, Z=PVW, params=KP, theta=np.ones(300), n_threads=t,
                                                    block=16)[0],
               lambda t: fixed_size.nystrom_features(X, PV, KP, P, n_threads=t, chunk=16),
               lambda t: ellipsoid.two_swarm(np.zeros(3), np.eye(3), np.full(3, 4.0), 2 * np.eye(3), n_particles=8,
                                             max_iter=40, seed=9, n_threads=t).x):
        ref = _flatten(fn(1))
        for t in (2, 3, 4, 0):
            assert _flatten(fn(t)) == ref


def test_estimators_fit_concurrently():
    """Whole estimators fitted in parallel Python threads: each equals its serial fit."""
    import svmopt

    Xe = np.vstack([X[:, :3], X[:, :3] + 2.5])
    ye = np.repeat([0, 1], 90)
    makers = [
        lambda: svmopt.RobustSVC(kernel="rbf"),
        lambda: svmopt.EllipsoidPSOClassifier(max_iter=40, random_state=0),
        lambda: svmopt.FixedSizeLSSVC(n_prototypes=10, gamma=1.0, sigma2=2.0, random_state=0),
    ]
    refs = [_flatten(m().fit(Xe, ye).decision_function(Xe)) for m in makers]
    with ThreadPoolExecutor(max_workers=N_WORKERS) as pool:
        futs = [(i, pool.submit(lambda m=m: m().fit(Xe, ye).decision_function(Xe)))
                for _ in range(2) for i, m in enumerate(makers)]
        for i, f in futs:
            assert _flatten(f.result()) == refs[i]


def test_fold_solve_on_one_accumulator_from_many_threads():
    """fold_solve releases the GIL and caches the fold sums: concurrent calls on one accumulator (first ones racing
    to build the cache) give the serial answer."""
    XW = _rng.standard_normal((400, 150))  # p = 151 >= 128: the BLAS products
    yw = _rng.standard_normal((400, 1))
    folds = (np.arange(400) % 5).astype(np.int32)
    lin = kernels.KernelParams(kernels.KernelKind.linear)

    def make():
        acc = fixed_size.FoldAccumulator(np.zeros((0, 150)), lin, np.zeros((0, 0)), n_folds=5, n_features_linear=150,
                                         n_threads=2)
        acc.add(XW, yw, folds)
        return acc

    ref = _flatten(make().fold_solve(3.0))
    for _ in range(REPEATS):
        acc = make()
        with ThreadPoolExecutor(max_workers=N_WORKERS) as pool:
            results = [_flatten(f.result()) for f in [pool.submit(acc.fold_solve, 3.0) for _ in range(N_WORKERS)]]
        assert all(r == ref for r in results)
