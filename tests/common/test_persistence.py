"""Persistence, determinism and atomic fits of every public estimator (issue 6 §3).

* fitted models round-trip through pickle and joblib and predict identically;
* ``random_state`` gives identical models across runs, across ``OMP_NUM_THREADS`` (fresh interpreters) and across
  the estimators' own thread-count parameters;
* ``fit`` is atomic: a ``KeyboardInterrupt`` injected into a late internal step (the LP/MILP solve, the swarm,
  the prototype selection) leaves a fresh estimator unfitted and a fitted one exactly as it was.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import svmopt
import svmopt._shared.highs
import svmopt.ellipsoid.estimator
import svmopt.fixed_size.selection
import svmopt.robust.estimator
import svmopt.robust.fit
from tests.core.test_robustness import ESTIMATOR_NAMES, REGRESSORS, estimator_data, make


def _fit(name, X=None, y=None, **params):
    if X is None:
        X, y = estimator_data(name)
    est = make(name).set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _outputs(est, X):
    out = {"predict": np.asarray(est.predict(X))}
    if hasattr(est, "decision_function"):
        out["decision_function"] = np.asarray(est.decision_function(X))
    return out


def _assert_same_outputs(a, b, X):
    oa, ob = _outputs(a, X), _outputs(b, X)
    assert oa.keys() == ob.keys()
    for k in oa:
        np.testing.assert_array_equal(oa[k], ob[k], err_msg=k)


def _learned(est) -> dict:
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


_TIMING = re.compile(r"time|timing")


def _comparable(v):
    """Learned state without wall-clock measurements (solve times, timings), which legitimately differ."""
    if isinstance(v, dict):
        return {k: _comparable(x) for k, x in v.items() if not _TIMING.search(str(k))}
    if isinstance(v, (list, tuple)):
        return [_comparable(x) for x in v]
    if isinstance(v, np.ndarray):
        return (v.shape, v.dtype.str, v.tobytes()) if v.dtype.kind != "O" else [_comparable(x) for x in v]
    return repr(v)


def _assert_same_learned(a, b):
    la, lb = _learned(a), _learned(b)
    assert la.keys() == lb.keys()
    for k, va in la.items():
        if _TIMING.search(k):
            continue
        assert _comparable(va) == _comparable(lb[k]), k


@pytest.fixture(params=ESTIMATOR_NAMES)
def name(request):
    return request.param


# ----------------------------------------------------------------------------------------------- round trips
def test_pickle_round_trip_predicts_identically(name):
    X, y = estimator_data(name)
    est = _fit(name, X, y)
    back = pickle.loads(pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is type(est)
    assert back.get_params() == est.get_params() or repr(back.get_params()) == repr(est.get_params())
    _assert_same_outputs(est, back, X)
    Xn, _ = estimator_data(name, seed=1)  # unseen points too
    _assert_same_outputs(est, back, Xn)


def test_joblib_round_trip_predicts_identically(name, tmp_path):
    X, y = estimator_data(name)
    est = _fit(name, X, y)
    path = tmp_path / "model.joblib"
    joblib.dump(est, path, compress=3)
    back = joblib.load(path)
    _assert_same_outputs(est, back, X)
    buf = io.BytesIO()
    joblib.dump(est, buf)
    buf.seek(0)
    _assert_same_outputs(est, joblib.load(buf), X)


def test_unfitted_estimator_pickles_and_stays_unfitted(name):
    back = pickle.loads(pickle.dumps(make(name)))
    with pytest.raises(NotFittedError):
        check_is_fitted(back)


def test_pickled_model_refits_identically(name):
    """A model loaded from a pickle is a full estimator: refitting it gives the same model as a fresh fit."""
    X, y = estimator_data(name)
    back = pickle.loads(pickle.dumps(_fit(name, X, y)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back.fit(X, y)
    _assert_same_outputs(back, _fit(name, X, y), X)


# ----------------------------------------------------------------------------------------------- determinism
def test_same_random_state_same_model(name):
    X, y = estimator_data(name)
    a, b = _fit(name, X, y), _fit(name, X, y)
    _assert_same_outputs(a, b, X)
    _assert_same_learned(a, b)


@pytest.mark.parametrize(("estimator", "param", "values"), [
    ("FixedSizeLSSVC", "n_jobs", [1, 2, 3]),
    ("FixedSizeLSSVR", "n_jobs", [1, 2, 3]),
])
def test_thread_count_parameter_does_not_change_the_model(estimator, param, values):
    X, y = estimator_data(estimator, n=120)
    fits = [_fit(estimator, X, y, **{param: v}) for v in values]
    for other in fits[1:]:
        _assert_same_outputs(fits[0], other, X)


_SEEDED = [n for n in ESTIMATOR_NAMES if "random_state" in make(n).get_params()]  # the others are deterministic


@pytest.mark.parametrize("seeded", _SEEDED)
def test_random_state_instance_is_honoured_not_shared(seeded):
    """A RandomState instance is consumed like an int seed; the same seed state gives the same model."""
    name = seeded
    X, y = estimator_data(name)
    a = _fit(name, X, y, random_state=np.random.RandomState(3))
    b = _fit(name, X, y, random_state=np.random.RandomState(3))
    _assert_same_outputs(a, b, X)


_OMP_SCRIPT = r"""
import json, sys, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
from tests.core.test_robustness import ESTIMATOR_NAMES, estimator_data, make
out = {}
for name in ESTIMATOR_NAMES:
    X, y = estimator_data(name, n=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(name).fit(X, y)
    vals = est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)
    out[name] = np.asarray(vals, dtype=np.float64).tobytes().hex()
