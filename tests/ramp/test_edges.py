"""Edges of paper 001's estimators (L1SVC, FeatureBudgetSVC, RampLossSVC) and the shared cutting planes: the scale of
X and a fitted w = 0, magnitudes HiGHS cannot solve at, limits of ``solver_options`` inside the heuristics, a
``max_time`` spent in a start LP, the time left passed to every solve, and the input checks of the predict paths."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt._shared.highs import HighsModel
from svmopt.ramp import estimators, model, ramp_loss
from svmopt.ramp.cccp import LinearCuttingPlanes
from svmopt.ramp.limits import SolveLimits
from svmopt.ramp.model import RLFSLayout
from svmopt.ramp.solve import decode_solution


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0, 1, 0)


X, Y = _data(40, 4)
XD, YD = _data(30, 12, 1)  # DAKS: phase-2 passes with buckets (tests/ramp/test_progress.py)

ESTIMATORS = {
    "L1SVC-lp": lambda: L1SVC(solver="lp"),
    "L1SVC-cutting_plane": lambda: L1SVC(solver="cutting_plane"),
    "FeatureBudgetSVC-lp": lambda: FeatureBudgetSVC(budget=2, solver="lp", random_state=0),
    "FeatureBudgetSVC-cutting_plane": lambda: FeatureBudgetSVC(budget=2, solver="cutting_plane"),
    "RampLossSVC-exact": lambda: RampLossSVC(budget=2, method="exact", random_state=0),
    "RampLossSVC-heuristic": lambda: RampLossSVC(budget=2, method="heuristic", random_state=0),
    "RampLossSVC-cccp": lambda: RampLossSVC(budget=2, method="cccp", random_state=0),
}


# ------------------------------------------------------------------------------------------- the scale of X
@pytest.mark.parametrize("scale", [1e-20, 1e-300])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_tiny_x_gives_the_certified_zero_model_and_a_warning_naming_its_scale(name, scale):
    """With C fixed the model is not scale invariant: at X * 1e-20 the optimum is w = 0 (C times every column's sum
    of |x| is far below 1), and every estimator says so alike, naming X's magnitude and the remedy (before: only
    RampLossSVC warned, without the scale; CCCP failed at 1e-20 on a huge perturbed start)."""
    if name == "RampLossSVC-heuristic" and scale == 1e-300:
        pytest.skip("one scale is enough for the slowest method")
    est = ESTIMATORS[name]()
    digits = int(-np.log10(scale))
    with pytest.warns(UserWarning, match=rf"{name.split('-')[0]}: the fitted w is 0 .*largest magnitude is "
                                         rf"\d\.\d+e-{digits}, .*so w = 0 is the optimum.*StandardScaler"):
        est.fit(X * scale, Y)
    assert not est.coef_.any()
    minority = min(np.sum(Y == 0), np.sum(Y == 1))
    assert est.objective_ == pytest.approx(2.0 * minority)  # the best constant model's: 2 C |minority|
    assert est.predict(X * scale).shape == Y.shape


def test_zero_model_at_an_ordinary_scale_says_where_the_certificate_ends():
    with pytest.warns(UserWarning, match=r"L1SVC: the fitted w is 0 .*w = 0 is the optimum.*raise C \(above "):
        est = L1SVC(C=1e-3).fit(X, Y)
    assert not est.coef_.any()


def test_the_problem_on_scaled_x_is_the_same_only_with_c_scaled():
    """The docstrings' decision: on X s with C / s the optimum is w / s at objective / s (s a power of two)."""
    s = 2.0**-10
    a = L1SVC(C=1.0).fit(X, Y)
    b = L1SVC(C=1.0 / s).fit(X * s, Y)
    np.testing.assert_allclose(b.coef_ * s, a.coef_, rtol=1e-6, atol=1e-7)
    assert b.objective_ * s == pytest.approx(a.objective_, rel=1e-7)


