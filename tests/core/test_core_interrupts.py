"""Ctrl-C in the core: every long routine that releases the GIL polls for a pending signal (about every 0.1 s, on
the thread that called it) and stops, and its binding raises the handler's KeyboardInterrupt.

Each routine is called directly on inputs that take several seconds, with a real SIGINT (os.kill, so that Python's
C-level handler runs) sent from a timer thread; the bound on the latency is generous for a loaded 2-core machine
(measured: 0.00-0.15 s).
"""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest
from sklearn.datasets import make_classification

from svmopt import _core
from tests.common.interrupting import interrupted

DELAY = 0.3  # seconds from the call to the SIGINT
BOUND = 2.5  # seconds from the SIGINT to the KeyboardInterrupt

K = _core.kernels
RBF = K.KernelParams(K.KernelKind.rbf, alpha=3.0)


def assert_interrupted(call, delay: float = DELAY) -> None:
    latency = interrupted(call, delay)
    assert latency < BOUND, f"KeyboardInterrupt {latency:.2f} s after the SIGINT"


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(0)


def test_gram(rng):
    X = rng.standard_normal((6000, 800))
    assert_interrupted(lambda: K.gram(X, RBF))


def test_cross_and_matvec(rng):
    X, Z = rng.standard_normal((20000, 400)), rng.standard_normal((2000, 400))
    assert_interrupted(lambda: K.cross(X, Z, RBF))
    X = rng.standard_normal((40000, 50))
    assert_interrupted(lambda: K.matvec(X, X, np.ones((X.shape[0], 1)), RBF))


def test_swarms():
    mu, P = np.zeros(30), np.eye(30)
    E = _core.ellipsoid
    assert_interrupted(lambda: E.two_swarm(mu, P, mu + 3.0, P, n_particles=200, max_iter=10**7))
    assert_interrupted(lambda: E.single_swarm(mu, P, mu + 3.0, n_particles=5000, max_iter=10**7))


def test_entropy_prototypes(rng):
    Z = rng.standard_normal((200000, 5))
    assert_interrupted(lambda: _core.prototypes.entropy_select(Z, 500, max_proposals=10**8, tol=-1.0))
    assert_interrupted(lambda: _core.prototypes.entropy_log_offdiag(Z, np.arange(40000)))
    x = np.sort(rng.standard_normal(2_000_000))
    assert_interrupted(lambda: _core.prototypes.kde_psi(x, 0.05, 4))


def test_robust_dense_lp_and_line_search(rng):
    X, y = make_classification(700, 10, n_informative=5, n_redundant=0, flip_y=0.1, random_state=0)
    lp = _core.robust.DenseLP(K.gram(X, K.KernelParams(K.KernelKind.rbf, alpha=1.0)), np.where(y == 1, 1.0, -1.0))
    assert_interrupted(lambda: lp.solve(1.0))
    s = rng.standard_normal(1_000_000)
    ys = np.where(rng.random(s.size) < 0.5, 1.0, -1.0)
    assert_interrupted(lambda: _core.robust.line_search_grid_naive(s, ys, -3.0, 3.0, n_grid=20000))


def test_reduced_passes(rng):
    n, L = 200000, 500
    X = rng.standard_normal((n, 10))
    Z = rng.standard_normal((L, 10))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    v = np.zeros(2 * L)
    assert_interrupted(lambda: _core.robust.reduced_normal_pass(X=X, Z=Z, params=RBF, theta=np.ones(n)))
    X = np.vstack([X, X, X])
    y = np.concatenate([y, y, y])
    assert_interrupted(lambda: _core.cutting_plane.cut_pass(y, v, 0.0, 0.0, X=X, Z=np.vstack([Z, Z]), params=RBF))


def test_fixed_size_passes(rng):
    F = _core.fixed_size
    X = rng.standard_normal((300000, 10))
    PV = X[:250].copy()  # below 256 prototypes Eigen's eigensolver: no threaded LAPACK call (uninterruptible)
    P, _ = F.nystrom_projection(PV, RBF)
    assert_interrupted(lambda: F.nystrom_features(X, PV, RBF, P))
    acc = F.FoldAccumulator(PV, RBF, P, n_folds=3)
    folds = (np.arange(X.shape[0]) % 3).astype(np.int32)
    assert_interrupted(lambda: acc.add(X, np.ones((X.shape[0], 1)), folds=folds))
    with pytest.raises(RuntimeError, match="incomplete"):  # the statistics of the add stopped half-way
        acc.results()


def test_fixed_size_cv_cost_and_tuning(rng):
    F = _core.fixed_size
    # one cost: 0.17 s on a fast machine, which returned before a SIGINT at 0.3 s; twenty of them (other sigma^2)
    # run well past it on any machine, and the latency stays that of one cost's steps (a larger n m^2 per cost made
    # its non-interruptible BLAS calls seconds long)
    n = 120000
    X = rng.standard_normal((n, 10))
    Y = np.where(X[:, :1] > 0, 1.0, -1.0)
    folds = (np.arange(n) % 5).astype(np.int32)

    def cost():
        return F.CVCost(X, Y, folds, 5, X[:250].copy(), RBF, True, 0, F.CVTask.classification)

    def costs():
        cv = cost()
        for s2 in np.linspace(12.0, 24.0, 20):
            cv.cost(1.0, float(s2))

    assert_interrupted(costs)
    cv = cost()
    assert_interrupted(lambda: F.tune_cv(cv, np.zeros((5, 2)), np.full(2, -5.0), np.full(2, 5.0), True, True, 1.0,
                                         1.0, n_csa=10**6, n_simplex=0), delay=1.0)


def test_a_handler_that_does_not_raise_lets_the_routine_finish(rng):
    """A SIGINT whose handler lets it pass stops nothing: the routine returns its whole result."""
    X = rng.standard_normal((5000, 50))
    calls = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        G = np.zeros((0, 0))
        while not calls:  # until the signal has come during a call
            G = K.gram(X, RBF)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    np.testing.assert_allclose(G[-200:], K.cross(X[-200:], X, RBF), rtol=1e-12, atol=1e-14)


def test_off_the_main_thread_nothing_is_polled(rng):
    """Python's signals reach the main thread only: the main thread's wait is interrupted, a routine another thread
    called runs to its end."""
    X = rng.standard_normal((5000, 400))  # a Gram of 10 GFLOP: past the SIGINT at 0.05 s on any machine
    out = {}
    finished = threading.Event()

    def work():
        try:
            out["G"] = K.gram(X, RBF)
        finally:
            finished.set()

    def wait():
        threading.Thread(target=work).start()
        while not finished.wait(0.05):
            pass

    assert_interrupted(wait, delay=0.05)
    finished.wait()
    np.testing.assert_allclose(out["G"][-200:], K.cross(X[-200:], X, RBF), rtol=1e-12, atol=1e-14)