print(json.dumps(out))
"""


@pytest.mark.parametrize("threads", [("1", "2")])
def test_identical_models_across_omp_num_threads(threads):
    """Fresh interpreters with different OMP_NUM_THREADS fit bit-identical models (the core's loops have static
    schedules and reductions in a fixed order)."""
    results = []
    for t in threads:
        env = dict(os.environ, OMP_NUM_THREADS=t)
        proc = subprocess.run([sys.executable, "-c", _OMP_SCRIPT, os.path.dirname(__file__)], env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert results[0].keys() == set(ESTIMATOR_NAMES)
    differing = [n for n in ESTIMATOR_NAMES if results[0][n] != results[1][n]]
    assert not differing, f"models differ between OMP_NUM_THREADS={threads[0]} and {threads[1]}: {differing}"


# ----------------------------------------------------------------------------------------------- atomic fit
class _Interrupt:
    """Replaces a callable; raises KeyboardInterrupt at call number ``at`` (counted, so the test cannot pass
    without reaching the interrupted step)."""

    def __init__(self, real, at: int = 1):
        self.real, self.at, self.calls = real, at, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls >= self.at:
            raise KeyboardInterrupt("injected by the test")
        return self.real(*args, **kwargs)


# A late internal step of every estimator's fit (after validation has already set attributes such as
# classes_ or n_features_in_).
_INTERRUPT_POINTS = {
    "RobustSVC": (svmopt.robust.fit, "_line_search"),  # after the LP, with either LP solver
    "RobustSVC-robust": (svmopt.robust.fit, "_line_search"),
    "FixedSizeLSSVC": (svmopt.fixed_size.selection, "select_prototypes"),
    "FixedSizeLSSVR": (svmopt.fixed_size.selection, "select_prototypes"),
    "EllipsoidPSOClassifier": (svmopt.ellipsoid.estimator, "pso_closest_points"),
    "RampLossSVC": (svmopt._shared.highs.HighsModel, "solve"),
    "L1SVC": (svmopt._shared.highs.HighsModel, "solve"),
    "FeatureBudgetSVC": (svmopt._shared.highs.HighsModel, "solve"),
}


def _interrupt(monkeypatch, name, at=1) -> _Interrupt:
    owner, attr = _INTERRUPT_POINTS[name]
    real = getattr(owner, attr)
    if isinstance(owner, type):  # a method: keep the binding of self
        hook = _Interrupt(real, at)

        def method(self, *a, **k):
            return hook(self, *a, **k)

        monkeypatch.setattr(owner, attr, method)
        return hook
    hook = _Interrupt(real, at)
    monkeypatch.setattr(owner, attr, hook)
    return hook


def test_every_estimator_has_an_interrupt_point():
    assert set(_INTERRUPT_POINTS) == set(ESTIMATOR_NAMES)


def test_interrupted_fit_leaves_fresh_estimator_unfitted(name, monkeypatch):
    X, y = estimator_data(name)
    est = make(name)
    before = repr(vars(est))
    hook = _interrupt(monkeypatch, name)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X, y)
    assert hook.calls >= 1
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert repr(vars(est)) == before, f"attributes left behind: {sorted(set(vars(est)) - set(vars(make(name))))}"
    with pytest.raises(NotFittedError):
        est.predict(X)


def test_interrupted_refit_keeps_previous_model(name, monkeypatch):
    X, y = estimator_data(name)
    est = _fit(name, X, y)
    ref = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(X, y)
    snapshot = dict(vars(est))
    # refit on different data (other labels, one feature less) and interrupt it half-way
    X2, y2 = estimator_data(name, n=30, d=2, seed=5)
    if name not in REGRESSORS:
        y2 = np.where(y2 == 1, 7, 3)
    hook = _interrupt(monkeypatch, name)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X2, y2)
    assert hook.calls >= 1
    assert vars(est).keys() == snapshot.keys()
    for k, v in snapshot.items():
        assert vars(est)[k] is v, f"attribute {k} was replaced by the interrupted fit"
    monkeypatch.undo()
    _assert_same_outputs(est, ref, X)
    assert est.n_features_in_ == X.shape[1]


def test_error_half_way_is_atomic_too(name, monkeypatch):
    """Not only interrupts: a solver failure raised late in fit leaves no half-fitted estimator either."""
    X, y = estimator_data(name)
    est = make(name)
    owner, attr = _INTERRUPT_POINTS[name]

    def fail(*a, **k):
        raise svmopt.SolverError("injected failure", "Solve error")

    monkeypatch.setattr(owner, attr, fail)
    with pytest.raises(svmopt.SolverError):
        est.fit(X, y)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