def _no_work(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("work started")

    for name in ("solve_svm_l1_within", "solve_fs_svm", "LinearCuttingPlanes"):
        monkeypatch.setattr(estimators, name, boom)
    for name in ("algorithm1", "daks", "cccp"):
        monkeypatch.setattr(ramp_loss, name, boom)


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("case,match", [
    ("huge X", r"X has entries of magnitude up to \d\.\d+e\+20, at or above HiGHS's large_matrix_value .*Scaler"),
    ("huge weights", r"C=1 times max\(sample_weight\)=1e\+150 is 1e\+150: .*divide the weights by a common factor"),
    ("huge C", r"C=1e\+20 is every row's cost .*lower C"),
    ("columns HiGHS reads as 0", r"X column\(s\) \[0, 1, 2, 3\] have entries of magnitude at most .*below HiGHS's "
                                 r"small_matrix_value .*reaches .* > 1"),
])
def test_magnitudes_highs_cannot_solve_at_are_refused_before_work(name, case, match, monkeypatch):
    """Before: a SolverError ("Unknown", "Load error", "Model error") after work, or w = 0 from entries HiGHS
    dropped; now a ValueError naming the magnitude and the remedy, the same on every solver path."""
    _no_work(monkeypatch)
    est = ESTIMATORS[name]()
    Xc, sw = X, None
    if case == "huge X":
        Xc = X * 1e20
    elif case == "huge weights":
        sw = np.full(Y.size, 1e150)
    elif case == "huge C":
        est.set_params(C=1e20)
    else:  # every entry below 1e-9, while C times the columns' sums of |x| is about 1e4
        Xc, _ = X * 4e-10, est.set_params(C=1e12)
    with pytest.raises(ValueError, match=match):
        est.fit(Xc, Y, sample_weight=sw)
    assert not hasattr(est, "coef_")


def test_big_m_coefficients_too_large_are_refused_before_work(monkeypatch):
    _no_work(monkeypatch)
    with pytest.raises(ValueError, match=r"the big-M coefficients of \(13\) .* would reach .*large_matrix_value"):
        RampLossSVC(budget=2, method="exact").fit(X, Y, sample_weight=np.full(Y.size, 1e13))


def test_cutting_planes_refuse_cuts_highs_would_refuse():
    """The shared engine names the magnitude (before: HiGHS's addRows "Load error" as a SolverError)."""
    engine = LinearCuttingPlanes(X * 1e16, np.where(Y > 0, 1.0, -1.0))
    with pytest.raises(ValueError, match=r"a cut's coefficients .* large_matrix_value .*rescale"):
        engine.solve(1.0)


def test_a_budget_is_kept_whatever_the_integrality_tolerance_lets_through():
    """A MILP solution whose v_k is 0 (within HiGHS's integrality tolerance) carries no w_k: with a large u in
    (10)/(11), |w_k| <= u v_k can exceed W_TOL (FeatureBudgetSVC selected 5 features of a budget of 2 at weights
    1e10)."""
    L = RLFSLayout(n=3, m=2)
    x = np.zeros(L.n_cols)
    x[0], x[L.m + 1] = 0.5, 2e-6  # w = (0.5, -2e-6)
    x[L.v0] = 1.0  # v = (1, 1e-10): the second within the tolerance of 0
    x[L.v0 + 1] = 1e-10
    w, _, _ = decode_solution(x, L, np.arange(2), 2)
    np.testing.assert_array_equal(w, [0.5, 0.0])


# ------------------------------------------------------------------------------------------- limits
def test_solve_limits_file_each_stop_by_its_cause():
    log = SolveLimits(None, {"time_limit": 5.0})
    log.note("a", "Time limit reached", 10.0)  # the options' time_limit was the binding one
    log.note("b", "Time limit reached", 3.0)  # the stage's own cap (no deadline)
    log.note("c", "Interrupted by user")  # DAKS's t_fea / t_inc
    log.note("d", "Iteration limit reached", None)
    assert list(log.by_option) == ["a", "d"] and log.by_max_time == []
    past = SolveLimits(time.perf_counter() - 1.0)
    past.note("e", "Time limit reached", 0.5)
    past.note("e", "Time limit reached", 0.0)
    assert past.by_max_time == ["e"] and past.seconds() == 0.0 and past.seconds(own=3.0) == 0.0
    assert SolveLimits(None).seconds() is None and SolveLimits(None).seconds(own=2.0) == 2.0


@pytest.mark.parametrize("make,match,status", [
    (lambda: RampLossSVC(budget=2, method="heuristic", random_state=0, solver_options={"mip_max_nodes": 0}),
     r"RampLossSVC: a limit of solver_options stopped solves short in DAKS's .*\(HiGHS: ", "limit"),
    (lambda: RampLossSVC(budget=2, method="exact", random_state=0, solver_options={"mip_max_nodes": 0}),
     r"RampLossSVC: a limit of solver_options stopped solves short in the MILP \(HiGHS: ", "limit"),
    (lambda: RampLossSVC(budget=2, method="cccp", random_state=0, solver_options={"simplex_iteration_limit": 1}),
     r"RampLossSVC: a limit of solver_options stopped solves short in CCCP's convex steps .*Iteration limit", "limit"),
    (lambda: L1SVC(solver="cutting_plane", solver_options={"simplex_iteration_limit": 1}),
     r"L1SVC: a limit of solver_options stopped solves short in the cutting planes' master problems .*Iteration "
     r"limit", "limit"),
], ids=["heuristic", "exact", "cccp", "L1SVC-cutting_plane"])
def test_a_limit_of_solver_options_inside_any_method_is_warned_naming_the_stage(make, match, status):
    """Before: DAKS ended worse without a word, CCCP raised SolverError, L1SVC's cutting planes ignored the options;
    the exact MILP warned without naming the stage."""
    est = make()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*the fitted w is 0", category=UserWarning)
        with pytest.warns(ConvergenceWarning, match=match):
            est.fit(XD, YD)
    assert est.status_ == status and est.max_time_reached_ is False
    assert np.all(np.isfinite(est.decision_function(XD)))


# ------------------------------------------------------------------------------------------- max_time
def test_feature_budget_max_time_spent_in_the_start_lp_returns_the_start():
    """Before: SolverError "Time limit reached" from the start LP; now its usable point (HiGHS's iterate or the
    constant model, cut to the budget), the MILP not started, a ConvergenceWarning naming both stages."""
    Xb, yb = _data(3000, 10, 2)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*the fitted w is 0", category=UserWarning)
        with pytest.warns(ConvergenceWarning, match=r"cut short: the MILP \(not started: its start LPs used the time"
                                                    r".*\); the start LPs \(\(SVM-l1\)"):
            est = FeatureBudgetSVC(budget=2, max_time=1e-6).fit(Xb, yb)
    assert est.status_ == "time_limit" and est.max_time_reached_
    assert est.n_selected_features_ <= 2 and 0.0 <= est.lower_bound_ <= est.objective_
    assert np.isnan(est.mip_gap_) or 0.0 <= est.mip_gap_ <= 1.0
    assert est.predict(Xb).shape == yb.shape


@pytest.mark.parametrize("method", ["exact", "heuristic"])
def test_ramp_max_time_spent_in_the_initial_solution_names_the_stage(method):
    """Before: Algorithm 1's initial solution ran its three LPs without a time limit and the warning blamed the
    MILP; now the LPs stop at the deadline with their usable point."""
    Xb, yb = _data(3000, 10, 2)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*the fitted w is 0", category=UserWarning)
        with pytest.warns(ConvergenceWarning, match=r"cut short: .*Algorithm 1's initial solution \(its \(SVM-l1\) "
                                                    r"LPs"):
            est = RampLossSVC(budget=2, method=method, max_time=1e-6, random_state=0).fit(Xb, yb)
    assert est.status_ == "time_limit" and est.n_selected_features_ <= 2
    assert est.objective_ == pytest.approx(est.initial_objective_)


@pytest.mark.parametrize("make,data", [
    (lambda: RampLossSVC(budget=2, method="exact", max_time=30, random_state=0), _data(30, 4, 3)),
    (lambda: RampLossSVC(budget=2, method="heuristic", max_time=30, random_state=0), (XD, YD)),
    (lambda: FeatureBudgetSVC(budget=2, solver="lp", max_time=30, random_state=0), (X, Y)),
    (lambda: L1SVC(solver="lp", max_time=30), (X, Y)),
], ids=["exact", "heuristic", "FeatureBudgetSVC", "L1SVC"])
def test_every_highs_solve_gets_what_is_left_of_max_time(make, data, monkeypatch):
    """Each LP and MILP of a fit (Algorithm 1's initial LPs and bounding LPs, the MILP, DAKS's sub-problems, the
    polishing LPs, the start LPs) is given at most the seconds left to the fit's deadline (before: the initial
    solution's and the polishing LPs had none)."""
    solves: list[tuple[float, float | None]] = []

    class Recording(HighsModel):
        def solve(self, **kw):
            solves.append((time.perf_counter(), self.options.get("time_limit")))
            return super().solve(**kw)

    monkeypatch.setattr(model, "HighsModel", Recording)
    est = make()
    deadline = time.perf_counter() + est.max_time
    est.fit(*data)
    assert solves
    for t, limit in solves:  # the slack: a model is built (and given its limit) a few ms before it is solved
        assert limit is not None and limit <= deadline - t + 0.05, (limit, deadline - t)


# ------------------------------------------------------------------------------------------- predict paths
@pytest.mark.parametrize("name", ["L1SVC-lp", "FeatureBudgetSVC-lp", "RampLossSVC-cccp"])
def test_predict_paths_name_complex_and_date_columns(name):
    est = ESTIMATORS[name]()
    df = pd.DataFrame(X, columns=list("abcd"))
    est.fit(df, Y)
    with pytest.raises(ValueError, match="X is complex"):
        est.decision_function(X.astype(np.complex128))
    with pytest.raises(ValueError, match="X is complex"):
        est.predict(X + 0j)
    dated = df.assign(b=pd.date_range("2020-01-01", periods=len(df)))
    with pytest.raises(ValueError, match=r"X column 'b' has dtype datetime64"):
        est.predict(dated)


@pytest.mark.parametrize("make", [
    lambda o: L1SVC(solver="lp", solver_options=o), lambda o: L1SVC(solver="cutting_plane", solver_options=o),
    lambda o: RampLossSVC(method="exact", solver_options=o),
    lambda o: RampLossSVC(method="heuristic", solver_options=o), lambda o: RampLossSVC(method="cccp", solver_options=o),
    lambda o: FeatureBudgetSVC(budget=2, solver="lp", solver_options=o),
    lambda o: FeatureBudgetSVC(budget=2, solver="cutting_plane", solver_options=o),
], ids=["L1SVC-lp", "L1SVC-cutting_plane", "exact", "heuristic", "cccp", "FBSVC-lp", "FBSVC-cutting_plane"])
@pytest.mark.parametrize("options,match", [({"bogus": 1}, "not a HiGHS option"),
                                           ({"time_limit": -1.0}, "HiGHS refuses the value"),
                                           ({"mip_max_nodes": "x"}, "expected an integer")])
def test_solver_options_are_checked_on_every_path_before_work(make, options, match, monkeypatch):
    _no_work(monkeypatch)
    with pytest.raises(ValueError, match=rf"solver_options\[.*\]: {match}"):
        make(options).fit(X, Y)
