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
  (:mod:`svmopt.ramp.cccp`): no binary per row, so it runs on millions of rows (numpy, float64 memmap or Dask,
  its chunks dense or scipy sparse). A local method: no lower bound, ``status_ = "local"``.
* Every method takes a scipy sparse X (CSR/CSC), never densified: the LP/MILP rows from its nonzeros, CCCP's passes
  by CSR products, Algorithm 1's column bounds and diameters over the stored values (:mod:`svmopt.ramp.sparse_rows`).
* ``method="auto"`` (default): ``"cccp"`` (``"heuristic"`` up to ``AUTO_CCCP_ROWS`` rows, 0 by default).

The comparison models :class:`svmopt.ramp.estimators.L1SVC` and :class:`svmopt.ramp.estimators.FeatureBudgetSVC`
share this estimator's base (:class:`svmopt.ramp.estimators.BinaryLinearClassifier`) and conventions.

``fit`` reads: the parameters resolved (a :class:`RampPlan`), the rows validated, C selected (``C="auto"``), the
method picked, then the solve of one :class:`RampProblem` (CCCP, or Algorithm 1 with the MILP or DAKS) and the
fitted attributes set from its solution.

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
  HiGHS limit passed through ``solver_options``, e.g. ``mip_max_nodes``, stopped a solve of any method; warned,
  naming the stage) or "heuristic".
* ``max_time`` (seconds) covers the whole fit: every LP and MILP (Algorithm 1's, the MILP, DAKS's, the polishing
  LPs) gets what is left of it. ``None``: no limit for ``"exact"``; 1800 s for the heuristic (the paper leaves
  DAKS's termination to the user). A stage at its limit returns its best usable point, never an error: every
  ``(w, b)`` is feasible in canonical form, so Algorithm 1's initial solution at a limit is HiGHS's iterate (cut to
  the budget) or the constant model, whichever is better (:mod:`svmopt.ramp.limits`).
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

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.config import warn
from svmopt._shared.dask import chunk_dot, has_sparse_chunks, is_dask_array
from svmopt._shared.highs import merge_options
from svmopt._shared.runtime import TimeBudget, detailed
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    CV,
    POSITIVE_INT,
    SECONDS,
    Interval,
    Real,
    StrOptions,
    fit_context,
)
from svmopt.ramp.bounds import BigM, algorithm1
from svmopt.ramp.cccp import cccp, ramp_values
from svmopt.ramp.daks import DAKSParams, daks
from svmopt.ramp.estimators import (
    BUDGET_CONSTRAINT,
    C_CONSTRAINT,
    MIP_GAP_CONSTRAINT,
    PROBABILITY_CONSTRAINT,
    TOL_CONSTRAINT,
    BinaryLinearClassifier,
    check_budget,
    seed_options,
)
from svmopt.ramp.limits import SolveLimits
from svmopt.ramp.model import RLSolution, ramp_loss_objective, rlfs_objective
from svmopt.ramp.selection import C_GRID, select_C
from svmopt.ramp.solve import MilpProgress, solve_rlfs_mip

__all__ = ["AUTO_CCCP_ROWS", "RampLossSVC", "ramp_loss_objective"]

_BIG_M = ("variant1", "variant2", "auto", "initial")
_METHODS = ("auto", "exact", "heuristic", "cccp")

#: ``method="auto"``: DAKS up to this many rows, CCCP above; 0: CCCP at every size ("exact"/"heuristic" by name).
#: DAKS hit 60 s 46-78% above CCCP's objective at 250-4,000 noisy rows; sonar: 24 s vs CCCP's 0.6 s.
AUTO_CCCP_ROWS = 0


@dataclass
class RampPlan:
    """The resolved parameters of one fit: ``C`` (None for ``C="auto"``: selected by the fit), the seconds for the
    solve (None: no limit; after a selection, what it left), HiGHS's seed option and DAKS's time controls."""

    C: float | None
    time_limit: float | None
    seed: dict
    t_easy: float
    t_fea: float
    t_inc: float
    t_limit: float


