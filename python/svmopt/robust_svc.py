"""RobustSVC: the robust nonlinear SVM of Maggioni & Spinelli (paper 000) as a scikit-learn classifier.

Model (paper 000, Sections 3.2.3, 4 and 5, eqs. (6)-(27)). With Gram matrix ``K``, labels ``y`` in {-1, +1}
(class A = +1) and per-point feature-space bounds ``delta_i >= 0``, solve the LP

    (23)  min_{u, gamma, xi}  ||u||_1 + nu sum_i xi_i
          s.t.  y_i sum_j K_ij y_j u_j - delta_i sum_j sqrt(K_jj) |u_j| >= 1 - xi_i + y_i gamma,   xi >= 0

(``delta = 0`` is the deterministic G-SVM (6) with q = 1) with ``|u_j|`` linearised as ``u = u+ - u-``
(``u+, u- >= 0``; exact, as every optimum has ``min(u+_j, u-_j) = 0``),
assembled by the C++ core in one pass over ``K`` and solved by HiGHS (:mod:`svmopt.highs`). Then

* scores ``f_i = (K D u)_i``, ``S = sum_j sqrt(K_jj) |u_j|`` and robust scores ``s_i = f_i - y_i delta_i S``;
* ``xi`` recomputed as the hinge ``max(0, 1 - y_i (s_i - gamma))``, not the solver's ``xi``
  (decision: solver tolerances can make the returned ``xi`` slightly larger, which would shift omega);
* ``omega_A = max_{i in A} xi_i``, ``omega_B = max_{i in B} xi_i``  (9);
* the threshold ``b`` minimising the training misclassification count (10)/(27) over the interval, by the
  paper's grid of Section 6 (``line_search="grid"``, ``n_grid`` points) or our exact O(m log m) search over
  the scores in the interval (``"exact"``, never worse than the grid); ``"exact_decision"`` counts ties with the
  test-time rule (a class-A point with ``s_i = b`` is an error, whereas (10)/(27) count it as correct).
  Decision (ties): among the minimisers of (10)/(27), ``"exact"`` prefers a threshold strictly between two
  distinct scores (the midpoint of the best open piece), so that no training point lies on ``b`` and the
  reported count is also the count of the decision rule whenever the minimum allows it; the grid rarely lands
  on a score, and taking a breakpoint itself would misclassify the A points tied with it at prediction time.

Decision (no delta at test time): ``f(x) - b = sum_j k(x, x_j) y_j u_j - b``; class A iff ``> 0``.

At scale (``n_landmarks``): the same LP with the surface expanded over L landmarks, ``f(x) = sum_j k(x, z_j) v_j``,
every training row still a constraint (:mod:`svmopt._robust_reduced`), solved by HiGHS directly or by exact cutting
planes whose cost per iteration is one pass over the data (``solver``); the threshold is then chosen exactly as above.

Interval orientation -- the paper's printed interval is the mirror image about gamma of
the strip that satisfies its own properties (P1)-(P3) (Section 4; the strip holding the class overlap is
``[lowest A score, highest B score]``):

* ``interval="paper"`` (default; decision: the printed interval, the one that produced the published tables):
  ``[gamma + 1 - omega_B, gamma - 1 + omega_A]``. It also gives the majority-class predictor when the
  robust LP collapses to ``u = 0`` (``b = -2`` or ``+2``).
* ``interval="corrected"``: ``[gamma + 1 - omega_A, gamma - 1 + omega_B]`` widened by
  ``1e-9 * max(1, |gamma|)`` on both sides (rounding of the extreme scores).
* ``interval="unbounded"``: all real ``b`` (exact searches only); an ablation.

With ``"corrected"`` and ``"unbounded"`` the count uses the decision rule's ties (a class-A point on the
threshold is an error). Decision: with the paper's ties the degenerate solution ``u = 0`` (all
scores 0) would score 0 training errors at ``b = 0`` and win the nu selection while predicting one class.

Uncertainty (Section 5.1, eqs. (11)-(21)): ``x_i`` may move to ``x_i + sigma`` with ``||sigma||_p <= eta_i``;
``delta_i`` comes from Lemma 1's constant ``C(n, p)`` (16) and the kernel bounds (18) linear, (19) inhomogeneous and
(20) homogeneous polynomial, (21) Gaussian RBF, all with ``e_i = C(n,p) eta_i`` and ``r_i = ||x_i||_2``.
The sigmoid kernel has no bound and is refused in robust mode. Note that C(n,1) = C(n,2) = 1, so p = 1 and
p = 2 give the same model (Section 6 nevertheless reports both).

Ambiguities decided here (documented and tested):

* ``nu="grid"``: ``logspace(-3, 0, 5)``; the ``nu`` with the strictly smallest (robust) training count
  wins, the smallest ``nu`` on ties (the paper only says "minimizing the misclassification error on the training
  set"). The LP is passed to HiGHS once and only the ``xi`` costs change (``changeColsCost``); the re-solves
  start cold, which measured faster than from the previous basis (docs/performance.md).
  Small problems (``lp_solver="auto"``, m <= ``DENSE_LP_MAX_M``) use the core's certified dense simplex
  instead, warm-started across the grid (HiGHS's per-solve overhead dominates there).
* ``rho`` rule (Section 6): ``eta_class = rho * max_j std_{j, class}`` (ddof=1) on the training data the
  estimator sees (in a Pipeline: the transformed data; decision: the space the kernel sees, not stated in the paper). A
  class with one training point has std 0.
* ``alpha="auto"`` / ``c="auto"``: max feature std (ddof=1) of the training data; when every feature is
  constant the scale is 1 (decision: a zero denominator is replaced by 1), never 0 or NaN.
* More than two classes: one-vs-rest, one binary problem per class (its class = A), prediction by the
  largest ``f_l(x) - b_l``. For per-class ``eta`` in one-vs-rest each point keeps its own class's value;
  with ``rho`` the "rest" group's std is used for the B side.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, column_or_1d, validate_data

from svmopt._config import get_memory_budget
from svmopt._robust_fit import (
    DENSE_LP_MAX_M,
    LINE_SEARCHES,
    LP_SOLVERS,
    NU_GRID,
    BinaryFit,
    fit_binary,
    fit_binary_reduced,
    line_search_objective,
)
from svmopt._robust_model import (
    INTERVALS,
    eta_from_rho,
    lemma1_constant,
    robust_delta,
    threshold_interval,
)
from svmopt._validation import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    Integral,
    Interval,
    Real,
    StrOptions,
    fit_context,
    is_finite_real,
)
from svmopt.distributed import check_dask_array, is_dask_array, map_row_chunks
from svmopt.kernels import KERNEL_NAMES, Kernel

__all__ = [
    "DENSE_LP_MAX_M",
    "LP_SOLVERS",
    "NU_GRID",
    "BinaryFit",
    "RobustSVC",
    "eta_from_rho",
    "fit_binary",
    "lemma1_constant",
    "line_search_objective",
    "robust_delta",
    "threshold_interval",
]

logger = logging.getLogger(__name__)

#: ``n_landmarks="auto"`` keeps the paper's model up to this many training rows: its LP (23) has ~2 m^2 nonzeros, and
#: a fit (RBF, d = 20, one nu) took 0.5 s at 500 rows, 2.7 s at 1,000 and 179 s at 2,000 (docs/performance.md).
AUTO_MAX_ROWS = 1000
#: Landmarks of the reduced model under ``n_landmarks="auto"`` (at most the number of training rows).
AUTO_LANDMARKS = 500
SOLVERS = ("auto", "lp", "cutting_plane")
LANDMARK_METHODS = ("entropy", "kmeans", "random")


def _finite(M: np.ndarray, what: str) -> np.ndarray:
    if not np.all(np.isfinite(M)):
        raise ValueError(f"non-finite entries in {what}; rescale X (e.g. StandardScaler) or lower the degree")
    return M


# ------------------------------------------------------------------------------------------ the estimator
class RobustSVC(ClassifierMixin, BaseEstimator):
    """Robust nonlinear SVM of Maggioni & Spinelli (LP (23) + line search (27)); see the module docstring.

    Parameters
    ----------
    kernel : {"linear", "poly", "inhom_poly", "rbf", "sigmoid"} or svmopt.Kernel, default="rbf"
        Table 2 of the paper; ``poly`` is homogeneous ``<x,z>^d``, ``inhom_poly`` is ``(c + <x,z>)^d``.
        A :class:`svmopt.Kernel` is used as given (``degree``, ``c``, ``alpha`` are then ignored).
    degree : int, default=1
        Polynomial degree ``d >= 1``.
    c : float >= 0 or "auto", default="auto"
        Offset of ``inhom_poly``; ``"auto"`` = max feature std (ddof=1) of the training data.
    alpha : float > 0 or "auto", default="auto"
        RBF width in ``exp(-||x - z||^2 / (2 alpha^2))``; ``"auto"`` as for ``c``.
    nu : float > 0, sequence of floats, or "grid", default=1.0
        Weight of the slacks. ``"grid"`` = ``logspace(-3, 0, 5)`` selected by training error (smallest nu on
        ties); a sequence is searched the same way in the given order.
    p : float in [1, inf], "inf" or None, default=None
        Norm of the uncertainty set (11); ``None`` = deterministic model (6).
    eta : float, array (n_samples,), dict {class label: float}, or None
        Input-space perturbation bound per sample (or per class). Requires ``p``; exclusive with ``rho``.
    rho : float >= 0 or None
        Paper rule ``eta_class = rho * max_j std_{j,class}`` (ddof=1). Requires ``p``; exclusive with ``eta``.
        With ``p`` set and neither ``eta`` nor ``rho``, eta = 0 (the deterministic model).
    line_search : {"exact", "grid", "exact_decision"}, default="exact"
        Threshold search of (10)/(27): exact O(m log m) (never worse than the grid), the paper's grid of
        ``n_grid`` points, or exact with ties counted by the test-time rule.
    n_grid : int >= 2, default=10_000
        Points of the grid search (MATLAB ``linspace``: ``n_grid`` points from ``lo`` to ``hi``, the paper's code
        uses 10^4 points; decision: the first strict improvement wins, starting from ``b = gamma``).
    interval : {"paper", "corrected", "unbounded"}, default="paper"
        Interval of the line search (see the module docstring). ``"unbounded"`` needs an exact line search.
    solver_options : dict or None
        HiGHS options (e.g. ``{"time_limit": 10}``) over :data:`svmopt.highs.DEFAULT_OPTIONS`.
    lp_solver : {"auto", "highs", "dense"}, default="auto"
        LP solver of (23): HiGHS, or the core's dense primal simplex (fast on small problems, warm-started across
        ``nu``, every answer certified optimal on the original data, HiGHS when the certificate fails).
        ``"auto"``: dense for at most :data:`DENSE_LP_MAX_M` training points per binary problem when
        ``solver_options`` is not given, HiGHS otherwise. Both reach the optimal objective; on degenerate LPs
        they may pick different optimal ``u`` (and so a different classifier of the same LP value).
    n_landmarks : int >= 1, "auto" or None, default=None
        ``None``: the paper's model, the surface expanded over every training point. An int: the reduced model, the
        surface ``f(x) = sum_j k(x, z_j) v_j`` over that many landmarks ``z_j`` with every training row still a
        constraint (the robust term becomes ``delta_i sum_j sqrt(k(z_j, z_j)) |v_j|``); it never forms the m x m
        Gram matrix. ``"auto"``: the paper's model up to :data:`AUTO_MAX_ROWS` training rows, else
        :data:`AUTO_LANDMARKS` landmarks (logged; ``model_`` says which); with ``landmarks`` given as points, the
        reduced model over them.
    landmarks : {"entropy", "kmeans", "random"} or array (L, n_features), default="entropy"
        How the reduced model's landmarks are chosen: the Rényi-entropy prototypes of the fixed-size LS-SVM
        (training rows), k-means centres, a uniform sample of training rows, or the given points.
    solver : {"auto", "lp", "cutting_plane"}, default="auto"
        ``"lp"``: the LP passed to HiGHS as it is (for the paper's model: LP (23) through ``lp_solver``; for the
        reduced model: n x L dense rows). ``"cutting_plane"``: the exact cutting-plane solver over the landmarks
        (the training points themselves under ``n_landmarks=None``), one pass over the data per iteration, cuts kept
        across the ``nu`` grid, stopped at a certified relative gap ``tol``. ``"auto"``: ``"lp"`` for the paper's
        model, ``"cutting_plane"`` for the reduced one.
    tol : float > 0, default=1e-6
        Certified relative gap at which the cutting planes stop.
    max_iter : int >= 1, default=1000
        Passes over the data per ``nu`` for the cutting planes; reaching it is a ``ConvergenceWarning`` (the model
        is usable, its objective within the reported gap).
    random_state : int, RandomState instance or None, default=None
        Seeds the landmark selection.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        ``classes_[1]`` is class A (+1) in the binary case.
    support_ : ndarray of int
        Indices of the expansion points with a nonzero coefficient (union over classes for one-vs-rest): training
        points for the paper's model, rows of ``landmarks_`` for the reduced model.
    support_vectors_ : ndarray (n_SV, n_features)
        The expansion points of ``support_``.
    dual_coef_ : ndarray (n_problems, n_SV)
        The coefficients on the support: ``y_j u_j`` (paper's model) or ``v_j`` (reduced model); one row per binary
        problem.
    intercept_ : ndarray (n_problems,)
        The threshold ``b``; note the paper's sign: ``decision = K(x, SV) @ dual_coef_.T - intercept_``.
    gamma_ : ndarray (n_problems,)
        LP offset ``gamma`` (surface S_0 of (8)).
    omega_ : ndarray (n_problems, 2)
        ``(omega_A, omega_B)`` of (9).
    nu_ : ndarray (n_problems,)
        Selected ``nu``.
    delta_ : ndarray (n_problems, n_samples)
        Feature-space bounds used (zeros for the deterministic model).
    training_error_ : ndarray (n_problems,)
        Training misclassification rate at ``b`` (robust count for the robust model).
    kernel_ : svmopt.Kernel
        The resolved kernel.
    fit_path_ : list of list of dict
        Per problem, one record per ``nu`` tried (objective, count, b, iterations, solve time, status).
    objective_, lower_bound_ : ndarray (n_problems,)
        The LP objective at the selected ``nu`` and a certified lower bound on its optimum (equal for HiGHS's LP).
    n_iter_ : ndarray (n_problems,)
        Simplex iterations (LP) or passes over the data (cutting planes) at the selected ``nu``.
    model_ : {"paper", "reduced"}
        The model fitted: the expansion over every training point, or over ``landmarks_``.
    landmarks_ : ndarray (L, n_features) or None
        The reduced model's landmarks (None for the paper's model). ``support_`` then indexes its rows.
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    svmopt.Kernel : The kernels of Table 2.
    RampLossSVC : A linear SVM with a feature budget and outlier detection (paper 001).
    FixedSizeLSSVC : Fixed-size LS-SVM classification for large data sets (paper 002).

    References
    ----------
    .. [1] F. Maggioni and A. Spinelli, "A Robust Optimization Model for Nonlinear Support Vector Machine",
       arXiv:2306.06223, 2023.

    Examples
    --------
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmopt import RobustSVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    >>> clf = make_pipeline(StandardScaler(), RobustSVC(kernel="linear", p=2, rho=1e-2)).fit(X_tr, y_tr)
    >>> clf[-1].classes_.tolist()
    ['B', 'M']
    >>> clf.score(X_te, y_te) > 0.9
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [StrOptions(set(KERNEL_NAMES)), Kernel],
        "degree": [POSITIVE_INT],
        "c": [StrOptions({"auto"}), NONNEGATIVE],
        "alpha": [StrOptions({"auto"}), POSITIVE],
        "nu": [StrOptions({"grid"}), POSITIVE, "array-like"],  # a sequence: every value checked in fit
        "p": [None, StrOptions({"inf", "infinity"}), Interval(Real, 1, None, closed="both")],
        "eta": [None, NONNEGATIVE, Mapping, "array-like"],  # per class / per sample: checked against y in fit
        "rho": [None, NONNEGATIVE],
        "line_search": [StrOptions(set(LINE_SEARCHES))],
        "n_grid": [Interval(Integral, 2, None, closed="left")],
        "interval": [StrOptions(set(INTERVALS))],
        "solver_options": [Mapping, None],
        "lp_solver": [StrOptions(set(LP_SOLVERS))],
        "n_landmarks": [None, StrOptions({"auto"}), POSITIVE_INT],
        "landmarks": [StrOptions(set(LANDMARK_METHODS)), "array-like"],
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [POSITIVE],
        "max_iter": [POSITIVE_INT],
        "random_state": ["random_state"],
    }

    def __init__(self, *, kernel: str | Kernel = "rbf", degree: int = 1, c: float | str = "auto",
                 alpha: float | str = "auto", nu: float | str | Sequence[float] = 1.0, p: float | str | None = None,
                 eta: Any = None, rho: float | None = None, line_search: str = "exact", n_grid: int = 10_000,
                 interval: str = "paper", solver_options: Mapping[str, Any] | None = None, lp_solver: str = "auto",
                 n_landmarks: int | str | None = None, landmarks: str | Any = "entropy", solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 1000, random_state: Any = None):
        self.kernel = kernel
        self.degree = degree
        self.c = c
        self.alpha = alpha
        self.nu = nu
        self.p = p
        self.eta = eta
        self.rho = rho
        self.line_search = line_search
        self.n_grid = n_grid
        self.interval = interval
        self.solver_options = solver_options
        self.lp_solver = lp_solver
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    # -- parameters (validated by fit_context against _parameter_constraints) ------------------------
    def _resolved(self) -> tuple[Kernel, np.ndarray, float | None]:
        """(kernel, nu values, p) from the validated parameters, and the checks between parameters."""
        if isinstance(self.kernel, Kernel):
            kern = self.kernel
        else:
            try:
                kern = Kernel(self.kernel, degree=self.degree, c=self.c, alpha=self.alpha)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"RobustSVC: {exc}") from None
        if isinstance(self.nu, str):
            nus = NU_GRID.copy()
        elif is_finite_real(self.nu):
            nus = np.array([float(self.nu)])
        else:
            try:
                nus = np.asarray(self.nu, dtype=np.float64).ravel()
            except (TypeError, ValueError):
                nus = np.array([np.nan])
            if nus.size == 0 or not np.all(np.isfinite(nus)) or np.any(nus <= 0):
                raise ValueError(f"nu must be a number > 0, a non-empty sequence of them, or 'grid', got {self.nu!r}")
        p = self.p
        if p is not None:
            p = np.inf if isinstance(p, str) else float(p)
            if kern.name == "sigmoid":
                raise ValueError("kernel='sigmoid' has no robust bound delta (paper 000 covers linear, polynomial "
                                 "and RBF kernels); use p=None (deterministic model) or another kernel")
        elif self.eta is not None or self.rho is not None:
            raise ValueError("eta and rho need an uncertainty set: set p (1, 2 or 'inf'), or leave eta=rho=None")
        if self.eta is not None and self.rho is not None:
            raise ValueError("give either eta (per sample or per class) or rho (the paper's rule), not both")
        if self.interval == "unbounded" and self.line_search == "grid":
            raise ValueError("interval='unbounded' needs line_search='exact' or 'exact_decision' (a grid needs "
                             "finite ends)")
        return kern, nus, p

    def _eta_vector(self, X: np.ndarray, y_orig: np.ndarray) -> np.ndarray | None:
        """Per-sample eta from ``eta`` (scalar / array / per-class dict); None when rho is used."""
        if self.eta is None:
            return None
        if isinstance(self.eta, Mapping):
            eta = np.full(X.shape[0], np.nan)
            for label, val in self.eta.items():
                eta[y_orig == label] = val
            missing = np.unique(y_orig[np.isnan(eta)])
            if missing.size:
                raise ValueError(f"eta (per-class dict) has no value for class(es) {missing.tolist()}")
        elif is_finite_real(self.eta):
            eta = np.full(X.shape[0], float(self.eta))
        else:
            eta = np.asarray(self.eta, dtype=np.float64)
            if eta.shape != (X.shape[0],):
                raise ValueError(f"eta must be a number, a dict per class or an array of shape ({X.shape[0]},) "
                                 f"(one per training sample), got shape {eta.shape}")
        if not np.all(np.isfinite(eta)) or np.any(eta < 0):
            raise ValueError("eta must be finite and >= 0")
        return eta

    def _landmark_count(self, n: int) -> int | None:
        """L of the reduced model, or None for the paper's model (``n_landmarks``; "auto" decides by ``n``)."""
        if self.n_landmarks is None:
            if not isinstance(self.landmarks, str):
                raise ValueError("landmarks given as points need the reduced model: set n_landmarks (an int or "
                                 "'auto')")
            return None
        if isinstance(self.n_landmarks, str):  # "auto"
            if not isinstance(self.landmarks, str):  # given points: the reduced model over them, at any size
                return int(np.shape(self.landmarks)[0]) if np.ndim(self.landmarks) == 2 else 0
            if n <= AUTO_MAX_ROWS:
                return None
            L = min(AUTO_LANDMARKS, n)
            logger.info("RobustSVC: %d training rows > %d, the reduced model over %d landmarks (n_landmarks='auto')",
                        n, AUTO_MAX_ROWS, L)
            return L
        if int(self.n_landmarks) > n and isinstance(self.landmarks, str):
            raise ValueError(f"n_landmarks={self.n_landmarks} exceeds the {n} training rows to choose them from")
        return int(self.n_landmarks)

    def _select_landmarks(self, X: np.ndarray, L: int) -> np.ndarray:
        """The reduced model's landmarks (L x d): given points, or chosen from X by ``landmarks``."""
        if not isinstance(self.landmarks, str):
            Z = np.asarray(self.landmarks, dtype=np.float64)
            if Z.ndim != 2 or Z.shape[1] != X.shape[1] or Z.shape[0] != L or not np.all(np.isfinite(Z)):
                raise ValueError(f"landmarks must be a finite array of shape (n_landmarks, {X.shape[1]}) = "
                                 f"({L}, {X.shape[1]}), got shape {Z.shape}")
            return np.ascontiguousarray(Z)
        from svmopt._prototypes import MAX_CANDIDATES, select_prototypes  # the fixed-size LS-SVM's selection

        rng = check_random_state(self.random_state)
        if self.landmarks == "random":
            return _take_rows(X, np.sort(rng.choice(X.shape[0], L, replace=False)))
        # As the fixed-size LS-SVM does: the search runs on at most MAX_CANDIDATES rows (a uniform sample above that),
        # so its cost and its copy stay bounded whatever n (for a Dask array, the candidates are gathered; k-means
        # on an in-memory array sees every row).
        n = X.shape[0]
        cand = np.arange(n) if n <= MAX_CANDIDATES else np.sort(rng.choice(n, MAX_CANDIDATES, replace=False))
        if self.landmarks == "kmeans":
            from sklearn.cluster import MiniBatchKMeans

            km = MiniBatchKMeans(n_clusters=L, random_state=rng.randint(2**31 - 1), n_init=1)
            return np.ascontiguousarray(km.fit(_take_rows(X, cand) if is_dask_array(X) else X).cluster_centers_,
                                        dtype=np.float64)
        Xc = X if cand.size == n and not is_dask_array(X) else _take_rows(X, cand)
        idx = select_prototypes(Xc, L, random_state=rng.randint(2**31 - 1))["idx"]
        return np.ascontiguousarray(Xc[np.sort(idx)])

    # -- fit -------------------------------------------------------------------------------------
    @fit_context
    def fit(self, X: Any, y: Any) -> RobustSVC:
        """Fit one LP path per binary problem (one-vs-rest for more than two classes).

        Atomic: on an error or an interrupt the estimator is left as it was before the call."""
        kern, nus, p = self._resolved()
        stds: np.ndarray | None
        if is_dask_array(X):
            X, y, stds = self._dask_data(X, y)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
            y = column_or_1d(y, warn=True)
            stds = None if kern.is_resolved else np.std(X, axis=0, ddof=1)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"RobustSVC needs samples of at least 2 classes in y; got 1 class ({self.classes_[0]!r})")
        if not kern.is_resolved:
            assert stds is not None
            scale = float(np.max(stds)) if stds.size else 0.0
            if not (np.isfinite(scale) and scale > 0):
                scale = 1.0  # every feature constant: a zero denominator becomes 1
            kern = kern.replace(c=scale if kern.c == "auto" else kern.c,
                                alpha=scale if kern.alpha == "auto" else kern.alpha)
        self.kernel_ = kern
        eta_all = self._eta_vector(X, y)
        problems = [self.classes_[1]] if self.classes_.size == 2 else list(self.classes_)
        L = self._landmark_count(X.shape[0])
        solver = self.solver if self.solver != "auto" else ("lp" if L is None else "cutting_plane")
        if is_dask_array(X):
            if L is None and X.shape[0] > AUTO_MAX_ROWS:
                raise ValueError(f"X is a Dask array of {X.shape[0]} rows: the paper's model (n_landmarks=None) needs "
                                 f"the {X.shape[0]} x {X.shape[0]} Gram matrix in memory; set n_landmarks (an int or "
                                 "'auto') for the reduced model, which reads the chunks where they are")
            if L is None:  # a small array: the paper's model, in memory
                X = np.ascontiguousarray(X.compute(), dtype=np.float64)
            elif solver == "lp":
                raise ValueError("solver='lp' passes the reduced LP to HiGHS as it is, with the n x L kernel rows in "
                                 "memory; for a Dask array use solver='cutting_plane' (or 'auto')")
        paper_lp = solver == "lp" and L is None  # LP (23) on the Gram matrix; else the reduced form over Z
        Z = X if L is None else self._select_landmarks(X, L)
        rows: dict[str, Any] = {}
        if paper_lp:
            K = _finite(kern.gram(X), "the Gram matrix")
        else:
            r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
            if not is_dask_array(X) and (solver == "lp" or X.shape[0] * Z.shape[0] * 8 <= get_memory_budget() // 2):
                rows = {"Phi": _finite(kern.cross(X, Z), "the kernel rows")}  # cached: within half the budget
            else:  # recomputed block by block at every pass (a Dask array's by the workers that hold the chunks)
                rows = {"X": X, "Z": Z, "params": kern.core_params}
        fits: list[BinaryFit] = []
        deltas = []
        for label in problems:
            yb = np.where(y == label, 1.0, -1.0)
            if p is None:
                delta = None
            else:
                eta = eta_from_rho(X, yb, float(self.rho)) if self.rho is not None else eta_all
                if eta is None:
                    eta = np.zeros(X.shape[0])
                delta = robust_delta(kern, X, eta, p)
            if paper_lp:
                fits.append(fit_binary(K, yb, delta=delta, nus=nus, line_search=self.line_search, n_grid=self.n_grid,
                                       interval=self.interval, solver_options=self.solver_options,
                                       lp_solver=self.lp_solver))
            else:
                fits.append(fit_binary_reduced(yb, r, delta=delta, nus=nus, solver=solver, tol=self.tol,
                                               max_iter=self.max_iter, line_search=self.line_search,
                                               n_grid=self.n_grid, interval=self.interval,
                                               solver_options=self.solver_options, **rows))
            deltas.append(np.zeros(X.shape[0]) if delta is None else delta)
        U = np.stack([f.u for f in fits])  # (n_problems, number of expansion points)
        if paper_lp:  # LP (23)'s u: the coefficients are y_j u_j
            del K
            U = np.stack([np.where(y == label, 1.0, -1.0) for label in problems]) * U
        support = np.flatnonzero(np.any(U != 0.0, axis=0))
        self.model_ = "paper" if L is None else "reduced"
        self.landmarks_ = None if L is None else Z
        self.support_ = support
        self.support_vectors_ = Z[support].copy()
        self.dual_coef_ = U[:, support]
        self.intercept_ = np.array([f.b for f in fits])
        self.gamma_ = np.array([f.gamma for f in fits])
        self.omega_ = np.array([f.omega for f in fits])
        self.nu_ = np.array([f.nu for f in fits])
        self.delta_ = np.stack(deltas)
        self.training_error_ = np.array([f.training_count / X.shape[0] for f in fits])
        self.objective_ = np.array([f.objective for f in fits])
        self.lower_bound_ = np.array([f.lower_bound for f in fits])
        self.n_iter_ = np.array([f.n_iter for f in fits])
        self.fit_path_ = [f.path for f in fits]
        return self

    def _dask_data(self, X: Any, y: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        """A Dask X as the reduced model reads it: checked (2-D, known row chunks, finite) and its column standard
        deviations (ddof=1) computed by the workers in one pass; y gathered (n labels)."""
        import dask
        import dask.array as da

        X = check_dask_array(X).astype(np.float64)
        y = column_or_1d(np.asarray(y.compute() if is_dask_array(y) else y), warn=True)
        n = X.shape[0]
        if y.shape[0] != n:
            raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
        if n < 2:
            raise ValueError(f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of 2 is required.")
        stds, finite = dask.compute(X.std(axis=0, ddof=1), da.isfinite(X).all())
        if not bool(finite):
            raise ValueError("Input X contains NaN or infinity.")
        self.n_features_in_ = int(X.shape[1])
        self.__dict__.pop("feature_names_in_", None)
        return X, y, np.asarray(stds, dtype=np.float64)

    # -- prediction ------------------------------------------------------------------------------
    def _raw(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        if is_dask_array(X):  # chunk by chunk where the chunks are, gathered here (n x n_problems)
            return map_row_chunks(self, "_raw", X, self.dual_coef_.shape[0])
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.support_.size == 0:
            f = np.zeros((X.shape[0], self.dual_coef_.shape[0]))
        else:
            f = self.kernel_.matvec(X, self.support_vectors_, self.dual_coef_.T)
        return f - self.intercept_

    def decision_function(self, X: Any) -> np.ndarray:
        """``sum_j k(x, x_j) y_j u_j - b`` over the support (shape (n,) for two classes, else (n, n_classes)).

        Evaluated by the core's kernel-times-vector, so no cross-Gram is stored.
        """
        f = self._raw(X)
        return f[:, 0] if self.classes_.size == 2 else f

    def predict(self, X: Any) -> np.ndarray:
        """Class A (``classes_[1]``) iff ``f(x) - b > 0`` (binary); largest ``f_l(x) - b_l`` otherwise."""
        f = self._raw(X)
        if self.classes_.size == 2:
            return self.classes_[(f[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]


def _take_rows(X: Any, idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` (sorted) of X as a float64 array (of a Dask array: read from the chunks that hold them)."""
    rows = X[idx]
    return np.ascontiguousarray(rows.compute() if is_dask_array(rows) else rows, dtype=np.float64)
