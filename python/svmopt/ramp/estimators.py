"""The linear classifiers of paper 001 that share one plumbing: :class:`BinaryLinearClassifier` (label coding, row
and weight validation, decision function) and its two comparison models, :class:`L1SVC` ((SVM-l1), an LP) and
:class:`FeatureBudgetSVC` ((FS-SVM), a MILP), as scikit-learn classifiers; :class:`svmopt.ramp.ramp_loss.RampLossSVC`
builds on the same base.

Both take ``solver="cutting_plane"`` for a solver with one pass over the data per iteration
(:mod:`svmopt.ramp.cccp`): exact for (SVM-l1); for (FS-SVM) exact on the supports searched and certified by a MILP
master over the d feature indicators within the time limit. The conventions (``coef_`` of shape (1, d), the
positive class ``classes_[1]``, ``selected_features_`` = ``{k : |w_k| > 1e-7}``, sample weights as frequencies,
rows of weight 0 left out) are those of :mod:`svmopt.ramp.ramp_loss`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmopt._shared.config import warn
from svmopt._shared.dask import check_dask_array, is_dask_array, map_row_chunks
from svmopt._shared.highs import merge_options
from svmopt._shared.runtime import TimeBudget
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    POSITIVE,
    POSITIVE_INT,
    SECONDS,
    Interval,
    Real,
    StrOptions,
    check_dask_fit_weights,
    check_fit_weights,
    fit_context,
)
from svmopt.ramp.cccp import LinearCuttingPlanes, solve_fs
from svmopt.ramp.model import W_TOL, RLSolution, hinge_objective, solve_svm_l1_within
from svmopt.ramp.solve import solve_fs_svm

_SOLVERS = ("auto", "lp", "cutting_plane")

#: ``solver="auto"`` of L1SVC and FeatureBudgetSVC uses the cutting planes above this many rows (the direct LP/MILP
#: has a column and a row per training point).
AUTO_CUTTING_PLANE_ROWS = 20_000

#: The parameter constraints the three classifiers share: ``C`` (Prop. 2.1 needs C > 0), the MIP gap, the cutting
#: planes' tolerance, the feature budget.
C_CONSTRAINT = [POSITIVE]
MIP_GAP_CONSTRAINT = [Interval(Real, 0, 1, closed="left")]
TOL_CONSTRAINT = [Interval(Real, 0, None, closed="left")]
BUDGET_CONSTRAINT = [POSITIVE_INT, None]


def check_budget(budget: int | None, d: int) -> int:
    """``B``: the declared budget checked against the data (``budget <= n_features``), or ``d`` for None."""
    if budget is None:
        return d
    if budget > d:
        raise ValueError(f"budget must be in [1, n_features={d}] or None, got {budget}")
    return int(budget)


def seed_options(random_state: Any) -> dict:
    """HiGHS's ``random_seed`` option drawn from ``random_state`` (None -> 0: identical input, identical fit)."""
    if random_state is None:
        return {"random_seed": 0}
    return {"random_seed": int(check_random_state(random_state).randint(0, 2**31 - 1))}


def _pick_solver(solver: str, X: Any) -> str:
    if solver == "auto":
        return "cutting_plane" if is_dask_array(X) or X.shape[0] > AUTO_CUTTING_PLANE_ROWS else "lp"
    if solver == "lp" and is_dask_array(X):
        raise ValueError("solver='lp' passes the model to HiGHS with a row per training point in memory; for a Dask "
                         "array use solver='cutting_plane' (or 'auto')")
    return solver


def _cut_status(est: Any, sol: Any, tol: float, timed_out: bool = False, quiet_time_limit: bool = False) -> str:
    """"optimal" at a certified gap <= tol; else "max_iter" or "time_limit" with a ConvergenceWarning (not for
    "time_limit" with ``quiet_time_limit``: the fit's TimeBudget warns then)."""
    gap = float(sol.gap)
    if gap <= tol:
        return "optimal"
    status = "time_limit" if sol.timed_out or timed_out else "max_iter"
    if status == "time_limit" and quiet_time_limit:
        return status
    warn(f"{type(est).__name__}: the cutting planes stopped ({status}) at a certified relative gap of {gap:.2g} > "
         f"tol={tol:g}; the model is usable, its objective within that gap of the optimum", ConvergenceWarning)
    return status