@dataclass
class RampProblem:
    """One (RL-FS-M) problem: the rows fitted, ``y`` coded -1/+1, their weights (None: unweighted), C and the
    budget B."""

    X: Any
    y: np.ndarray
    weight: np.ndarray | None
    C: float
    budget: int

    @property
    def costs(self) -> Any:
        """Each row's misclassification weight: ``C w_i``, or C itself when unweighted."""
        return self.C if self.weight is None else self.C * self.weight


@dataclass
class _MilpOutcome:
    """What Algorithm 1 with the MILP, or DAKS, returns to the fitted attributes."""

    bigm: BigM
    initial: RLSolution
    solution: RLSolution
    status: str
    gap: float
    n_iter: int
    lower_bound: float
    daks: dict | None = None
    stage: str = ""  # how a limit that stopped the MILP or DAKS is named (max_time's warning)


def _dot_rows(X: Any, w: np.ndarray) -> np.ndarray:
    """``X @ w`` for an array, a memmap, a scipy sparse matrix (over its nonzeros) or a Dask array of dense or scipy
    sparse chunks (computed where they are)."""
    out: Any = chunk_dot(X, w) if has_sparse_chunks(X) else X @ w
    return np.asarray(out.compute() if is_dask_array(out) else out, dtype=np.float64)


