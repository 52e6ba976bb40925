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
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmopt._shared.calibration import ProbabilityMixin
from svmopt._shared.config import warn
from svmopt._shared.dask import check_dask_array, finite_column_max, is_dask_array, map_row_chunks
from svmopt._shared.highs import check_options, merge_options
from svmopt._shared.runtime import TimeBudget, progress
from svmopt._shared.sparse import as_csr, check_sparse_input, is_sparse
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
    check_input,
    fit_context,
)
from svmopt.ramp.cccp import LinearCuttingPlanes, solve_fs
from svmopt.ramp.limits import SolveLimits
from svmopt.ramp.magnitude import check_magnitudes, column_max, warn_zero_model
from svmopt.ramp.model import W_TOL, RLSolution, hinge_objective, solve_svm_l1_within
from svmopt.ramp.solve import solve_fs_svm
from svmopt.ramp.solver_choice import lp_options, pick_solver

_SOLVERS = ("auto", "lp", "cutting_plane")

#: The parameter constraints the three classifiers share: ``C`` (Prop. 2.1 needs C > 0), the MIP gap, the cutting
#: planes' tolerance, the feature budget.
C_CONSTRAINT = [POSITIVE]
MIP_GAP_CONSTRAINT = [Interval(Real, 0, 1, closed="left")]
TOL_CONSTRAINT = [Interval(Real, 0, None, closed="left")]
BUDGET_CONSTRAINT = [POSITIVE_INT, None]
PROBABILITY_CONSTRAINT = ["boolean"]


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


#: The stage a limit of ``solver_options`` that stops the cutting planes' master problems is noted under.
CUT_STAGE = "the cutting planes' master problems"


def _cut_status(est: Any, sol: Any, tol: float, timed_out: bool = False, quiet_time_limit: bool = False) -> str:
    """"optimal" at a certified gap <= tol; else "limit" (a limit of ``solver_options`` stopped a master: warned by
    :meth:`BinaryLinearClassifier._report_cut_limits`), "max_iter" or "time_limit" with a ConvergenceWarning (not for
    "time_limit" with ``quiet_time_limit``: the fit's TimeBudget warns then)."""
    gap = float(sol.gap)
    if gap <= tol:
        return "optimal"
    if sol.limits:
        return "limit"
    status = "time_limit" if sol.timed_out or timed_out else "max_iter"
    if status == "time_limit" and quiet_time_limit:
        return status
    warn(f"{type(est).__name__}: the cutting planes stopped ({status}) at a certified relative gap of {gap:.2g} > "
         f"tol={tol:g}; the model is usable, its objective within that gap of the optimum", ConvergenceWarning)
    return status