class BinaryLinearClassifier(ClassifierMixin, BaseEstimator):
    """Shared binary linear-classifier plumbing: label coding, decision function, tags."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_rows(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, np.ndarray, np.ndarray | None]:
        """``(X, y coded -1/+1, sample weights)``: X checked, the weights (times ``class_weight``) by
        :func:`svmopt._shared.validation.check_fit_weights` (zero-weight rows left out; None when unweighted). A Dask
        ``X`` (which only the cutting planes read) is checked (2-D, known row chunks, finite) by its workers in one
        pass, ``y`` gathered; its weights must all be > 0."""
        class_weight = getattr(self, "class_weight", None)
        if not is_dask_array(X):
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
            y = column_or_1d(y, warn=True)
            self._n_given = int(y.shape[0])
            X, y, w, self._kept = check_fit_weights(X, y, sample_weight, class_weight, return_kept=True)
            return X, self._code_labels(y), w
        import dask.array as da

        X = check_dask_array(X).astype(np.float64)
        y = column_or_1d(np.asarray(y.compute() if is_dask_array(y) else y), warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        if X.shape[0] < 2:
            raise ValueError(f"Found array with {X.shape[0]} sample(s) (shape={X.shape}) while a minimum of 2 is "
                             "required.")
        if not bool(da.isfinite(X).all().compute()):
            raise ValueError("Input X contains NaN or infinity.")
        self.n_features_in_ = int(X.shape[1])
        self.__dict__.pop("feature_names_in_", None)
        self._kept = None
        self._n_given = int(y.shape[0])
        return X, self._code_labels(y), check_dask_fit_weights(y, sample_weight, class_weight)

    def _code_labels(self, y: np.ndarray) -> np.ndarray:
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.shape[0] != 2:
            raise ValueError(f"Only binary classification is supported. {type(self).__name__} needs exactly 2 "
                             f"classes in y, got {classes.shape[0]} class(es) {classes.tolist()[:5]}; use one-vs-rest "
                             "(sklearn.multiclass.OneVsRestClassifier) for more")
        self.classes_ = classes
        return np.where(y == classes[1], 1.0, -1.0)

    def _set_solution(self, X: Any, ys: np.ndarray, sol: RLSolution) -> None:
        self._set_wb(sol.w, sol.b)

    def _set_wb(self, w: np.ndarray, b: float) -> None:
        w = np.where(np.abs(w) > W_TOL, w, 0.0)
        self.coef_ = w.reshape(1, -1)
        self.intercept_ = np.array([float(b)])
        self.selected_features_ = np.flatnonzero(w)
        self.n_selected_features_ = int(self.selected_features_.size)

    def _cutting_plane_fit(self, X: Any, ys: np.ndarray, C: float, budget: int | None, *, tol: float,
                           max_iter: int, time_limit: float | None, weight: np.ndarray | None = None) -> Any:
        """(SVM-l1) / (FS-SVM) by cutting planes (:mod:`svmopt.ramp.cccp`): sets the solution, returns the cutting
        planes' result."""
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        engine = LinearCuttingPlanes(X, ys, budget=budget, weight=weight)
        certify = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))
        sol = solve_fs(engine, C, budget, tol=tol, max_iter=max_iter, deadline=deadline, certify_time=certify)
        w, b = engine.wb(sol)
        self._set_wb(w, b)
        self.n_iter_ = int(sol.n_iter)
        self.lower_bound_ = float(sol.lower_bound)
        return sol

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = w.x + b``; positive values mean ``classes_[1]`` (a Dask ``X`` chunk by chunk where it is)."""
        check_is_fitted(self)
        if is_dask_array(X):
            return map_row_chunks(self, "decision_function", X, 1)[:, 0]
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where ``f(x) >= 0`` (ties go to the positive class), else ``classes_[0]``."""
        f = self.decision_function(X)
        return self.classes_[(f >= 0).astype(np.intp)]