class RampLossSVC(BinaryLinearClassifier):
    """(RL-FS-M): ramp-loss l1-SVM with feature budget and outlier detection (paper 001), a MILP on HiGHS.

    Parameters
    ----------
    C : float or "auto", default 1.0
        Misclassification weight (> 0: Proposition 2.1's big-M needs C > 0). ``"auto"``: the paper's grid
        {0.01, 0.1, 1, 10, 100} (:data:`svmopt.ramp.selection.C_GRID`) compared by held-out errors on ``cv``
        stratified folds of the training rows (at most :data:`svmopt.ramp.selection.SELECT_MAX_ROWS`), each fold
        fitted by CCCP; ties to the C nearest 1. The choice is ``C_``, the held-out error rates ``selection_``.
        Decision: the default stays 1 (the middle of the paper's grid): against scikit-learn's LinearSVC tuned over
        6 values of C it is 0.04 points lower on average over 19 data sets (``benchmarks/results/defaults.md``),
        while ``"auto"`` costs 15 CCCP fits, 56 s at 1,400 rows x 57 features where one fit takes 5 s.
    budget : int or None, default None
        ``B``, the largest number of features, in [1, n_features]; None means no budget, i.e. (RL-l1-M).
    cv : int >= 2, CV splitter or iterable of (train, test) index pairs, default 3
        Folds of ``C="auto"``: an int is that many unshuffled stratified folds; a splitter or explicit index pairs
        (into the rows given to ``fit``; then every row is used, no subsample) are used as given.
    method : {"auto", "heuristic", "exact", "cccp"}, default "auto"
        "exact": Algorithm 1 then the MILP with a MIP start (Sec. 4.2). "heuristic": DAKS (Algorithm 2, Sec. 3).
        "cccp": the concave-convex procedure of Collobert et al. (2006) on the same objective, each convex step by
        cutting planes with one pass over the data per iteration (:mod:`svmopt.ramp.cccp`): for data with too
        many rows for a binary per row; ``X`` may be a float64 ``np.memmap`` or a Dask array (of dense or scipy
        sparse chunks). CCCP finds a local optimum: ``objective_`` is a true (RL-FS) value, but no lower bound is
        known (``mip_gap_`` NaN, ``status_`` "local"). "auto": "cccp" ("heuristic" up to ``AUTO_CCCP_ROWS``
        training rows, 0 by default: the paper's methods are asked for by name); the choice is ``method_``.
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
    verbose : bool or int, default False
        True (or 1): progress bars on stderr -- the exact MILP's share of its gap closed in percent (with
        ``max_time``: the seconds of it spent), the incumbent, dual bound and gap in the postfix; DAKS's phase-2
        passes, each over the features of its ordered list as they are handed out in buckets, the incumbent in the
        postfix; CCCP's steps of each start (at most 50), the ramp objective and its last decrease in the postfix;
        ``C="auto"``'s fold fits -- and the outcome lines on stdout (the C selected, the MILP's status, DAKS's
        stop). 2 or more: also the step-by-step log on stdout (Algorithm 1's loops, DAKS's phases and sub-problems,
        CCCP's steps and starts). False: nothing is printed.
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
    probability : bool, default False
        True: ``predict_proba`` calibrated on 5-fold held-out decision values (argmax = ``predict``; 5 more fits).

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
        warned; also when such a limit stopped a solve of DAKS or CCCP), "heuristic" (DAKS) or "local" (CCCP
        converged: the outlier set repeated).
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
    big_m_ : :class:`svmopt.ramp.bounds.BigM` or None
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

    Notes
    -----
    Scale (decision): as for :class:`L1SVC` (see its Notes; :mod:`svmopt.ramp.magnitude`): X used as given, a
    fitted w = 0 warned with X's magnitude and the remedy (standardize X, or raise C), magnitudes HiGHS cannot
    solve at refused before any work. Limits: every stage returns its best usable point (:mod:`svmopt.ramp.limits`).

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
        "C": [*C_CONSTRAINT, StrOptions({"auto"})], "budget": BUDGET_CONSTRAINT, "method": [StrOptions(set(_METHODS))],
        "max_time": [SECONDS, None], "cv": CV, "class_weight": CLASS_WEIGHT, "warm_start": ["boolean"],
        "big_m": [StrOptions(set(_BIG_M))], "random_state": ["random_state"], "verbose": ["verbose"],
        "delta": [Interval(Real, 0, 1, closed="both")],  # Sec. 3.1.3
        "p": [POSITIVE_INT], "q": [POSITIVE_INT],
        "t_easy": [SECONDS], "t_fea": [SECONDS], "t_inc": [SECONDS], "t_limit": [SECONDS],
        "tau": [Interval(Real, 0, 2, closed="both")],  # a threshold on xi, which lies in [0, 2] (2)
        "mip_gap": MIP_GAP_CONSTRAINT, "fix_dominated": ["boolean"], "max_iter_bigm": [POSITIVE_INT],
        "solver_options": [Mapping, None], "n_init": [POSITIVE_INT], "tol": TOL_CONSTRAINT, "max_iter": [POSITIVE_INT],
        "probability": PROBABILITY_CONSTRAINT}
    _accepts_sparse: ClassVar[bool] = True  # every method: X's nonzeros, never a dense copy of X

    def __init__(self, *, C: float | str = 1.0, budget: int | None = None, method: str = "auto",
                 max_time: float | None = None, cv: Any = 3, big_m: str = "variant1", random_state: Any = None,
                 verbose: bool = False, delta: float = 0.35, p: int = 2, q: int = 2, t_easy: float = 10.0,
                 t_fea: float = 120.0, t_inc: float = 160.0, t_limit: float = 400.0, tau: float = 1.0,
                 mip_gap: float = 0.0, fix_dominated: bool = True, max_iter_bigm: int = 30,
                 solver_options: dict | None = None, n_init: int = 3, tol: float = 1e-6, max_iter: int = 1000,
                 class_weight: Any = None, warm_start: bool = False, probability: bool = False):
        self.probability, self.C = probability, C
        self.budget, self.method = budget, method
        self.warm_start = warm_start
        self.max_time = max_time
        self.class_weight = class_weight
        self.cv = cv
        self.big_m = big_m
        self.random_state = random_state
        self.verbose = verbose
        self.delta = delta
        self.p, self.q = p, q
        self.t_easy, self.t_fea = t_easy, t_fea
        self.t_inc, self.t_limit = t_inc, t_limit
        self.tau = tau
        self.mip_gap = mip_gap
        self.fix_dominated = fix_dominated
        self.max_iter_bigm = max_iter_bigm
        self.solver_options = solver_options
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter

    def _resolved(self) -> RampPlan:
        """The validated parameters as the solvers take them (HiGHS option names checked by merge_options)."""
        merge_options(self.solver_options)
        times = {n: float(getattr(self, n)) for n in ("t_easy", "t_fea", "t_inc", "t_limit")}
        tl = None if self.max_time is None else float(self.max_time)
        C = None if self.C == "auto" else float(self.C)
        return RampPlan(C=C, time_limit=tl, seed=seed_options(self.random_state), **times)

    @fit_context
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RampLossSVC:
        """Fit (RL-FS-M) on ``X`` and two-class ``y`` by Algorithm 1 + MILP, by DAKS or by CCCP (``C="auto"``:
        C selected first by cross-validation, see :func:`svmopt.ramp.selection.select_C`). ``sample_weight`` (times
        ``class_weight``): see the module docstring."""
        plan = self._resolved()
        self._check_probability_input(X)
        given = (X, y, sample_weight)  # probability=True's folds refit on the rows as given
        clock = TimeBudget(plan.time_limit)
        previous = self._previous_fit()
        X, ys, sw = self._validate_rows(X, y, sample_weight)
        B = check_budget(self.budget, X.shape[1])
        self.method_ = self._pick_method(X)
        # every C the fit solves at (C="auto": each of the grid) at magnitudes HiGHS can solve, before any work
        self._check_magnitudes(X, ys, float(C_GRID.max()) if plan.C is None else plan.C, sw, self.solver_options,
                               big_m=None if self.method_ == "cccp" else "ramp")
        self.selection_: dict[str, Any] | None = None
        C = self._select_C(X, ys, sw, plan, clock) if plan.C is None else plan.C
        problem = RampProblem(X, ys, sw, C, B)
        self.C_ = C
        self.cccp_: dict[str, Any] | None = None
        self.big_m_: BigM | None = None
        self.daks_: dict[str, Any] | None = None
        log = SolveLimits(clock.deadline, self.solver_options)
        if self.method_ == "cccp":
            self._fit_cccp(problem, plan, clock, self._warm_point(previous, X.shape[1]), log)
        else:
            self._set_milp(problem, self._solve_milp(problem, plan, clock, log), clock, log)
        if log.report("RampLossSVC", clock) and self.status_ in ("heuristic", "local"):  # type: ignore[has-type]
            self.status_ = "limit"
        self._warn_degenerate(X, sw)
        clock.finish(self)
        self._fit_probability(*given, zero_is_positive=True)
        return self

    def _fold_params(self) -> dict[str, Any]:  # probability=True's folds: this fit's C and method, no selection
        return {"C": self.C_, "method": self.method_, "warm_start": False}

    # ---------------------------------------------------------------------------------------------- resolve
    def _previous_fit(self) -> tuple[np.ndarray, float, np.ndarray] | None:
        """With ``warm_start``, the previous fit's ``(w, b, classes_)``, read before this fit's validation."""
        if self.warm_start and hasattr(self, "coef_"):
            return self.coef_[0].copy(), float(self.intercept_[0]), self.classes_
        return None

    def _warm_point(self, previous: tuple[np.ndarray, float, np.ndarray] | None,
                    d: int) -> tuple[np.ndarray, float] | None:
        """The previous ``(w, b)`` as CCCP's extra start when it has the same features and classes."""
        if previous is not None and previous[0].shape[0] == d and np.array_equal(previous[2], self.classes_):
            return previous[0], previous[1]
        return None

    def _pick_method(self, X: Any) -> str:
        """``method``, with "auto" read as DAKS up to :data:`AUTO_CCCP_ROWS` rows and CCCP above (and for Dask)."""
        if self.method == "auto":
            return "cccp" if is_dask_array(X) or X.shape[0] > AUTO_CCCP_ROWS else "heuristic"
        if is_dask_array(X) and self.method != "cccp":
            raise ValueError(f"method={self.method!r} builds a MILP with a binary per training row in memory; for a "
                             "Dask array use method='cccp' (or 'auto')")
        return self.method

    # ---------------------------------------------------------------------------------------------- select
    def _select_C(self, X: Any, ys: np.ndarray, sw: np.ndarray | None, plan: RampPlan, clock: TimeBudget) -> float:
        """``C="auto"``: :func:`svmopt.ramp.selection.select_C` within half of ``max_time``; ``selection_`` gets the
        held-out error rates, ``plan`` the time left to the solve. Returns the C selected."""
        half = None if clock.max_time is None else clock.start + 0.5 * clock.max_time
        C, selection, stopped = select_C(self, X, ys, sw, kept=self._kept, n_given=self._n_given, deadline=half)
        self.selection_ = selection
        if stopped:
            clock.cut("C='auto''s cross-validation (after half of max_time; the C values not scored on "
                      "every fold were not chosen)")
        if plan.time_limit is not None:
            plan.time_limit = max(1e-3, clock.remaining())
        if self.verbose:
            print(f"[C] selected C = {C:g} by {selection['n_folds']}-fold cross-validation "
                  f"({selection['time_s']:.2f} s)")
        return C

    # ---------------------------------------------------------------------------------------------- solve
    def _solve_milp(self, problem: RampProblem, plan: RampPlan, clock: TimeBudget, log: SolveLimits) -> _MilpOutcome:
        """Algorithm 1's big-Ms (Variant I or II, "auto": I when n <= 600, Sec. 2.6), then the MILP
        (``method="exact"``) or DAKS (``"heuristic"``), within what is left of ``max_time``."""
        n = problem.X.shape[0]
        variant = self.big_m if self.big_m != "auto" else ("variant1" if n <= 600 else "variant2")
        if self.method_ == "exact":
            return self._solve_exact(problem, plan, variant, clock, log)
        return self._solve_daks(problem, plan, variant, clock, log)

    def _solve_exact(self, problem: RampProblem, plan: RampPlan, variant: str, clock: TimeBudget,
                     log: SolveLimits) -> _MilpOutcome:
        """Algorithm 1, then the MILP with its solution as MIP start in the time left (Sec. 4.2); every LP and the
        MILP get what is left of ``max_time`` (``log`` notes the stages a limit stopped)."""
        opts = {**plan.seed, **(self.solver_options or {})}
        bm, init = algorithm1(problem.X, problem.y, problem.costs, problem.budget, variant=variant,
                              max_iter=self.max_iter_bigm, time_limit=clock.remaining_or_none(), options=opts,
                              verbose=detailed(self.verbose), fix_dominated=bool(self.fix_dominated), limits=log)
        remaining = clock.remaining_or_none()
        res = None
        if remaining is None or remaining > 0:
            bar = MilpProgress(self.verbose, remaining)
            try:
                res = solve_rlfs_mip(problem.X, problem.y, problem.costs, problem.budget, bm, start=init,
                                     time_limit=remaining, mip_gap=self.mip_gap, options=opts,
                                     on_bounds=bar if self.verbose else None, limits=log)
            finally:
                bar.close()
        if res is None:
            sol, status, gap, lower = init, "time_limit", float("nan"), float("nan")
            stage = ("the MILP (stopped before its first solution" if remaining is None or remaining > 0 else
                     "the MILP (not started: Algorithm 1 used the time") + "; Algorithm 1's initial solution is used)"
        else:
            sol, status, gap, lower = res.solution, res.status, res.gap, float(res.dual_bound)
            stage = f"the MILP (the best solution found is used: gap {gap:.3g})"
            if status == "limit":
                log.note("the MILP", res.highs_status)
        if self.verbose:
            print(f"[exact] status {status}, objective {sol.objective:.6g}, gap {gap:.3g}")
        return _MilpOutcome(bm, init, sol, status, gap, n_iter=1, lower_bound=lower, stage=stage)

    def _solve_daks(self, problem: RampProblem, plan: RampPlan, variant: str, clock: TimeBudget,
                    log: SolveLimits) -> _MilpOutcome:
        """The Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3) in what is left of ``max_time`` (1800 s when it is
        None)."""
        tl = 1800.0 if plan.time_limit is None else clock.remaining()
        params = DAKSParams(delta=float(self.delta), p=int(self.p), q=int(self.q), t_easy=plan.t_easy,
                            t_fea=plan.t_fea, t_inc=plan.t_inc, t_limit=plan.t_limit, time_limit=tl,
                            tau=float(self.tau), a1_max_iter=min(5, int(self.max_iter_bigm)),
                            fix_dominated=bool(self.fix_dominated))
        r = daks(problem.X, problem.y, problem.costs, problem.budget, params=params, variant=variant,
                 options=self.solver_options, seed_options=plan.seed, verbose=self.verbose, limits=log)
        summary = {"stop_reason": r.stop_reason, "n_phase2": r.n_phase2, "n_subproblems": r.n_subproblems,
                   "ub_history": r.ub_history}
        return _MilpOutcome(r.bigm, r.initial, r.solution, r.status, float("nan"), n_iter=int(r.n_subproblems),
                            lower_bound=float("nan"), daks=summary,
                            stage="the kernel search (the best solution found is used)")

    def _fit_cccp(self, problem: RampProblem, plan: RampPlan, clock: TimeBudget,
                  warm: tuple[np.ndarray, float] | None, log: SolveLimits) -> None:
        """CCCP from the (FS-SVM) start and ``n_init - 1`` perturbations of it (and ``warm``) in what is left of
        ``max_time``; sets the best run (``log`` gets the limits of ``solver_options`` that stopped its masters)."""
        X, ys, sw, C = problem.X, problem.y, problem.weight, problem.C
        # random_state=None draws as 0 does, as for HiGHS' seed: identical input, identical fit
        with warnings.catch_warnings():  # a master stopped at a limit: reported once, by stage (r.limits)
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = cccp(X, ys, C, problem.budget, n_init=int(self.n_init),
                     random_state=0 if self.random_state is None else self.random_state, tol=float(self.tol),
                     max_iter=int(self.max_iter), time_limit=clock.remaining_or_none(),
                     solver_options=self.solver_options, verbose=self.verbose, weight=sw, warm=warm)
        for status in r.limits:
            log.note("CCCP's convex steps (their cutting planes' master problems)", status)
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
            clock.cut(f"CCCP (the best point found is used: objective {self.objective_:.6g})")

    # ---------------------------------------------------------------------------------------------- attributes
    def _set_milp(self, problem: RampProblem, out: _MilpOutcome, clock: TimeBudget, log: SolveLimits) -> None:
        """The MILP's or DAKS's solution as the fitted model (a limit reached is recorded or warned); the MILP's or
        DAKS's stage comes first in max_time's warning, then the stages ``log`` holds."""
        sol, status = out.solution, out.status
        if status == "time_limit" and self.max_time is not None:
            clock.cut(f"{out.stage[:-1]}: objective {sol.objective:.6g})")
        elif status == "time_limit":  # DAKS's own 1800 s without max_time
            warn(f"RampLossSVC: {out.stage[:-1]}: objective {sol.objective:.6g}) at the heuristic's default limit "
                 "of 1800 s; set max_time for another", ConvergenceWarning)
        X, ys = problem.X, problem.y
        self._set_solution(X, ys, sol)
        t = ys * (X @ self.coef_[0] + self.intercept_[0])
        self.outliers_ = self._given_rows(np.flatnonzero(t <= -1.0 + 1e-9))
        self.objective_ = rlfs_objective(X, ys, self.coef_[0], self.intercept_[0], problem.costs)
        self.initial_objective_ = out.initial.objective
        self.mip_gap_ = out.gap
        self.status_ = status
        self.big_m_ = out.bigm
        self.daks_ = out.daks
        self.n_iter_ = out.n_iter
        self.lower_bound_ = out.lower_bound

    def _warn_degenerate(self, X: Any, sw: np.ndarray | None) -> None:
        """A ``UserWarning`` naming the cause when the model is w = 0 (one class for every point; X's magnitude and
        whether w = 0 is certified optimal, :func:`svmopt.ramp.magnitude.warn_zero_model`) or flags every training
        point as an outlier."""
        n = X.shape[0]
        if self.n_selected_features_ == 0:
            self._warn_if_zero(X, self.C_, sw)
        elif self.outliers_.size == n:
            warn(f"RampLossSVC: every training point is flagged as an outlier (y_i f(x_i) <= -1): the labels look "
                 f"inverted or C={self.C_:g} is too small to fit them; check y or raise C", UserWarning)

    def _given_rows(self, idx: np.ndarray) -> np.ndarray:
        """Row indices among the rows fitted as indices into the X given to fit (rows of weight 0 were left out)."""
        return idx if self._kept is None else self._kept[idx]
