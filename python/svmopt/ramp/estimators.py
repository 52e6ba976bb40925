"""RampLossSVC: the ramp-loss l1-SVM with a feature budget of Baldomero-Naranjo, Martinez-Merino and
Rodriguez-Chia (paper 001), and the paper's comparison models, as scikit-learn classifiers.

Model (RL-FS-M) (eqs. (2), (3), (6), (7), (10)-(13), (15), (21), (22)), with ``w = wp - wm``::

    min  sum_k (wp_k + wm_k) + C (sum_i xi_i + 2 sum_i z_i)
    s.t. y_i (sum_k (wp_k - wm_k) x_ik + b) >= 1 - xi_i - M_i z_i       (13)
         xi_i <= 2 (1 - z_i),  0 <= xi_i <= 2                            (15), (2)
         wp_k <= u_k v_k,  wm_k <= l_k v_k,  wp_k + wm_k <= UB_w         (10), (11), (21)
         sum_k v_k <= B,  LB_b <= b <= UB_b,  z, v binary                 (6), (22), (3), (7)

For fixed ``(w, b)`` the best ``(xi, z)`` give Brooks' ramp loss, so the model is
``min ||w||_1 + C sum_i ramp(y_i f(x_i))`` with ``ramp(t) = min(2, max(0, 1 - t))`` over ``||w||_0 <= B``
(:func:`ramp_loss_objective` evaluates it for any ``(w, b)``). The big-Ms come from Algorithm 1 (Sec. 2): an
initial feasible solution from (SVM-l1), then the bounding LPs (UB-w), (LB-b)/(UB-b) and the M LPs, one per point
(Variant I) or per class (Variant II), all on one HiGHS model built once (see :mod:`svmopt.ramp`).

* ``method="exact"`` (Sec. 4.2): Algorithm 1, then the MILP with the initial solution as MIP start.
* ``method="heuristic"``: the Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3) with its three phases.
* ``method="cccp"`` (not in the paper): the same objective by the concave-convex procedure of Collobert, Sinz,
  Weston & Bottou (2006), each convex step by cutting planes with one pass over the data per iteration
  (:mod:`svmopt.ramp.cccp`): no binary per row, so it runs on millions of rows (numpy, float64 memmap or Dask). A
  local method: no lower bound, ``status_ = "local"``.
* ``method="auto"`` (default): ``"heuristic"`` up to ``AUTO_CCCP_ROWS`` rows, ``"cccp"`` above.

:class:`L1SVC` and :class:`FeatureBudgetSVC` take ``solver="cutting_plane"`` for the same pass-per-iteration
solver of their LP / MILP (exact for (SVM-l1); for (FS-SVM) exact on the supports searched and certified by a MILP
master over the d feature indicators within the time limit).

Decisions (where the paper is silent or inconsistent; each is tested in ``tests/ramp/test_estimators.py``):

* ``budget=None`` means ``B = d`` (no budget): that is (RL-l1-M), Brooks' ramp-loss l1-SVM.
* ``coef_`` has shape (1, d), ``intercept_`` shape (1,); the positive class is ``classes_[1]``; ``predict`` gives
  ``classes_[1]`` when ``f(x) >= 0`` (ties go to the positive class).
* ``selected_features_`` = ``{k : |w_k| > 1e-7}`` (absolute, on the data as given), not the raw ``v``: a
  ``v_k = 1`` with ``w_k = 0`` is feasible but no real selection; ``n_selected_features_`` its size (the paper's
  "Av. F").
* ``outliers_`` = training indices whose ramp loss is at its cap of 2, ``y_i f(x_i) <= -1 + 1e-9`` (a point
  exactly at ``y f = -1`` costs 2C whether treated as outlier or not). Every returned solution is put in this
  canonical form: ``z_i = 1`` iff ``y_i f(x_i) < -1``, ``xi`` the capped hinge, and ``objective_`` is the ramp
  objective of ``(coef_, intercept_)`` on the training data, after polishing (HiGHS's MIP feasibility tolerance is 1e-9,
  not the paper's 0, so every MIP solution is rounded and the LP re-solved with the binaries fixed).
* ``mip_gap_``: 0 when HiGHS proved optimality; the relative gap ``(objective_ - dual bound) / objective_`` after
  a time limit; NaN for the heuristic (DAKS has no global lower bound).
* ``status_``: "optimal", "time_limit" (a ConvergenceWarning was issued; the model is usable), "limit" (another
  HiGHS limit passed through ``solver_options``, e.g. ``mip_max_nodes``; also warned) or "heuristic".
* ``max_time`` (seconds) covers the whole fit. ``None``: no limit for ``"exact"``; 1800 s for the heuristic
  (the paper leaves DAKS's termination to the user). A limit hit without any feasible solution raises
  :class:`svmopt.SolverError`; Algorithm 1's initial solution always exists once its first LP solved, so that
  only happens on very small limits.
* ``random_state`` seeds HiGHS' ``random_seed`` (None -> 0): identical input, identical fit.
* ``big_m``: "variant1" (one LP per point), "variant2" (one per class), "auto" (Variant I if n <= 600, Sec. 2.6),
  "initial" (``M_i = Delta_i UB``, no tightening; only for experiments).
* Only two classes: more raise a ValueError (the paper is binary).
* Sample weights (``fit(X, y, sample_weight)``, times ``class_weight``) are frequencies: row i's hinge costs
  ``C w_i xi_i`` and its outlier indicator ``2 C w_i z_i`` in every model here, in the big-M LPs of Algorithm 1 and in
  DAKS's sub-problems as in the MILP, in CCCP's convex steps, and ``C="auto"`` counts held-out errors by weight;
  integer weights give the model of the rows repeated. Rows of weight 0 are left out.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from numbers import Integral
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
from svmopt._shared.runtime import TimeBudget, progress
from svmopt._shared.splits import cv_is_index_pairs, cv_splits, stratified_subsample
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    CV,
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
from svmopt.ramp.bounds import BigM, algorithm1
from svmopt.ramp.cccp import LinearCuttingPlanes, cccp, ramp_values, solve_fs
from svmopt.ramp.daks import DAKSParams, daks
from svmopt.ramp.model import W_TOL, RLSolution, hinge_objective, rlfs_objective, solve_svm_l1_within
from svmopt.ramp.solve import solve_fs_svm, solve_rlfs_mip

BigMBounds = BigM
_BIG_M = ("variant1", "variant2", "auto", "initial")
_METHODS = ("auto", "exact", "heuristic", "cccp")
_SOLVERS = ("auto", "lp", "cutting_plane")

#: ``solver="auto"`` of L1SVC and FeatureBudgetSVC uses the cutting planes above this many rows (the direct LP/MILP
#: has a column and a row per training point).
AUTO_CUTTING_PLANE_ROWS = 20_000
#: ``method="auto"`` of RampLossSVC uses DAKS up to this many rows and CCCP above (the MILP has a binary per row).
#: Measured (``benchmarks/scale_ramp.py daks``: d = 20, B = 5, C = 1, 15% far-from-boundary label noise): at 250, 500,
#: 1,000, 2,000 and 4,000 rows DAKS ran to its 60 s limit and ended 46%, 56%, 69%, 73% and 78% above CCCP's
#: objective, which took 0.3-0.7 s. Below 200 rows (the paper's microarray sets) the paper's method is kept.
AUTO_CCCP_ROWS = 200
#: ``C="auto"`` of RampLossSVC: the paper's grid (Sec. 4.1), compared by held-out errors.
C_GRID = np.logspace(-2.0, 2.0, 5)
#: ``C="auto"`` cross-validates on a stratified subsample of at most this many training rows.
SELECT_MAX_ROWS = 2000


def ramp_loss_objective(X: Any, y: Any, coef: Any, intercept: float, C: float) -> float:
    """The (RL-FS) objective ``||w||_1 + C sum_i ramp(y_i (w.x_i + b))`` of any ``(w, b)`` (eqs. (1)-(3) with the
    l1 norm).

    ``y`` must be coded -1/+1. By the ramp identity this equals the (RL-FS-M) objective of the best ``(xi, z)``
    for that ``(w, b)``, so it evaluates any returned solution independently of the MILP variables.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).ravel()
    w = np.asarray(coef, dtype=np.float64).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != w.shape[0]:
        raise ValueError(f"X {X.shape}, y {y.shape} and coef {w.shape} have inconsistent shapes")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must be coded -1/+1 for ramp_loss_objective")
    return rlfs_objective(X, y, w, float(intercept), float(C))