class L1SVC(BinaryLinearClassifier):
    """(SVM-l1): the l1-norm soft-margin linear SVM, an LP (eqs. (5), (8), (16), (17)).

    ``min ||w||_1 + C sum_i xi_i  s.t.  y_i (w.x_i + b) >= 1 - xi_i, xi >= 0``, solved by HiGHS in split form.

    Parameters
    ----------
    C : float, default 1.0
        Misclassification weight (> 0).
    solver_options : dict, optional
        HiGHS options (see :func:`svmopt._shared.highs.merge_options`).
    solver : {"auto", "lp", "cutting_plane"}, default "auto"
        "lp": the LP above passed to HiGHS (a row and a column per training point). "cutting_plane": exact cutting
        planes on the hinge sum, one pass over the data per iteration (:mod:`svmopt._shared.cutting_plane`): memory
        independent of n beyond ``X`` and a few n-vectors; ``X`` may be a float64 ``np.memmap`` or a Dask array.
        "auto": "lp" up to ``AUTO_CUTTING_PLANE_ROWS`` rows, else "cutting_plane" (and for a Dask array).
    tol : float, default 1e-6
        The cutting planes stop at this certified relative gap.
    max_iter : int, default 1000
        The cutting planes' limit on passes over the data (a ConvergenceWarning if the gap is still above tol).
    class_weight : dict {label: weight}, "balanced" or None, default None
        Multiplies the sample weights of each class's rows (``"balanced"``: ``W / (2 W_c)``).
    max_time : float or None, default None
        Seconds for the fit. The cutting planes stop at it with their iterate (usable, within the certified gap
        reported; a ConvergenceWarning, ``max_time_reached_``); the LP is given it as HiGHS's time limit, and at it
        the model is HiGHS's iterate (any (w, b) is feasible with xi the hinge) or, when that has the lower
        objective, the constant model w = 0, certified by HiGHS's row duals scaled to dual feasibility
        (``lower_bound_``, ``status_`` "time_limit", a ConvergenceWarning, ``max_time_reached_``); the same at a
        limit of ``solver_options`` (``status_`` "limit"). A HiGHS stopped before it has any point raises
        :class:`svmopt.SolverError`.

    Attributes
    ----------
    coef_ : ndarray (1, d)
        The weights ``w`` (entries with ``|w_k| <= 1e-7`` set to 0).
    intercept_ : ndarray (1,)
        The bias ``b``.
    selected_features_ : ndarray of int
        Indices with ``|w_k| > 1e-7``.
    n_selected_features_ : int
        Size of ``selected_features_``.
    objective_ : float
        LP objective recomputed as ``||w||_1 + C sum hinge``.
    status_ : str
        ``"optimal"``, ``"max_iter"`` (cutting planes stopped above ``tol``; warned), ``"time_limit"``
        (``max_time``) or ``"limit"`` (the LP stopped at a limit of ``solver_options``; warned).
    solver_ : str
        The solver used ("lp" or "cutting_plane").
    n_iter_ : int
        Passes over the data (cutting planes) or 1 (the LP).
    lower_bound_ : float
        A certified lower bound on the optimum (the LP's optimum for "lp" when solved).
    max_time_reached_ : bool
        Whether ``max_time`` stopped the cutting planes or the LP.
    classes_ : ndarray (2,)
        The two labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    FeatureBudgetSVC : The same LP with at most ``budget`` features (a MILP).
    RampLossSVC : The ramp-loss model with a feature budget and outlier detection.

    References
    ----------
    .. [1] M. Baldomero-Naranjo, L. I. Martinez-Merino and A. M. Rodriguez-Chia, "A robust SVM-based approach
       with feature selection and outliers detection for classification problems", arXiv:2403.07753.

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmopt import L1SVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = L1SVC(C=1.0).fit(X, y)
    >>> clf.coef_.shape
    (1, 30)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "C": C_CONSTRAINT, "solver_options": [Mapping, None], "solver": [StrOptions(set(_SOLVERS))],
        "tol": TOL_CONSTRAINT, "max_iter": [POSITIVE_INT], "class_weight": CLASS_WEIGHT, "max_time": [SECONDS, None],
    }

    def __init__(self, *, C: float = 1.0, solver_options: dict | None = None, solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 1000, class_weight: Any = None, max_time: float | None = None):
        self.C = C
        self.solver_options = solver_options
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.max_time = max_time

    @fit_context
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> L1SVC:
        """Fit (SVM-l1); ``sample_weight`` (times ``class_weight``) makes row i's hinge cost ``C w_i xi_i``."""
        C = float(self.C)
        merge_options(self.solver_options)
        budget = TimeBudget(self.max_time)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        Cw = C if sw is None else C * sw
        self.solver_ = _pick_solver(self.solver, X)
        if self.solver_ == "cutting_plane":
            sol = self._cutting_plane_fit(X, ys, C, None, tol=float(self.tol), max_iter=int(self.max_iter),
                                          time_limit=self.max_time, weight=sw)
            self.objective_ = float(sol.objective)
            self.status_ = _cut_status(self, sol, float(self.tol), quiet_time_limit=True)
            if self.status_ == "time_limit":
                budget.cut(f"the cutting planes (certified relative gap {float(sol.gap):.2g} > tol={self.tol:g})")
            budget.finish(self)
            return self
        w, b, lower, limit, point = solve_svm_l1_within(X, ys, Cw, options=self.solver_options,
                                                            time_limit=self.max_time)
        sol = RLSolution.from_wb(X, ys, w, b, Cw, ramp_loss=False)
        self._set_solution(X, ys, sol)
        self.objective_ = sol.objective
        self.n_iter_ = 1
        if limit is None:
            self.status_ = "optimal"
            self.lower_bound_ = sol.objective
        else:  # stopped at a limit: (w, b) with xi the hinge, certified by HiGHS's scaled row duals
            by_max_time = budget.max_time is not None and "time" in limit.lower()
            self.status_ = "time_limit" if by_max_time else "limit"
            self.lower_bound_ = min(lower, sol.objective)
            gap = max(0.0, (sol.objective - self.lower_bound_) / max(1.0, abs(sol.objective)))
            model = ("HiGHS's iterate" if point == "iterate"
                     else "the constant model (w = 0), whose objective is below HiGHS's iterate's")
            stage = f"the LP (HiGHS: {limit}; certified relative gap {gap:.2g}; the model is {model})"
            if by_max_time:
                budget.cut(stage)
            else:  # a limit of the user's solver_options
                warn(f"L1SVC: {stage}, its objective within that gap of the optimum.", ConvergenceWarning)
        budget.finish(self)
        return self