class BinaryLinearClassifier(ProbabilityMixin, ClassifierMixin, BaseEstimator):
    """Shared binary linear-classifier plumbing: label coding, decision function, tags, ``predict_proba``."""

    _accepts_sparse: ClassVar[bool] = False  # whether fit takes a scipy sparse X (CSR/CSC; never densified)

    def _check_probability_input(self, X: Any) -> None:
        """``probability=True`` with a Dask X: a ValueError before any work (the folds need X in memory)."""
        if getattr(self, "probability", False) and is_dask_array(X):
            raise ValueError("probability=True needs X in memory (its held-out decision values come from folds of "
                             "rows); got a Dask array: use probability=False")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_rows(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, np.ndarray, np.ndarray | None]:
        """``(X, y coded -1/+1, sample weights)``: X checked, the weights (times ``class_weight``) by
        :func:`svmopt._shared.validation.check_fit_weights` (zero-weight rows left out; None when unweighted). A Dask
        ``X`` (which only the cutting planes read; its chunks dense or, for an estimator that takes sparse X, scipy
        sparse, never densified) is checked (2-D, known row chunks, finite) by its workers in one pass, ``y``
        gathered; its weights must all be > 0."""
        class_weight = getattr(self, "class_weight", None)
        check_sparse_input(type(self).__name__, X, self._accepts_sparse, dask_chunks=self._accepts_sparse)
        if not is_dask_array(X):
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False,
                                 accept_sparse=("csr", "csc") if self._accepts_sparse else False)
            X, y = (as_csr(X) if is_sparse(X) else X), column_or_1d(y, warn=True)  # CSC: converted once
            self._n_given = int(y.shape[0])
            X, y, w, self._kept = check_fit_weights(X, y, sample_weight, class_weight, return_kept=True)
            self._col_max = column_max(X)
            return X, self._code_labels(y), w
        X = check_dask_array(X).astype(np.float64)
        y = column_or_1d(np.asarray(y.compute() if is_dask_array(y) else y), warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        if X.shape[0] < 2:
            raise ValueError(f"Found array with {X.shape[0]} sample(s) (shape={X.shape}) while a minimum of 2 is "
                             "required.")
        self._col_max = finite_column_max(X)  # one pass over the chunks (sparse ones: over their stored values)
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

    def _check_magnitudes(self, X: Any, ys: np.ndarray, C: float, sw: np.ndarray | None,
                          options: Mapping[str, Any] | None, big_m: str | None = None) -> None:
        """X, C and the weights at magnitudes HiGHS can solve at (:func:`svmopt.ramp.magnitude.check_magnitudes`),
        before any work."""
        check_magnitudes(type(self).__name__, X, ys, self._col_max, C, sw, options, big_m=big_m)

    def _warn_if_zero(self, X: Any, C: float, sw: np.ndarray | None) -> None:
        """The UserWarning of a fitted w = 0 (:func:`svmopt.ramp.magnitude.warn_zero_model`)."""
        if self.n_selected_features_ == 0:
            status = getattr(self, "status_", "optimal")
            warn_zero_model(type(self).__name__, X, self._col_max, C, sw,
                            stopped=status if status in ("time_limit", "limit", "max_iter") else None)

    def _cutting_plane_fit(self, X: Any, ys: np.ndarray, C: float, budget: int | None, *, tol: float,
                           max_iter: int, deadline: float | None, weight: np.ndarray | None = None,
                           solver_options: Mapping[str, Any] | None = None) -> Any:
        """(SVM-l1) / (FS-SVM) by cutting planes (:mod:`svmopt.ramp.cccp`) until ``deadline`` (``perf_counter``): sets
        the solution, returns the result (its ``limits``: HiGHS statuses of masters stopped, warned by the caller)."""
        engine = LinearCuttingPlanes(X, ys, budget=budget, weight=weight, solver_options=solver_options)
        certify = None if deadline is None else max(0.0, deadline - time.perf_counter())
        with warnings.catch_warnings():  # a master stopped at a limit: reported once, by stage (sol.limits)
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = solve_fs(engine, C, budget, tol=tol, max_iter=max_iter, deadline=deadline, certify_time=certify)
        w, b = engine.wb(sol)
        self._set_wb(w, b)
        self.n_iter_ = int(sol.n_iter)
        self.lower_bound_ = float(sol.lower_bound)
        return sol

    def _fit_with_bar(self, fit: Any, X: Any, y: Any, sample_weight: Any) -> Any:
        """``fit(X, y, sample_weight)`` under a one-step bar when ``verbose``, then ``probability``'s calibration."""
        self._check_probability_input(X)
        bar = progress(self.verbose, 1, f"{type(self).__name__} fit")
        try:
            fit(X, y, sample_weight)
            self._fit_probability(X, y, sample_weight, zero_is_positive=True)
            bar.set_postfix_str(f"{self.solver_}: {self.status_}, objective {self.objective_:.6g}")
            bar.update(1)
        finally:
            bar.close()
        return self

    def _report_cut_limits(self, sol: Any, clock: TimeBudget) -> None:
        """A ConvergenceWarning naming the limit of ``solver_options`` that stopped a master (unless the gap closed)."""
        if self.status_ != "limit":
            return
        log = SolveLimits(None, getattr(self, "solver_options", None))
        for status in sol.limits:
            log.note(f"{CUT_STAGE} (certified relative gap {float(sol.gap):.2g} > tol={self.tol:g})", status)
        log.report(type(self).__name__, clock)

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = w.x + b``; positive values mean ``classes_[1]`` (a Dask ``X`` chunk by chunk where it is)."""
        check_is_fitted(self)
        check_input(X, "X")
        if is_dask_array(X):
            return map_row_chunks(self, "decision_function", X, 1)[:, 0]
        X = validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
        return np.asarray(X @ self.coef_[0], dtype=np.float64).ravel() + self.intercept_[0]  # sparse: over nnz

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where ``f(x) >= 0`` (ties go to the positive class), else ``classes_[0]``."""
        f = self.decision_function(X)
        return self.classes_[(f >= 0).astype(np.intp)]


class L1SVC(BinaryLinearClassifier):
    """(SVM-l1): the l1-norm soft-margin linear SVM, an LP (eqs. (5), (8), (16), (17)); X dense or scipy sparse.

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
        independent of n beyond ``X`` and a few n-vectors; ``X`` may be a float64 ``np.memmap`` or a Dask array
        (of dense or scipy sparse chunks, never densified). "auto": "lp" up to ``AUTO_LP_ROWS`` rows; above, the
        cutting planes where n >= ``AUTO_ROWS_PER_FEATURE`` d, else "lp" up to ``AUTO_LP_MAX_NONZEROS`` nonzeros
        of X (and "cutting_plane" for a Dask array). Above ``AUTO_LP_ROWS`` rows the LP is solved by HiGHS's
        interior point (with crossover) unless ``solver_options`` name a ``solver``.
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
        limit of ``solver_options`` (``status_`` "limit"). A HiGHS stopped before it has any point gives the
        constant model (every model here is usable at a limit).
    verbose : bool or int, default False
        True: a bar of the fit on stderr (solver, status, objective); False: nothing is printed.
    probability : bool, default False
        True: ``predict_proba`` calibrated on 5-fold held-out decision values (argmax = ``predict``; 5 more fits).
    random_state : int, RandomState or None, default None
        Seeds ``probability=True``'s folds (the LP itself is deterministic).

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

    Notes
    -----
    Scale (decision): X is used as given. With C fixed the model is not scale invariant: on ``X / s`` (``w``
    scaled back) it is the same problem only with C replaced by ``C s``. At a tiny scale of X the optimum is
    ``w = 0`` (certified when C times every column's sum of ``|x|`` is at most 1); a fitted ``w = 0`` warns
    (UserWarning) with X's largest magnitude and the remedy, standardize X (``StandardScaler``) or raise C. X of
    magnitude >= 1e15, ``C`` times a weight that large, big-M coefficients that large, or columns below 1e-9 that the
    optimum may use (HiGHS reads them as 0) are a ValueError before any work (:mod:`svmopt.ramp.magnitude`; the same
    for every estimator of this family).

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
        "verbose": ["verbose"], "probability": PROBABILITY_CONSTRAINT, "random_state": ["random_state"]}
    _accepts_sparse: ClassVar[bool] = True

    def __init__(self, *, C: float = 1.0, solver_options: dict | None = None, solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 1000, class_weight: Any = None, max_time: float | None = None,
                 verbose: bool = False, probability: bool = False, random_state: Any = None):
        self.random_state, self.probability, self.verbose = random_state, probability, verbose
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
        return self._fit_with_bar(self._fit, X, y, sample_weight)

    def _fit(self, X: Any, y: Any, sample_weight: Any) -> L1SVC:
        C = float(self.C)
        merge_options(self.solver_options)
        budget = TimeBudget(self.max_time)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        self._check_magnitudes(X, ys, C, sw, self.solver_options)
        Cw = C if sw is None else C * sw
        self.solver_ = pick_solver(self.solver, X, by_shape=True)
        if self.solver_ == "cutting_plane":
            sol = self._cutting_plane_fit(X, ys, C, None, tol=float(self.tol), max_iter=int(self.max_iter),
                                          deadline=budget.deadline, weight=sw, solver_options=self.solver_options)
            self.objective_ = float(sol.objective)
            self.status_ = _cut_status(self, sol, float(self.tol), quiet_time_limit=True)
            if self.status_ == "time_limit":
                budget.cut(f"the cutting planes (certified relative gap {float(sol.gap):.2g} > tol={self.tol:g})")
            self._report_cut_limits(sol, budget)
            self._warn_if_zero(X, C, sw)
            budget.finish(self)
            return self
        w, b, lower, limit, point = solve_svm_l1_within(X, ys, Cw, options=lp_options(self.solver_options, X),
                                                            time_limit=budget.remaining_or_none())
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
        self._warn_if_zero(X, C, sw)
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
        Seconds for the whole fit (the start LPs, the MILP and its polishing LP; for the cutting planes the MILP
        certificate included); at the limit the best point is used with a ConvergenceWarning naming the stage and
        ``max_time_reached_``: the MILP's incumbent, or, when the time ran out in the start LPs, HiGHS's iterate of
        (SVM-l1) (the constant model w = 0 when that is better or HiGHS had no point yet) cut to its ``budget``
        largest coefficients -- the MILP then does not start. None: no limit (the MILP over many features may then
        take very long, with either solver).
    mip_gap : float, default 0.0
        HiGHS relative MIP gap tolerance (the paper used 0).
    random_state : int, RandomState or None
        Seeds HiGHS' ``random_seed`` (None -> 0).
    solver : {"auto", "lp", "cutting_plane"}, default "auto"
        "lp": the MILP above (a row and a column per training point). "cutting_plane": cutting planes on the hinge
        sum, one pass over the data per iteration (``X`` may be a float64 memmap or a Dask array, its chunks dense
        or scipy sparse): exact on each support searched, the support improved by swaps, then certified by the MILP
        master over the d feature indicators within ``max_time``
        (:meth:`svmopt._shared.cutting_plane.HingeCuttingPlanes.solve`). "auto": "lp" up to
        ``AUTO_CUTTING_PLANE_ROWS`` rows, else "cutting_plane".
    tol : float, default 1e-6
        The cutting planes' certified relative gap.
    max_iter : int, default 1000
        The cutting planes' limit on passes over the data.
    class_weight : dict {label: weight}, "balanced" or None, default None
        Multiplies the sample weights of each class's rows (``"balanced"``: ``W / (2 W_c)``).
    solver_options : dict, optional
        Extra HiGHS options for every LP and MILP (checked by name, type and range before any work).
    verbose : bool or int, default False
        True: a bar of the fit on stderr (solver, status, objective); False: nothing is printed.
    probability : bool, default False
        True: ``predict_proba`` calibrated on 5-fold held-out decision values (argmax = ``predict``; 5 more fits).

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
        The relative gap ``(objective_ - lower_bound_) / objective_`` at the end (0 when HiGHS proved optimality;
        after a limit from the best certified bound, HiGHS's dual bound or the (SVM-l1) LP's); for the cutting
        planes the certified relative gap (inf when the MILP master gave no bound in the time).
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

    Notes
    -----
    Scale (decision): as :class:`L1SVC`'s Notes say (X used as given; on ``X / s`` the same problem with C replaced
    by ``C s``; a fitted ``w = 0`` at a tiny scale warns; magnitudes HiGHS cannot represent are a ValueError before
    any work, :mod:`svmopt.ramp.magnitude`).

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
        "max_iter": [POSITIVE_INT], "class_weight": CLASS_WEIGHT, "solver_options": [Mapping, None],
        "verbose": ["verbose"], "probability": PROBABILITY_CONSTRAINT}
    _accepts_sparse: ClassVar[bool] = True

    def __init__(self, *, C: float = 1.0, budget: int | None = None, max_time: float | None = None,
                 mip_gap: float = 0.0, random_state: Any = None, solver: str = "auto", tol: float = 1e-6,
                 max_iter: int = 1000, class_weight: Any = None, solver_options: dict | None = None,
                 verbose: bool = False, probability: bool = False):
        self.probability = probability
        self.solver_options = solver_options
        self.verbose = verbose
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
        check_options(self.solver_options)
        return self._fit_with_bar(self._fit, X, y, sample_weight)

    def _fit(self, X: Any, y: Any, sample_weight: Any) -> FeatureBudgetSVC:
        C = float(self.C)
        tl = None if self.max_time is None else float(self.max_time)
        budget = TimeBudget(tl)
        seed = seed_options(self.random_state)
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        Cw = C if sw is None else C * sw
        B = check_budget(self.budget, X.shape[1])
        self.solver_ = pick_solver(self.solver, X)
        self._check_magnitudes(X, ys, C, sw, self.solver_options, big_m="budget" if self.solver_ == "lp" else None)
        if self.solver_ == "cutting_plane":
            sol = self._cutting_plane_fit(X, ys, C, B, tol=float(self.tol), max_iter=int(self.max_iter),
                                          deadline=budget.deadline, weight=sw, solver_options=self.solver_options)
            self.objective_ = float(sol.objective)
            self.mip_gap_ = float(sol.gap)
            self.status_ = _cut_status(self, sol, float(self.tol), budget.expired(), quiet_time_limit=True)
            if self.status_ == "time_limit":
                budget.cut(f"the cutting planes and their MILP certificate (certified relative gap "
                           f"{self.mip_gap_:.2g})")
            self._report_cut_limits(sol, budget)
            self._warn_if_zero(X, C, sw)
            budget.finish(self)
            return self
        log = SolveLimits(budget.deadline, self.solver_options)
        res, _ = solve_fs_svm(X, ys, Cw, B, time_limit=budget.remaining_or_none(), mip_gap=self.mip_gap,
                              options={**seed, **(self.solver_options or {})}, limits=log)
        sol, status, gap = res.solution, res.status, res.gap
        if not res.ran:
            budget.cut("the MILP (not started: its start LPs used the time; their point, cut to the budget, is "
                       "used)")
        elif status == "time_limit":
            budget.cut(f"the MILP (relative gap {gap:.3g}; the best solution found is used)")
        elif status == "limit":
            log.note("the MILP", res.highs_status)
        log.report("FeatureBudgetSVC", budget)
        self._set_solution(X, ys, sol)
        self.objective_ = hinge_objective(X, ys, self.coef_[0], self.intercept_[0], Cw)
        self.status_ = status
        self.n_iter_ = 1
        if status == "optimal":
            self.lower_bound_, self.mip_gap_ = self.objective_, 0.0
        else:  # the best certified bound: the MILP's dual bound or the (SVM-l1) LP's
            self.lower_bound_ = min(float(res.dual_bound), self.objective_)
            self.mip_gap_ = max(0.0, (self.objective_ - self.lower_bound_) / max(abs(self.objective_), 1e-12))
        self._warn_if_zero(X, C, sw)
        budget.finish(self)
        return self