def _budget(budget: int | None, d: int) -> int:
    """``B``: the declared budget checked against the data (``budget <= n_features``), or ``d`` for None."""
    if budget is None:
        return d
    if budget > d:
        raise ValueError(f"budget must be in [1, n_features={d}] or None, got {budget}")
    return int(budget)


def _seed_options(random_state: Any) -> dict:
    if random_state is None:
        return {"random_seed": 0}
    return {"random_seed": int(check_random_state(random_state).randint(0, 2**31 - 1))}


def _dot_rows(X: Any, w: np.ndarray) -> np.ndarray:
    """``X @ w`` for an array, a memmap or a Dask array (computed where its chunks are)."""
    out = X @ w
    return np.asarray(out.compute() if is_dask_array(out) else out, dtype=np.float64)


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


_C = [POSITIVE]  # Prop. 2.1 needs C > 0
_MIP_GAP = [Interval(Real, 0, 1, closed="left")]
_TOL = [Interval(Real, 0, None, closed="left")]
_BUDGET = [POSITIVE_INT, None]


class _BinaryLinearClassifier(ClassifierMixin, BaseEstimator):
    """Shared binary linear-classifier plumbing: label coding, decision function, tags."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_rows(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, np.ndarray, np.ndarray | None]:
        """``(X, y coded -1/+1, sample weights)``: X checked, the weights (times ``class_weight``) by
        :func:`svmopt._shared.validation.check_fit_weights` (zero-weight rows left out; None when unweighted). A Dask ``X``
        (which only the cutting planes read) is checked (2-D, known row chunks, finite) by its workers in one pass,
        ``y`` gathered; its weights must all be > 0."""
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


class L1SVC(_BinaryLinearClassifier):
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
        "C": _C, "solver_options": [Mapping, None], "solver": [StrOptions(set(_SOLVERS))], "tol": _TOL,
        "max_iter": [POSITIVE_INT], "class_weight": CLASS_WEIGHT, "max_time": [SECONDS, None],
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


class FeatureBudgetSVC(_BinaryLinearClassifier):
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
        "C": _C, "budget": _BUDGET, "max_time": [SECONDS, None], "mip_gap": _MIP_GAP,
        "random_state": ["random_state"], "solver": [StrOptions(set(_SOLVERS))], "tol": _TOL,
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
        seed = _seed_options(self.random_state)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        Cw = C if sw is None else C * sw
        B = _budget(self.budget, X.shape[1])
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


class RampLossSVC(_BinaryLinearClassifier):
    """(RL-FS-M): ramp-loss l1-SVM with feature budget and outlier detection (paper 001), a MILP on HiGHS.

    Parameters
    ----------
    C : float or "auto", default 1.0
        Misclassification weight (> 0: Proposition 2.1's big-M needs C > 0). ``"auto"``: the paper's grid
        {0.01, 0.1, 1, 10, 100} (:data:`C_GRID`) compared by held-out errors on ``cv`` stratified folds of the
        training rows (at most :data:`SELECT_MAX_ROWS`), each fold fitted by CCCP; ties to the C nearest 1. The
        choice is ``C_``, the held-out error rates ``selection_``. Decision: the default stays 1 (the middle of
        the paper's grid): against scikit-learn's LinearSVC tuned over 6 values of C it is 0.04 points lower on
        average over 19 data sets (``benchmarks/results/defaults.md``), while ``"auto"`` costs 15 CCCP fits, 56 s
        at 1,400 rows x 57 features where one fit takes 5 s.
    budget : int or None, default None
        ``B``, the largest number of features, in [1, n_features]; None means no budget, i.e. (RL-l1-M).
    cv : int >= 2, CV splitter or iterable of (train, test) index pairs, default 3
        Folds of ``C="auto"``: an int is that many unshuffled stratified folds; a splitter or explicit index pairs
        (into the rows given to ``fit``; then every row is used, no subsample) are used as given.
    method : {"auto", "heuristic", "exact", "cccp"}, default "auto"
        "exact": Algorithm 1 then the MILP with a MIP start (Sec. 4.2). "heuristic": DAKS (Algorithm 2, Sec. 3).
        "cccp": the concave-convex procedure of Collobert et al. (2006) on the same objective, each convex step by
        cutting planes with one pass over the data per iteration (:mod:`svmopt.ramp.cccp`): for data with too
        many rows for a binary per row; ``X`` may be a float64 ``np.memmap`` or a Dask array. CCCP finds a local
        optimum: ``objective_`` is a true (RL-FS) value, but no lower bound is known (``mip_gap_`` NaN,
        ``status_`` "local"). "auto": "heuristic" up to ``AUTO_CCCP_ROWS`` training rows, "cccp" above (and for
        a Dask array); the choice is ``method_``.
    max_time : float or None, default None
        Seconds for the whole fit (``C="auto"``'s folds included: they stop once half of it is spent, and the C
        values not scored on every fold are not chosen). None: no limit for "exact" and "cccp", 1800 s for
        "heuristic" (decision: the paper sets no limit on DAKS). At the limit the best solution found is used,
        with a ConvergenceWarning and ``max_time_reached_``.
    class_weight : dict {label: weight}, "balanced" or None, default None
        Multiplies the sample weights of each class's rows (``"balanced"``: ``W / (2 W_c)``).
    warm_start : bool, default False
        With ``method="cccp"``, start one more CCCP run from the previous fit's ``(coef_, intercept_)`` (cut to the
        budget) when it has the same features and classes, before the usual starts; the best run is kept, so a refit
        of the same problem is never worse than the previous one (``cccp_["warm_start"]`` says whether it was
        used). The MILP methods ignore it: their Algorithm 1 start is exact for the data.
    big_m : {"variant1", "variant2", "auto", "initial"}, default "variant1"
        Algorithm 1's M tightening: one LP per point (Variant I, tighter), one per class (Variant II),
        "auto" = Variant I when n <= 600 (Sec. 2.6), "initial" = ``M_i = Delta_i UB`` without LPs.
    random_state : int, RandomState or None
        Seeds HiGHS (``random_seed``); None -> 0. Identical fits for identical input.
    verbose : bool, default False
        Print Algorithm 1 iterations and DAKS phases / sub-problems.
    delta : float in [0, 1], default 0.35
        DAKS growth rate of the kernel+bucket size after an easy sub-problem (Sec. 3.1.3).
    p : int >= 1, default 2
        DAKS: a kernel feature unused in the last p feasible iterations leaves the kernel.
    q : int >= 1, default 2
        DAKS: a possible outlier with the same z in the last q feasible iterations gets fixed (Table 1).
    t_easy, t_fea, t_inc, t_limit : float, defaults 10, 120, 160, 400
        DAKS sub-problem time controls in seconds (Sec. 3.1.3 / 4.2): easy threshold, no first solution,
        no improvement, hard limit.
    tau : float, default 1.0
        DAKS threshold on xi for possible outliers: ``xi > tau + 1e-7`` everywhere (decision: the paper's
        Sec. 3.1.1, Sec. 3.1.2, Algorithm 2 and Table 1 disagree on strict vs non-strict).
    mip_gap : float, default 0.0
        HiGHS relative MIP gap tolerance of the exact MILP (the paper used 0).
    fix_dominated : bool, default True
        Decision (not in the paper): where Algorithm 1 tightens a bound to ``M_i < 2``, ``z_i = 1`` is dominated
        (``xi_i = 0`` by (15), so switching to ``z_i = 0`` lowers the objective by at least ``C (2 - M_i)``), and
        ``M_i`` is set to 0, fixing ``z_i = 0``. The optimum is unchanged but the MILP, hence its solve times and
        gaps, is smaller. False keeps the paper's (RL-FS-M) with every tightened bound as computed.
    max_iter_bigm : int, default 30
        Cap on Algorithm 1's loop (decision: "while an improvement is obtained" has no threshold; the loop
        stops when no bound drops by more than ``1e-4 * max(1, old)``); DAKS uses at most 5 loops (phase 1).
    solver_options : dict, optional
        Extra HiGHS options for every LP and MILP.
    n_init : int, default 3
        CCCP: runs from the (FS-SVM) solution and from ``n_init - 1`` random perturbations of it (coefficients
        scaled by ``1 + 0.5 N(0, 1)`` on its support, the intercept shifted by ``0.5 N(0, 1)`` times the scores'
        standard deviation); the best is kept.
    tol : float, default 1e-6
        CCCP: the certified relative gap of each convex step's cutting planes (on the support found, with a budget).
    max_iter : int, default 1000
        CCCP: passes over the data per convex step.

    Attributes
    ----------
    coef_ : ndarray (1, n_features)
        The weights ``w`` (entries with ``|w_k| <= 1e-7`` set to 0).
    intercept_ : ndarray (1,)
        The bias ``b``.
    selected_features_ : ndarray of int
        Features with ``|w_k| > 1e-7``.
    n_selected_features_ : int
        Size of ``selected_features_``.
    outliers_ : ndarray of int
        Training points with ramp loss 2 (``y_i f(x_i) <= -1``): indices into the ``X`` given to ``fit`` (rows
        of weight 0 are never outliers: they were not fitted).
    objective_ : float
        ``||w||_1 + C sum ramp`` on the training data.
    initial_objective_ : float
        UB of Algorithm 1's initial solution (``objective_ <= initial_objective_``).
    mip_gap_ : float
        0 if proven optimal, the relative gap after a time limit, NaN for the heuristic.
    status_ : str
        "optimal", "time_limit", "limit" (another HiGHS limit of ``solver_options``, e.g. ``mip_max_nodes``;
        warned), "heuristic" (DAKS) or "local" (CCCP converged: the outlier set repeated).
    method_ : str
        The method used ("exact", "heuristic" or "cccp").
    C_ : float
        The C fitted (``C`` itself, or the one ``C="auto"`` selected).
    selection_ : dict or None
        ``C="auto"``'s cross-validation: the grid ``C``, the held-out error rates ``errors``, ``n_rows``,
        ``n_folds`` and ``time_s``; None for a given C.
    n_iter_ : int
        CCCP steps of the kept run; DAKS sub-problems; 1 for the exact MILP.
    max_time_reached_ : bool
        Whether ``max_time`` cut the fit short.
    lower_bound_ : float
        HiGHS's dual bound for "exact"; NaN for the heuristics (no global bound is known).
    big_m_ : :class:`BigMBounds` or None
        The M_i, u = l, UB_w, LB_b/UB_b used (None for CCCP, which has no big-M).
    daks_ : dict or None
        Heuristic run summary (stop reason, phase-2 passes, sub-problems, UB history).
    cccp_ : dict or None
        CCCP run summary: per start the ramp objective at the start and after each step, the steps, the passes over
        the data; the (FS-SVM) start's objective and passes; ``warm_start``, whether the first run started from the
        previous fit.
    classes_ : ndarray (2,)
        The two labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of str
        Names of the features seen during ``fit`` (only when ``X`` has string column names).

    See Also
    --------
    L1SVC : The l1-norm soft-margin SVM (an LP), Algorithm 1's starting point.
    FeatureBudgetSVC : The hinge-loss model with a feature budget (a MILP).
    svmopt.ramp.feature_selection : The paper's other comparison models (Fisher-SVM, RFE-SVM).

    References
    ----------
    .. [1] M. Baldomero-Naranjo, L. I. Martinez-Merino and A. M. Rodriguez-Chia, "A robust SVM-based approach
       with feature selection and outliers detection for classification problems", arXiv:2403.07753.

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmopt import RampLossSVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = RampLossSVC(C=1.0, budget=3, method="exact", random_state=0).fit(X[:80], y[:80])
    >>> clf.status_, clf.n_selected_features_
    ('optimal', 3)
    >>> clf.score(X[80:], y[80:]) > 0.8
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "C": [*_C, StrOptions({"auto"})], "budget": _BUDGET, "method": [StrOptions(set(_METHODS))],
        "max_time": [SECONDS, None], "cv": CV, "class_weight": CLASS_WEIGHT, "warm_start": ["boolean"],
        "big_m": [StrOptions(set(_BIG_M))], "random_state": ["random_state"], "verbose": ["verbose"],
        "delta": [Interval(Real, 0, 1, closed="both")],  # Sec. 3.1.3
        "p": [POSITIVE_INT], "q": [POSITIVE_INT],
        "t_easy": [SECONDS], "t_fea": [SECONDS], "t_inc": [SECONDS], "t_limit": [SECONDS],
        "tau": [Interval(Real, 0, 2, closed="both")],  # a threshold on xi, which lies in [0, 2] (2)
        "mip_gap": _MIP_GAP, "fix_dominated": ["boolean"], "max_iter_bigm": [POSITIVE_INT],
        "solver_options": [Mapping, None], "n_init": [POSITIVE_INT], "tol": _TOL, "max_iter": [POSITIVE_INT],
    }

    def __init__(self, *, C: float | str = 1.0, budget: int | None = None, method: str = "auto",
                 max_time: float | None = None, cv: Any = 3, big_m: str = "variant1", random_state: Any = None,
                 verbose: bool = False, delta: float = 0.35, p: int = 2, q: int = 2, t_easy: float = 10.0,
                 t_fea: float = 120.0, t_inc: float = 160.0, t_limit: float = 400.0, tau: float = 1.0,
                 mip_gap: float = 0.0, fix_dominated: bool = True, max_iter_bigm: int = 30,
                 solver_options: dict | None = None, n_init: int = 3, tol: float = 1e-6, max_iter: int = 1000,
                 class_weight: Any = None, warm_start: bool = False):
        self.C = C
        self.budget = budget
        self.method = method
        self.warm_start = warm_start
        self.max_time = max_time
        self.class_weight = class_weight
        self.cv = cv
        self.big_m = big_m
        self.random_state = random_state
        self.verbose = verbose
        self.delta = delta
        self.p = p
        self.q = q
        self.t_easy = t_easy
        self.t_fea = t_fea
        self.t_inc = t_inc
        self.t_limit = t_limit
        self.tau = tau
        self.mip_gap = mip_gap
        self.fix_dominated = fix_dominated
        self.max_iter_bigm = max_iter_bigm
        self.solver_options = solver_options
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter

    def _resolved(self) -> dict:
        """The validated parameters as the solvers take them (HiGHS option names checked by merge_options)."""
        merge_options(self.solver_options)
        times = {n: float(getattr(self, n)) for n in ("t_easy", "t_fea", "t_inc", "t_limit")}
        tl = None if self.max_time is None else float(self.max_time)
        C = None if self.C == "auto" else float(self.C)
        return {"C": C, "time_limit": tl, "seed": _seed_options(self.random_state), **times}

    def _select_C(self, X: Any, ys: np.ndarray, sw: np.ndarray | None,
                  deadline: float | None) -> tuple[float, dict, bool]:
        """``C="auto"``: the C of :data:`C_GRID` (the paper's grid) with the fewest held-out errors on ``cv``
        stratified (unshuffled) folds of at most :data:`SELECT_MAX_ROWS` training rows (a stratified subsample
        above, seeded by ``random_state``), each fold fitted by CCCP (the fast local solver of the same objective,
        whatever ``method`` the final fit uses); ties to the C nearest 1. With sample weights ``sw`` the folds are
        fitted weighted and a held-out error counts its weight. No fold fit starts after ``deadline``; a C not scored
        on every fold is not chosen (the third value: whether the deadline cut the search short)."""
        from sklearn.base import clone

        t0 = time.perf_counter()
        n = X.shape[0]
        rows = np.arange(n)
        explicit = cv_is_index_pairs(self.cv)
        if n > SELECT_MAX_ROWS and not explicit:
            seed = _seed_options(self.random_state).get("random_seed", 0)
            rows = stratified_subsample(ys, SELECT_MAX_ROWS, np.random.RandomState(seed))
        Xs = X[rows]
        Xs = np.ascontiguousarray(Xs.compute() if is_dask_array(Xs) else Xs, dtype=np.float64)
        yc = ys[rows]
        wc = np.ones(yc.size) if sw is None else sw[rows]
        folds = cv_splits(self.cv, yc, self._kept if explicit else None, n_given=self._n_given if explicit else None)
        if isinstance(self.cv, Integral) and min(int(self.cv), int(np.min(np.unique(yc, return_counts=True)[1]))) < 2:
            folds = []  # a class with one row: nothing to hold out
        err = np.zeros(C_GRID.size)
        scored = np.zeros(C_GRID.size, dtype=np.int64)
        held_out = float(sum(wc[va].sum() for _, va in folds))  # each row once for k-fold; more for repeated splits
        if not folds:
            return 1.0, {"C": C_GRID.copy(), "errors": err, "n_rows": int(yc.size), "n_folds": 0,
                         "time_s": 0.0}, False
        stopped = False
        bar = progress(self.verbose, len(folds) * C_GRID.size, "RampLossSVC C selection")
        for tr, va in folds:
            for j, c in enumerate(C_GRID):
                if deadline is not None and time.perf_counter() >= deadline:
                    stopped = True
                    break
                bar.update()
                est = clone(self).set_params(C=float(c), method="cccp", verbose=False, class_weight=None,
                                             max_time=None if deadline is None else
                                             max(1e-3, deadline - time.perf_counter()))
                with warnings.catch_warnings():  # a fold's limits and degenerate models are scored as they are
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    warnings.filterwarnings("ignore", message="RampLossSVC: ", category=UserWarning)
                    est.fit(Xs[tr], yc[tr], sample_weight=None if sw is None else wc[tr])
                err[j] += float(wc[va] @ (est.predict(Xs[va]) != yc[va]))
                scored[j] += 1
        bar.close()
        err[scored < len(folds)] = np.inf
        order = np.argsort(np.abs(np.log(C_GRID)), kind="stable")
        C = float(C_GRID[order[int(np.argmin(err[order]))]]) if np.isfinite(err).any() else 1.0
        return C, {"C": C_GRID.copy(), "errors": err / held_out, "n_rows": int(yc.size), "n_folds": len(folds),
                   "time_s": time.perf_counter() - t0}, stopped

    @fit_context
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RampLossSVC:
        """Fit (RL-FS-M) on ``X`` and two-class ``y`` by Algorithm 1 + MILP, by DAKS or by CCCP (``C="auto"``:
        C selected first by cross-validation, see :meth:`_select_C`). ``sample_weight`` (times ``class_weight``):
        see the module docstring."""
        prm = self._resolved()
        budget = TimeBudget(prm["time_limit"])
        previous = None
        if self.warm_start and hasattr(self, "coef_"):
            previous = (self.coef_[0].copy(), float(self.intercept_[0]), self.classes_)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        n, d = X.shape
        B = _budget(self.budget, d)
        self.selection_ = None
        if prm["C"] is None:
            half = None if budget.max_time is None else budget.start + 0.5 * budget.max_time
            prm["C"], self.selection_, stopped = self._select_C(X, ys, sw, half)
            if stopped:
                budget.cut("C='auto''s cross-validation (after half of max_time; the C values not scored on "
                           "every fold were not chosen)")
            if prm["time_limit"] is not None:
                prm["time_limit"] = max(1e-3, budget.remaining())
            if self.verbose:
                print(f"[C] selected C = {prm['C']:g} by {self.selection_['n_folds']}-fold cross-validation "
                      f"({self.selection_['time_s']:.2f} s)")
        C = prm["C"]
        self.C_ = C
        Cw = C if sw is None else C * sw
        method = self.method
        if method == "auto":
            method = "cccp" if is_dask_array(X) or n > AUTO_CCCP_ROWS else "heuristic"
        elif is_dask_array(X) and method != "cccp":
            raise ValueError(f"method={method!r} builds a MILP with a binary per training row in memory; for a Dask "
                             "array use method='cccp' (or 'auto')")
        self.method_ = method
        self.cccp_: dict[str, Any] | None = None
        self.big_m_: BigM | None = None
        if method == "cccp":
            warm = None
            if previous is not None and previous[0].shape[0] == d and np.array_equal(previous[2], self.classes_):
                warm = previous[:2]
            self._fit_cccp(X, ys, C, B, prm, sw, budget, warm)
            self._warn_degenerate(n)
            budget.finish(self)
            return self
        variant = self.big_m if self.big_m != "auto" else ("variant1" if n <= 600 else "variant2")
        opts = {**prm["seed"], **(self.solver_options or {})}
        t0 = time.perf_counter()
        self.daks_ = None
        if method == "exact":
            tl = prm["time_limit"]
            bm, init = algorithm1(X, ys, Cw, B, variant=variant, max_iter=self.max_iter_bigm, time_limit=tl,
                                      options=opts, verbose=self.verbose, fix_dominated=bool(self.fix_dominated))
            remaining = None if tl is None else tl - (time.perf_counter() - t0)
            res = None
            if remaining is None or remaining > 0:
                bar = progress(self.verbose, None, "RampLossSVC MILP incumbents")

                def incumbent(running_time: float, objective: float) -> None:
                    bar.set_postfix_str(f"objective {objective:.6g} at {running_time:.1f} s")
                    bar.update()

                res = solve_rlfs_mip(X, ys, Cw, B, bm, start=init, time_limit=remaining,
                                         mip_gap=self.mip_gap, options=opts,
                                         on_incumbent=incumbent if self.verbose else None)
                bar.close()
            if res is None:
                sol, status, gap = init, "time_limit", float("nan")
            else:
                sol, status, gap = res.solution, res.status, res.gap
            if self.verbose:
                print(f"[exact] status {status}, objective {sol.objective:.6g}, gap {gap:.3g}")
        else:
            tl = 1800.0 if prm["time_limit"] is None else prm["time_limit"]
            params = DAKSParams(delta=float(self.delta), p=int(self.p), q=int(self.q), t_easy=prm["t_easy"],
                                    t_fea=prm["t_fea"], t_inc=prm["t_inc"], t_limit=prm["t_limit"],
                                    time_limit=tl, tau=float(self.tau),
                                    a1_max_iter=min(5, int(self.max_iter_bigm)),
                                    fix_dominated=bool(self.fix_dominated))
            r = daks(X, ys, Cw, B, params=params, variant=variant, options=self.solver_options,
                         seed_options=prm["seed"], verbose=self.verbose)
            bm, init, sol, status, gap = r.bigm, r.initial, r.solution, r.status, float("nan")
            self.daks_ = {"stop_reason": r.stop_reason, "n_phase2": r.n_phase2, "n_subproblems": r.n_subproblems,
                          "ub_history": r.ub_history}
        if status == "time_limit" and self.max_time is not None:
            budget.cut(f"the {'MILP' if method == 'exact' else 'kernel search'} (the best solution found is used: "
                       f"objective {sol.objective:.6g}, gap {gap:.3g})")
        elif status in ("time_limit", "limit"):
            warn(f"RampLossSVC: a limit ({status}) stopped the solver; using the best solution found "
                          f"(objective {sol.objective:.6g}, gap {gap:.3g})", ConvergenceWarning)
        self._set_solution(X, ys, sol)
        t = ys * (X @ self.coef_[0] + self.intercept_[0])
        self.outliers_ = self._given_rows(np.flatnonzero(t <= -1.0 + 1e-9))
        self.objective_ = rlfs_objective(X, ys, self.coef_[0], self.intercept_[0], Cw)
        self.initial_objective_ = init.objective
        self.mip_gap_ = gap
        self.status_ = status
        self.big_m_ = bm
        if method == "exact":
            self.n_iter_ = 1
            self.lower_bound_ = float(res.dual_bound) if res is not None else float("nan")
        else:
            self.n_iter_ = int(r.n_subproblems)
            self.lower_bound_ = float("nan")
        self._warn_degenerate(n)
        budget.finish(self)
        return self

    def _warn_degenerate(self, n: int) -> None:
        """A ``UserWarning`` naming the cause when the model is w = 0 (one class for every point) or flags every
        training point as an outlier."""
        if self.n_selected_features_ == 0:
            warn(f"RampLossSVC: the fitted w is 0 (no feature selected), so every point gets the class of the "
                 f"intercept's sign: the l1 norm outweighs C={self.C_:g} times the losses; raise C", UserWarning)
        elif self.outliers_.size == n:
            warn(f"RampLossSVC: every training point is flagged as an outlier (y_i f(x_i) <= -1): the labels look "
                 f"inverted or C={self.C_:g} is too small to fit them; check y or raise C", UserWarning)

    def _given_rows(self, idx: np.ndarray) -> np.ndarray:
        """Row indices among the rows fitted as indices into the X given to fit (rows of weight 0 were left out)."""
        return idx if self._kept is None else self._kept[idx]

    def _fit_cccp(self, X: Any, ys: np.ndarray, C: float, B: int, prm: dict, sw: np.ndarray | None,
                  budget: TimeBudget, warm: tuple[np.ndarray, float] | None = None) -> RampLossSVC:
        # random_state=None draws as 0 does, as for HiGHS' seed: identical input, identical fit
        r = cccp(X, ys, C, B, n_init=int(self.n_init), random_state=0 if self.random_state is None
                     else self.random_state, tol=float(self.tol),
                     max_iter=int(self.max_iter), time_limit=prm["time_limit"], solver_options=self.solver_options,
                     verbose=bool(self.verbose), weight=sw, warm=warm)
        best = r.best
        self._set_wb(best.w, best.b)
        t = ys * (best.scores + self.intercept_[0])  # the scores of (w, b) before tiny entries were zeroed
        if not np.array_equal(self.coef_[0], best.w):
            t = ys * (_dot_rows(X, self.coef_[0]) + self.intercept_[0])
        self.outliers_ = self._given_rows(np.flatnonzero(t <= -1.0 + 1e-9))
        ramp = ramp_values(t)
        self.objective_ = float(np.abs(self.coef_[0]).sum() + C * (ramp.sum() if sw is None else sw @ ramp))
        self.initial_objective_ = r.initial_objective
        self.mip_gap_ = float("nan")
        self.lower_bound_ = float("nan")
        self.n_iter_ = best.n_steps
        self.big_m_ = None
        self.daks_ = None
        timed_out = any(run.timed_out for run in r.runs)
        self.status_ = "time_limit" if timed_out else "local"
        self.cccp_ = {"objectives": [run.objectives for run in r.runs], "steps": [run.n_steps for run in r.runs],
                      "passes": [run.n_passes for run in r.runs], "converged": [run.converged for run in r.runs],
                      "fs_objective": r.fs_objective, "fs_passes": r.fs_passes, "n_passes": r.n_passes,
                      "warm_start": warm is not None}
        if timed_out:
            budget.cut(f"CCCP (the best point found is used: objective {self.objective_:.6g})")
        return self