class FeatureBudgetSVC(BinaryLinearClassifier):
    """(FS-SVM) of Labbe, Martinez-Merino and Rodriguez-Chia (2019), a comparison model of paper 001:
    the l1-SVM with at most ``budget`` features, a MILP solved exactly by HiGHS.

    ``min ||w||_1 + C sum xi  s.t.  y_i (w.x_i + b) >= 1 - xi_i, xi >= 0, |w_k| <= UB v_k, sum v <= B``, with
    ``UB`` the objective of the top-B (SVM-l1) solution (valid since ``||w||_1 <= objective``), which is also the
    MIP start.

    Parameters
    ----------
    C : float, default 1.0
        Misclassification weight (> 0).
    budget : int or None, default None
        The largest number of features; None: no budget (the model equals (SVM-l1)).
    max_time : float or None, default None
        Seconds for the whole fit (the start LPs and the MILP; for the cutting planes the MILP certificate
        included); at the limit the incumbent is used with a ConvergenceWarning and ``max_time_reached_``. None: no
        limit (the MILP over many features may then take very long, with either solver).
    mip_gap : float, default 0.0
        HiGHS relative MIP gap tolerance (the paper used 0).
    random_state : int, RandomState or None
        Seeds HiGHS' ``random_seed`` (None -> 0).
    solver : {"auto", "lp", "cutting_plane"}, default "auto"
        "lp": the MILP above (a row and a column per training point). "cutting_plane": cutting planes on the hinge
        sum, one pass over the data per iteration (``X`` may be a float64 memmap or a Dask array): exact on each
        support searched, the support improved by swaps, then certified by the MILP master over the d feature
        indicators within ``max_time`` (:meth:`svmopt._shared.cutting_plane.HingeCuttingPlanes.solve`). "auto": "lp" up
        to ``AUTO_CUTTING_PLANE_ROWS`` rows, else "cutting_plane".
    tol : float, default 1e-6
        The cutting planes' certified relative gap.
    max_iter : int, default 1000
        The cutting planes' limit on passes over the data.
    class_weight : dict {label: weight}, "balanced" or None, default None
        Multiplies the sample weights of each class's rows (``"balanced"``: ``W / (2 W_c)``).

    Attributes
    ----------
    coef_ : ndarray (1, d)
        The weights ``w`` (entries with ``|w_k| <= 1e-7`` set to 0).
    intercept_ : ndarray (1,)
        The bias ``b``.
    selected_features_ : ndarray of int
        Indices with ``|w_k| > 1e-7`` (at most ``budget``).
    n_selected_features_ : int
        Size of ``selected_features_``.
    objective_ : float
        ``||w||_1 + C sum hinge`` on the training data.
    mip_gap_ : float
        HiGHS's relative MIP gap at the end (NaN when a limit stopped it before any MILP solution); for the
        cutting planes the certified relative gap (inf when the MILP master gave no bound in the time).
    status_ : str
        ``"optimal"``, ``"time_limit"``, ``"limit"`` or ``"max_iter"`` (all but the first warned).
    solver_ : str
        The solver used ("lp" or "cutting_plane").
    n_iter_ : int
        Passes over the data (cutting planes) or 1 (the MILP).
    lower_bound_ : float
        A certified lower bound on the optimum.
    max_time_reached_ : bool
        Whether ``max_time`` stopped the fit (``status_`` is then "time_limit").
    classes_ : ndarray (2,)
        The two labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    L1SVC : The same model without a budget (an LP).
    RampLossSVC : The ramp-loss model with a feature budget and outlier detection.

    References
    ----------
    .. [1] M. Baldomero-Naranjo, L. I. Martinez-Merino and A. M. Rodriguez-Chia, "A robust SVM-based approach
       with feature selection and outliers detection for classification problems", arXiv:2403.07753.
    .. [2] M. Labbe, L. I. Martinez-Merino and A. M. Rodriguez-Chia, "Mixed Integer Linear Programming for
       Feature Selection in Support Vector Machine", Discrete Applied Mathematics 261:276-304, 2019.

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmopt import FeatureBudgetSVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = FeatureBudgetSVC(C=1.0, budget=3, random_state=0).fit(X[:100], y[:100])
    >>> clf.n_selected_features_ <= 3
    True
    >>> clf.score(X[100:], y[100:]) > 0.9
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "C": C_CONSTRAINT, "budget": BUDGET_CONSTRAINT, "max_time": [SECONDS, None], "mip_gap": MIP_GAP_CONSTRAINT,
        "random_state": ["random_state"], "solver": [StrOptions(set(_SOLVERS))], "tol": TOL_CONSTRAINT,
        "max_iter": [POSITIVE_INT], "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, *, C: float = 1.0, budget: int | None = None, max_time: float | None = None,
                 mip_gap: float = 0.0, random_state: Any = None, solver: str = "auto", tol: float = 1e-6,
                 max_iter: int = 1000, class_weight: Any = None):
        self.C = C
        self.budget = budget
        self.max_time = max_time
        self.class_weight = class_weight
        self.mip_gap = mip_gap
        self.random_state = random_state
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    @fit_context
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> FeatureBudgetSVC:
        """Fit (FS-SVM); ``sample_weight`` (times ``class_weight``) makes row i's hinge cost ``C w_i xi_i``."""
        C = float(self.C)
        tl = None if self.max_time is None else float(self.max_time)
        budget = TimeBudget(tl)
        seed = seed_options(self.random_state)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        Cw = C if sw is None else C * sw
        B = check_budget(self.budget, X.shape[1])
        self.solver_ = _pick_solver(self.solver, X)
        if self.solver_ == "cutting_plane":
            t0 = time.perf_counter()
            sol = self._cutting_plane_fit(X, ys, C, B, tol=float(self.tol), max_iter=int(self.max_iter),
                                          time_limit=tl, weight=sw)
            self.objective_ = float(sol.objective)
            self.mip_gap_ = float(sol.gap)
            spent = tl is not None and time.perf_counter() - t0 >= tl
            self.status_ = _cut_status(self, sol, float(self.tol), spent, quiet_time_limit=True)
            if self.status_ == "time_limit":
                budget.cut(f"the cutting planes and their MILP certificate (certified relative gap "
                           f"{self.mip_gap_:.2g})")
            budget.finish(self)
            return self
        res, start = solve_fs_svm(X, ys, Cw, B, time_limit=tl, mip_gap=self.mip_gap, options=seed)
        if res is None:
            sol, status, gap = start, "time_limit", float("nan")
        else:
            sol, status, gap = res.solution, res.status, res.gap
        if status == "time_limit":
            budget.cut(f"the MILP (relative gap {gap:.3g}; the best solution found is used)")
        elif status == "limit":
            warn(f"FeatureBudgetSVC: a limit ({status}) stopped the MILP; using the best solution found "
                          f"(relative gap {gap:.3g})", ConvergenceWarning)
        self._set_solution(X, ys, sol)
        self.objective_ = hinge_objective(X, ys, self.coef_[0], self.intercept_[0], Cw)
        self.mip_gap_ = gap
        self.status_ = status
        self.n_iter_ = 1
        self.lower_bound_ = self.objective_ * (1.0 - gap) if np.isfinite(gap) else float("nan")
        budget.finish(self)
        return self
