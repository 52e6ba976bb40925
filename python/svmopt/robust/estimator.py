"""RobustSVC: the robust nonlinear SVM of Maggioni & Spinelli (paper 000) as a scikit-learn classifier.

Model (paper 000, Sections 3.2.3, 4 and 5, eqs. (6)-(27)). With Gram matrix ``K``, labels ``y`` in {-1, +1}
(class A = +1) and per-point feature-space bounds ``delta_i >= 0``, solve the LP

    (23)  min_{u, gamma, xi}  ||u||_1 + nu sum_i xi_i
          s.t.  y_i sum_j K_ij y_j u_j - delta_i sum_j sqrt(K_jj) |u_j| >= 1 - xi_i + y_i gamma,   xi >= 0

(``delta = 0`` is the deterministic G-SVM (6) with q = 1) with ``|u_j|`` linearised as ``u = u+ - u-``
(``u+, u- >= 0``; exact, as every optimum has ``min(u+_j, u-_j) = 0``),
assembled by the C++ core in one pass over ``K`` and solved by HiGHS (:mod:`svmopt._shared.highs`). Then

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
every training row still a constraint (:mod:`svmopt.robust.reduced`), solved by HiGHS directly or by exact cutting
planes whose cost per iteration is one pass over the data (``solver``); the threshold is then chosen exactly as above.

Interval orientation -- the paper's printed interval is the mirror image about gamma of
the strip that satisfies its own properties (P1)-(P3) (Section 4; the strip holding the class overlap is
``[lowest A score, highest B score]``):

* ``interval="paper"`` (default; decision: the printed interval, the one that produced the published tables):
  ``[gamma + 1 - omega_B, gamma - 1 + omega_A]``. It also gives the majority-class predictor when the
  robust LP collapses to ``u = 0`` at HiGHS's vertex ``gamma = +-1`` (``b = -2`` or ``+2``); with the classes'
  slack costs equal every gamma in [-1, 1] is optimal there, and the interior point or the cutting planes
  return ``gamma = 0``, ``b = 0``: one class for every point, counted as such (below).
* ``interval="corrected"``: ``[gamma + 1 - omega_A, gamma - 1 + omega_B]`` widened by
  ``1e-9 * max(1, |gamma|)`` on both sides (rounding of the extreme scores).
* ``interval="unbounded"``: all real ``b`` (exact searches only); an ablation.

With ``"corrected"`` and ``"unbounded"`` the count uses the decision rule's ties (a class-A point on the
threshold is an error), and so does any interval when every score is the same (``u = 0``, a constant
decision). Decision: with the paper's ties the degenerate solution ``u = 0`` (all scores 0) would score 0
training errors at ``b = 0`` and win the nu selection while predicting one class.

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
* ``alpha="paper"`` / ``c="auto"``: the paper's rule, max feature std (ddof=1) of the training data; when every
  feature is constant the scale is 1 (decision: a zero denominator is replaced by 1), never 0 or NaN.
* Defaults (not the paper's: it picks its configuration and rho on the test split, Section 6, and nu by the
  training count, which always ends at the top of its grid): the RBF width is data-scaled, ``sqrt(d X.var() / 2)``
  (scikit-learn's ``gamma="scale"``), and the width (times 1, 2, 1/2), ``nu`` (``logspace(-2, 2, 5)``) and, when
  several are given, ``rho`` are chosen by held-out errors of stratified folds (:mod:`svmopt.robust.select`).
  Measured against scikit-learn's SVC tuned by a 4 x 4 grid on 15 public data sets no paper table of this model
  uses: 0.48 points lower on average, in 0.96 times the grid search's wall time (``benchmarks/defaults.py``).
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
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, column_or_1d, validate_data

from svmopt._shared.config import get_memory_budget, warn
from svmopt._shared.dask import check_dask_array, column_moments, is_dask_array, map_row_chunks
from svmopt._shared.moments import block_moments, column_stds
from svmopt._shared.runtime import TimeBudget, progress
from svmopt._shared.splits import cv_is_index_pairs, cv_splits, stratified_subsample
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    CV,
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    SECONDS,
    Integral,
    Interval,
    Real,
    StrOptions,
    check_dask_fit_weights,
    check_fit_weights,
    fit_context,
    is_finite_real,
)
from svmopt.kernels import KERNEL_NAMES, Kernel
from svmopt.robust.fit import (
    LINE_SEARCHES,
    LP_SOLVERS,
    MAX_KERNEL_MAGNITUDE,
    NU_GRID,
    BinaryFit,
    fit_binary,
    fit_binary_reduced,
)
from svmopt.robust.model import (
    INTERVALS,
    eta_from_rho,
    robust_delta,
)
from svmopt.robust.select import cross_validate_paths

logger = logging.getLogger(__name__)

#: ``n_landmarks="auto"`` keeps the paper's model up to this many training rows: its LP (23) has ~2 m^2 nonzeros, and
#: a fit (RBF, d = 20, one nu) took 0.5 s at 500 rows, 2.7 s at 1,000 and 179 s at 2,000 (docs/performance.md); the
#: default's cross-validation solves it 3 x 3 x 5 times.
AUTO_MAX_ROWS = 500
#: Landmarks of the reduced model under ``n_landmarks="auto"``: n / 20 within these bounds (at most n).
AUTO_LANDMARKS = 100
AUTO_LANDMARKS_MAX = 500
#: ``solver="auto"`` passes the reduced LP to HiGHS as it is up to this many kernel values n x L, and uses the
#: interior-point method above. Measured on magic (RBF, one solve each): HiGHS was faster only at 200 rows x 10
#: landmarks (3.2 ms against 4.2 ms); the interior point was 1.1-1.8x faster at 200 x 25-100, 1.9-13.3x at 500-1,000
#: rows and 8.4-75.9x at 2,000-5,000 rows, to the same objective within 6.4e-7; on adult alike, on the nearly
#: separable shuttle and letter 0.4-1.6x at 1,000 rows and 1.6-4.4x at 5,000 (docs/performance.md).
DIRECT_LP_MAX_CELLS = 4_000
#: Under ``solver="auto"``, a nu at which the interior-point method stalls short of ``tol`` (nearly dependent kernel
#: rows of large magnitude: a linear or polynomial kernel over more landmarks than its feature space has dimensions)
#: is solved again by HiGHS on the LP as it is, exact, when its kernel rows are in memory and at most this many
#: (HiGHS took 2.1-5.1 s at this size, 5,000 x 100 on magic); above, the stall warns.
STALL_LP_MAX_CELLS = 500_000
SOLVERS = ("auto", "ipm", "lp", "cutting_plane")
LANDMARK_EXACT_BANDWIDTH_ROWS = 500
LANDMARK_METHODS = ("entropy", "kmeans", "random")
#: ``alpha`` rules: cross-validated among :data:`ALPHA_FACTORS` times the data-scaled width, the data-scaled width
#: ``sqrt(n_features * X.var() / 2)`` (scikit-learn's ``gamma="scale"``), the paper's ``max_j std_j``.
ALPHA_RULES = ("auto", "scale", "paper")
#: ``alpha="auto"``: the widths compared, as multiples of the data-scaled one (that one first: it wins ties).
ALPHA_FACTORS = (1.0, 2.0, 0.5)
#: ``rho="grid"``: the values of the paper's rule ``eta = rho * max_j std_j`` compared by cross-validation.
RHO_GRID = np.array([1e-3, 1e-2, 1e-1])
#: ``nu="auto"`` under ``selection="cv"``: the nu compared (the paper's grid ``NU_GRID`` stops at 1, where the
#: training-count rule always ends; held-out errors often fall further, as C does for scikit-learn's SVC).
NU_CV_GRID = np.logspace(-2.0, 2.0, 5)
#: ``selection``: held-out errors on ``cv`` stratified folds, or the paper's training count (nu only).
SELECTIONS = ("cv", "training_error")
#: ``selection="cv"`` draws its folds from a stratified subsample of at most this many training rows (the paper's
#: model: at most :data:`AUTO_MAX_ROWS`); the final fit uses every row.
SELECT_MAX_ROWS = 1000
#: Under ``max_time``, the cross-validation starts no fold solve after this share of it (the rest is the final fit's).
SELECT_TIME_SHARE = 0.75


def _auto_solver(X: Any, L: int | None, warm_start: bool = False) -> str:
    """``solver="auto"``: LP (23) for the paper's model; for the reduced one the LP as it is while its n x L kernel
    values are at most :data:`DIRECT_LP_MAX_CELLS` (in memory), else the interior-point method, or the cutting planes
    under ``warm_start`` (their cuts are what a warm start keeps)."""
    if L is None:
        return "lp"
    if not is_dask_array(X) and X.shape[0] * L <= DIRECT_LP_MAX_CELLS:
        return "lp"
    return "cutting_plane" if warm_start else "ipm"


def _values(name: str, value: Any, rules: str, zero: bool = False) -> np.ndarray:
    """A parameter given as a number or a non-empty sequence of finite numbers > 0 (>= 0 with ``zero``)."""
    try:
        out = np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        out = np.array([np.nan])
    if out.size == 0 or not np.all(np.isfinite(out)) or np.any(out < 0) or (not zero and np.any(out == 0)):
        raise ValueError(f"{name} must be a number {'>=' if zero else '>'} 0, a non-empty sequence of them, or "
                         f"{rules}; got {value!r}")
    return out


def _problem_key(X: Any, yb: np.ndarray, w: np.ndarray | None, Z: np.ndarray, kern: Kernel,
                 delta: np.ndarray | None, solver_options: Mapping[str, Any] | None) -> bytes:
    """A digest of one binary problem of the reduced model (rows, labels, weights, landmarks, kernel, robust
    bounds): ``warm_start`` reuses cuts only for the same digest. A Dask array counts by its graph's name."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    if is_dask_array(X):
        h.update(str(X.name).encode())
    else:
        h.update(np.ascontiguousarray(X).view(np.uint8).reshape(-1).data)
    for a in (yb, w, Z, delta):
        h.update(b"-" if a is None else np.ascontiguousarray(a, dtype=np.float64).view(np.uint8).reshape(-1).data)
    h.update(repr(kern).encode())
    h.update(repr(sorted((solver_options or {}).items())).encode())
    return h.digest()


def _weighted_spread(X: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, float]:
    """The column stds (ddof=1; weighted: ``sum w (x - mean)^2`` over
    :func:`~svmopt._shared.validation.weighted_variance_denominator`) and the variance of all the
    entries of X (its population form, weighted by ``w``), the data statistics of the kernel widths."""
    n = X.shape[0]
    if w is None:
        col_var = X.var(axis=0)
        stds = np.sqrt(col_var * n / (n - 1))
        return stds, (float(col_var.mean() + X.mean(axis=0).var()) if X.shape[1] else 0.0)
    mean, s2, W = block_moments(lambda: [X], X.shape[1], w)
    col_var = s2 / W
    stds = column_stds(s2, n, w)
    return stds, (float(col_var.mean() + mean.var()) if X.shape[1] else 0.0)


def _finite(M: np.ndarray, what: str) -> np.ndarray:
    """M, when every entry is finite and of magnitude below MAX_KERNEL_MAGNITUDE; else a ValueError naming the
    remedy (the same for every solver)."""
    top = float(np.max(np.abs(M))) if M.size else 0.0
    if not np.isfinite(top):
        raise ValueError(f"non-finite entries in {what}; rescale X (e.g. StandardScaler) or lower the degree")
    if top >= MAX_KERNEL_MAGNITUDE:
        raise ValueError(f"{what} reach a magnitude of {top:.3g} (>= {MAX_KERNEL_MAGNITUDE:g}): the LP is too badly "
                         "scaled to solve; rescale X (e.g. StandardScaler) or lower the degree")
    return M


# ------------------------------------------------------------------------------------------ the estimator
class RobustSVC(ClassifierMixin, BaseEstimator):
    """Robust nonlinear SVM of Maggioni & Spinelli (LP (23) + line search (27)); see the module docstring.

    The defaults select the RBF width and ``nu`` by 3-fold cross-validation on the training data and fit the
    paper's model up to :data:`AUTO_MAX_ROWS` rows, its reduced form over landmarks above. The paper's own
    protocol is ``RobustSVC(alpha="paper", nu="grid", selection="training_error", n_landmarks=None)``.
    A fit that ends with every training point on one side warns (``UserWarning``), naming the cause.

    Parameters
    ----------
    kernel : {"linear", "poly", "inhom_poly", "rbf", "sigmoid"} or svmopt.Kernel, default="rbf"
        Table 2 of the paper; ``poly`` is homogeneous ``<x,z>^d``, ``inhom_poly`` is ``(c + <x,z>)^d``.
        A :class:`svmopt.Kernel` is used as given where it fixes a value (``degree``, and ``c`` or ``alpha`` when
        numeric: the estimator's are then ignored); a Kernel's ``"auto"`` width or offset is resolved by the
        estimator's ``c`` and ``alpha`` (``alpha="auto"``: compared by cross-validation).
    degree : int, default=1
        Polynomial degree ``d >= 1``.
    c : float >= 0 or "auto", default="auto"
        Offset of ``inhom_poly``; ``"auto"`` = max feature std (ddof=1) of the training data.
    alpha : float > 0, sequence of floats, "auto", "scale" or "paper", default="auto"
        RBF width in ``exp(-||x - z||^2 / (2 alpha^2))``. ``"scale"``: ``sqrt(n_features * X.var() / 2)``, the
        width of scikit-learn's ``gamma="scale"``; ``"paper"``: the paper's rule, max feature std (ddof=1), a narrow
        kernel once there are more than a few features; ``"auto"``: :data:`ALPHA_FACTORS` times the ``"scale"``
        width compared by ``selection="cv"`` (the ``"scale"`` width under ``selection="training_error"``); a
        sequence is compared by ``selection="cv"``.
    nu : float > 0, sequence of floats, "auto" or "grid", default="auto"
        Weight of the slacks. ``"grid"`` = the paper's ``logspace(-3, 0, 5)`` (:data:`NU_GRID`); ``"auto"`` =
        ``logspace(-2, 2, 5)`` (:data:`NU_CV_GRID`) under ``selection="cv"``, the paper's grid under
        ``"training_error"``. A sequence is searched in ascending order, each value once (``fit_path_`` and
        ``selection_["nu"]`` list them so).
    p : float in [1, inf], "inf" or None, default=None
        Norm of the uncertainty set (11); ``None`` = deterministic model (6).
    eta : float, array (n_samples,), dict {class label: float}, or None
        Input-space perturbation bound per sample (or per class). Requires ``p``; exclusive with ``rho``.
    rho : float >= 0, sequence of floats, "grid" or None
        Paper rule ``eta_class = rho * max_j std_{j,class}`` (ddof=1). Requires ``p``; exclusive with ``eta``.
        With ``p`` set and neither ``eta`` nor ``rho``, eta = 0 (the deterministic model). Several values (a
        sequence, or ``"grid"`` = :data:`RHO_GRID`) are compared by ``selection="cv"``.
    selection : {"cv", "training_error"}, default="cv"
        How the candidate values of ``nu``, ``alpha`` and ``rho`` are compared. ``"cv"``: the held-out errors of
        ``cv`` stratified folds of the training rows (of a stratified subsample of :data:`SELECT_MAX_ROWS` rows
        above that, :data:`AUTO_MAX_ROWS` for the paper's model), each candidate's LP solved exactly on every fold
        (:mod:`svmopt.robust.select`); then one fit on every row. ``"training_error"``: the paper's Pseudocode 1,
        the smallest (robust) training count over the ``nu`` values (one width and one rho only: the training
        count always prefers the narrowest kernel and the smallest rho).
    cv : int >= 2, CV splitter or iterable of (train, test) index pairs, default=3
        Folds of ``selection="cv"``: an int is that many unshuffled stratified folds (fewer when a class has fewer
        rows); a splitter (e.g. ``StratifiedKFold(5, shuffle=True)``) or explicit index pairs (into the rows given
        to ``fit``; with pairs the selection uses every row, no subsample: the reduced model's kernel rows are then
        computed at every pass of the fold solves once they exceed half the memory budget, but for
        ``solver="lp"``, and a Dask ``X`` is gathered, its n x d values) are used as given.
    line_search : {"exact", "grid", "exact_decision"}, default="exact"
        Threshold search of (10)/(27): exact O(m log m) (never worse than the grid), the paper's grid of
        ``n_grid`` points, or exact with ties counted by the test-time rule.
    n_grid : int >= 2, default=10_000
        Points of the grid search (MATLAB ``linspace``: ``n_grid`` points from ``lo`` to ``hi``, the paper's code
        uses 10^4 points; decision: the first strict improvement wins, starting from ``b = gamma``).
    interval : {"paper", "corrected", "unbounded"}, default="paper"
        Interval of the line search (see the module docstring). ``"unbounded"`` needs an exact line search.
    solver_options : dict or None
        HiGHS options (e.g. ``{"time_limit": 10}``) over :data:`svmopt._shared.highs.DEFAULT_OPTIONS`.
    lp_solver : {"auto", "highs", "dense"}, default="auto"
        LP solver of (23): HiGHS, or the core's dense primal simplex (fast on small problems, warm-started across
        ``nu``, every answer certified optimal on the original data, HiGHS when the certificate fails).
        ``"auto"``: dense for at most :data:`DENSE_LP_MAX_M` training points per binary problem when
        ``solver_options`` is not given, HiGHS otherwise. Both reach the optimal objective; on degenerate LPs
        they may pick different optimal ``u`` (and so a different classifier of the same LP value).
    n_landmarks : int >= 1, "auto" or None, default="auto"
        ``None``: the paper's model, the surface expanded over every training point. An int: the reduced model, the
        surface ``f(x) = sum_j k(x, z_j) v_j`` over that many landmarks ``z_j`` with every training row still a
        constraint (the robust term becomes ``delta_i sum_j sqrt(k(z_j, z_j)) |v_j|``); it never forms the m x m
        Gram matrix. ``"auto"``: the paper's model up to :data:`AUTO_MAX_ROWS` training rows, else n / 20
        landmarks, at least :data:`AUTO_LANDMARKS` and at most :data:`AUTO_LANDMARKS_MAX` (logged; ``model_`` says
        which); with ``landmarks`` given as points, the reduced model over them.
    landmarks : {"entropy", "kmeans", "random"} or array (L, n_features), default="entropy"
        How the reduced model's landmarks are chosen: the Rényi-entropy prototypes of the fixed-size LS-SVM
        (training rows), k-means centres, a uniform sample of training rows, or the given points.
    solver : {"auto", "ipm", "lp", "cutting_plane"}, default="auto"
        The reduced model's LP solver. ``"ipm"``: a primal-dual interior-point method (Mehrotra's
        predictor-corrector) whose Newton systems are (L + 1)-square, formed by one weighted pass over the data
        (n L^2 flops) plus two cheaper passes per iteration; each ``nu`` from a cold start, stopped at a certified
        relative gap ``tol`` (a dual-feasible point bounds the optimum from below; with nearly dependent kernel rows
        of large magnitude it can stall near 1e-5, a ``ConvergenceWarning``). ``"cutting_plane"``: exact cutting
        planes, one pass over the data per iteration, cuts kept across the ``nu`` grid (and across fits with
        ``warm_start``), stopped at the same certified gap; under ``n_landmarks=None`` they run over the training
        points themselves. ``"lp"``: the LP passed to HiGHS as it is (for the paper's model: LP (23) through
        ``lp_solver``; for the reduced model: n x L dense rows in memory). ``"auto"``: ``"lp"`` for the paper's model
        and for reduced ones of at most :data:`DIRECT_LP_MAX_CELLS` kernel values, ``"ipm"`` above
        (``"cutting_plane"`` under ``warm_start``); a ``nu`` at which the interior point stalls is solved again by
        HiGHS on the LP as it is when its kernel rows are in memory and at most :data:`STALL_LP_MAX_CELLS` (exact,
        no warning; the record in ``fit_path_`` says so).
    tol : float > 0, default=1e-6
        Certified relative gap at which the interior-point method and the cutting planes stop.
    max_iter : int >= 1, default=1000
        Iterations per ``nu`` of the interior-point method (three passes over the data each; it needed 14-35 from
        10^3 to 10^6 rows) or of the cutting planes (one pass each); reaching it is a ``ConvergenceWarning`` (the
        model is usable, its objective within the reported gap).
    random_state : int, RandomState instance or None, default=None
        Seeds the landmark selection and the subsample of ``selection="cv"`` (the folds are unshuffled).
    class_weight : dict {label: weight}, "balanced" or None, default=None
        Multiplies the sample weights of each class's rows (``"balanced"``: ``W / (n_classes W_c)`` with ``W_c``
        the class's weight sum); see ``fit``'s ``sample_weight`` for where the weights enter.
    max_time : float > 0 or None, default=None
        Seconds the whole ``fit`` may take (None: no limit). The cross-validation starts no fold solve once
        :data:`SELECT_TIME_SHARE` of it is spent (candidates not scored on every fold are not chosen), the ``nu``
        path, the interior point and the cutting planes stop at the deadline with the best model so far, and HiGHS
        gets the time left as its ``time_limit``, except on the first ``nu`` of each binary problem's final fit
        (so that a usable model exists): HiGHS's first LP always runs to its end, and the interior point or the
        cutting planes run on past the deadline until their best point has support (u != 0; their start is
        u = 0), then stop. The landmark selection and the kernel rows are not cut short. Reaching it is a
        ``ConvergenceWarning`` naming what was cut short, and ``max_time_reached_`` is True.
    warm_start : bool, default=False
        Keep the cutting planes' cuts and last solution of each binary problem's final fit, and start the next
        ``fit`` from them when its problem is the same -- the same rows, labels, weights, landmarks, kernel and
        robust bounds (checked by a hash of them) -- as after ``set_params(nu=...)`` or ``set_params(tol=...)``:
        a cut does not depend on ``nu``, so it stays valid (with landmarks drawn at random, ``"entropy"`` included,
        and a subsample for the cross-validation, only a fixed ``random_state`` draws the same ones again). Any
        other problem is solved cold. The kept solver
        state is not pickled. It applies to the cutting planes (which ``solver="auto"`` then uses for the reduced
        model above :data:`DIRECT_LP_MAX_CELLS` kernel values; below, HiGHS solves the LP as it is, in
        milliseconds, with nothing kept); the interior-point method and HiGHS start cold.
    verbose : bool, default=False
        Print the cross-validation's held-out error of every candidate and show a progress bar of the final
        fits (stderr); nothing is printed otherwise.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        ``classes_[1]`` is class A (+1) in the binary case.
    support_ : ndarray of int
        Indices of the expansion points with a nonzero coefficient (union over classes for one-vs-rest): rows of
        the ``X`` given to ``fit`` for the paper's model (``X[support_]`` is ``support_vectors_``), rows of
        ``landmarks_`` for the reduced model.
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
    rho_ : float or None
        Selected ``rho`` (None without the rule).
    selection_ : dict or None
        The cross-validation of ``selection="cv"`` (None when there was nothing to compare or under
        ``"training_error"``): the candidates ``alpha`` (None for a kernel without a width), ``rho`` and ``nu``;
        ``errors``, the held-out error rates of shape (n_alpha, n_rho, n_problems, n_nu): the misclassified
        held-out rows over all the folds' held-out rows, a row counted as often as it is held out (with sample
        weights, their weights); ``n_rows``, ``n_folds`` and ``time_s``.
    delta_ : ndarray (n_problems, n_samples)
        Feature-space bounds used (zeros for the deterministic model), one per training row of positive weight.
    training_error_ : ndarray (n_problems,)
        Training misclassification rate at ``b`` (robust count for the robust model).
    kernel_ : svmopt.Kernel
        The resolved kernel.
    fit_path_ : list of list of dict
        Per problem, one record per ``nu`` tried (objective, lower bound, count, b, iterations, solve time, status,
        solver; after an interior-point stall solved again by HiGHS, ``ipm_stalled`` and ``ipm_passes`` too).
    objective_, lower_bound_ : ndarray (n_problems,)
        The LP objective at the selected ``nu`` and a certified lower bound on its optimum (equal for HiGHS's LP).
    n_iter_ : ndarray (n_problems,)
        At the selected ``nu``: simplex iterations (LP (23)), 1 (the reduced LP passed to HiGHS), or passes over
        the data (interior point, cutting planes).
    model_ : {"paper", "reduced"}
        The model fitted: the expansion over every training point, or over ``landmarks_``.
    landmarks_ : ndarray (L, n_features) or None
        The reduced model's landmarks (None for the paper's model). ``support_`` then indexes its rows.
    max_time_reached_ : bool
        Whether ``max_time`` cut the fit short (the model is then the best found in time).
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
        "alpha": [StrOptions(set(ALPHA_RULES)), POSITIVE, "array-like"],  # a sequence: checked in fit
        "nu": [StrOptions({"auto", "grid"}), POSITIVE, "array-like"],  # a sequence: every value checked in fit
        "p": [None, StrOptions({"inf", "infinity"}), Interval(Real, 1, None, closed="both")],
        "eta": [None, NONNEGATIVE, Mapping, "array-like"],  # per class / per sample: checked against y in fit
        "rho": [None, NONNEGATIVE, StrOptions({"grid"}), "array-like"],
        "selection": [StrOptions(set(SELECTIONS))],
        "cv": CV,
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
        "class_weight": CLASS_WEIGHT,
        "max_time": [SECONDS, None],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
    }

    def __init__(self, *, kernel: str | Kernel = "rbf", degree: int = 1, c: float | str = "auto",
                 alpha: float | str | Sequence[float] = "auto", nu: float | str | Sequence[float] = "auto",
                 p: float | str | None = None, eta: Any = None, rho: float | str | Sequence[float] | None = None,
                 selection: str = "cv", cv: int = 3, line_search: str = "exact", n_grid: int = 10_000,
                 interval: str = "paper", solver_options: Mapping[str, Any] | None = None, lp_solver: str = "auto",
                 n_landmarks: int | str | None = "auto", landmarks: str | Any = "entropy", solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 1000, random_state: Any = None, class_weight: Any = None,
                 max_time: float | None = None, warm_start: bool = False, verbose: bool = False):
        self.kernel = kernel
        self.degree = degree
        self.c = c
        self.alpha = alpha
        self.nu = nu
        self.p = p
        self.eta = eta
        self.rho = rho
        self.selection = selection
        self.cv = cv
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
        self.class_weight = class_weight
        self.max_time = max_time
        self.warm_start = warm_start
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    # -- parameters (validated by fit_context against _parameter_constraints) ------------------------
    def _resolved(self) -> tuple[Kernel, np.ndarray, float | None, list[float | None]]:
        """(kernel, nu values, p, rho values) from the validated parameters, and the checks between parameters.

        The kernel's width is still ``"auto"`` when ``alpha`` is a rule or a sequence (resolved on the data by
        :meth:`_width_candidates`)."""
        if isinstance(self.kernel, Kernel):
            kern = self.kernel
        else:
            try:
                kern = Kernel(self.kernel, degree=self.degree, c=self.c,
                              alpha=float(self.alpha) if is_finite_real(self.alpha) else "auto")
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"RobustSVC: {exc}") from None
        if isinstance(self.nu, str):
            nus = (NU_CV_GRID if self.nu == "auto" and self.selection == "cv" else NU_GRID).copy()
        else:
            # ascending, each value once: the paths solve them in this order, and the ties rules read it ("the
            # smallest nu" under the training count, the larger under the cross-validation)
            nus = np.unique(_values("nu", self.nu, "'auto' or 'grid'"))
        if self.rho is None:
            rhos: list[float | None] = [None]
        else:
            rhos = list(RHO_GRID if isinstance(self.rho, str) else _values("rho", self.rho, "'grid'", zero=True))
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
        if self.selection == "training_error":
            if len(rhos) > 1:
                raise ValueError("selection='training_error' (the paper's rule for nu) cannot compare rho values: "
                                 "the robust training count only grows with rho; give one rho, or selection='cv'")
            if not isinstance(self.alpha, str) and not is_finite_real(self.alpha) and \
                    _values("alpha", self.alpha, "'auto', 'scale' or 'paper'").size > 1:
                raise ValueError("selection='training_error' (the paper's rule for nu) cannot compare kernel widths: "
                                 "the training count prefers the narrowest; give one alpha, or selection='cv'")
        return kern, nus, p, rhos

    def _width_candidates(self, kern: Kernel, stds: np.ndarray, total_var: float) -> list[Kernel]:
        """The resolved kernels to fit: one, or the widths that ``selection="cv"`` compares (``alpha="auto"``)."""
        if kern.is_resolved:
            return [kern]
        paper = float(np.max(stds)) if stds.size else 0.0
        if not (np.isfinite(paper) and paper > 0):
            paper = 1.0  # every feature constant: a zero denominator becomes 1
        scale = float(np.sqrt(stds.size * total_var / 2.0)) if stds.size else 0.0
        if not (np.isfinite(scale) and scale > 0):
            scale = 1.0
        c = paper if kern.c == "auto" else kern.c
        if kern.alpha != "auto" or kern.name != "rbf":  # no width to choose (the paper's c still resolved)
            return [kern.replace(c=c, alpha=paper if kern.alpha == "auto" else kern.alpha)]
        if isinstance(self.alpha, str):
            if self.alpha == "paper":
                widths = [paper]
            elif self.alpha == "scale" or self.selection == "training_error":
                widths = [scale]
            else:  # "auto"
                widths = [scale * f for f in ALPHA_FACTORS]
        else:
            widths = [float(a) for a in _values("alpha", self.alpha, "'auto', 'scale' or 'paper'")]
        return [kern.replace(c=c, alpha=a) for a in widths]

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
            L = min(n, max(AUTO_LANDMARKS, min(AUTO_LANDMARKS_MAX, n // 20)))
            logger.info("RobustSVC: %d training rows > %d, the reduced model over %d landmarks (n_landmarks='auto')",
                        n, AUTO_MAX_ROWS, L)
            return L
        if int(self.n_landmarks) > n and isinstance(self.landmarks, str):
            raise ValueError(f"n_landmarks={self.n_landmarks} exceeds the {n} training rows to choose them from")
        return int(self.n_landmarks)

    def _select_landmarks(self, X: np.ndarray, L: int, rng: np.random.RandomState) -> np.ndarray:
        """The reduced model's landmarks (L x d): given points, or chosen from X by ``landmarks``."""
        if not isinstance(self.landmarks, str):
            Z = np.asarray(self.landmarks, dtype=np.float64)
            if Z.ndim != 2 or Z.shape[1] != X.shape[1] or Z.shape[0] != L or not np.all(np.isfinite(Z)):
                raise ValueError(f"landmarks must be a finite array of shape (n_landmarks, {X.shape[1]}) = "
                                 f"({L}, {X.shape[1]}), got shape {Z.shape}")
            return np.array(Z, dtype=np.float64, order="C")  # a copy: landmarks_ is not the caller's array
        from svmopt._shared.bandwidth import entropy_bandwidths
        from svmopt._shared.prototypes import MAX_CANDIDATES, select_prototypes  # the fixed-size LS-SVM's selection

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
        # The plug-in bandwidths of the entropy criterion (Algorithm 2 of paper 002) on binned sums above
        # LANDMARK_EXACT_BANDWIDTH_ROWS rows: the exact sums cost O(n^2) per feature (5 s at 1,400 rows x 57 features).
        h = entropy_bandwidths(Xc, exact_max_n=LANDMARK_EXACT_BANDWIDTH_ROWS)[0] if Xc.shape[0] >= 2 else None
        idx = select_prototypes(Xc, L, bandwidths=h, random_state=rng.randint(2**31 - 1))["idx"]
        return np.ascontiguousarray(Xc[np.sort(idx)])

    # -- fit -------------------------------------------------------------------------------------
    @fit_context
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> RobustSVC:
        """Select the hyperparameters (``selection``), then fit one LP per binary problem (one-vs-rest for more
        than two classes).

        ``sample_weight`` (n_samples,), finite and >= 0, not all 0 (times ``class_weight``): weights are
        frequencies. Row i's slack costs ``nu w_i xi_i`` in LP (23) (and in the reduced model), the line search
        (10)/(27) and the selection count misclassified weight, and the data statistics -- the ``"scale"`` and
        ``"paper"`` widths and the rho rule's class stds -- are the frequency-weighted ones, so integer weights
        give the model of the rows repeated. The landmarks of the reduced model are chosen among the rows
        without regard to weight. Rows of weight 0 are left out.

        Atomic: on an error or an interrupt the estimator is left as it was before the call."""
        budget = TimeBudget(self.max_time)
        kern, nus, p, rhos = self._resolved()
        w: np.ndarray | None = None
        kept: np.ndarray | None = None
        if is_dask_array(X):
            X, y, w, stds, total_var = self._dask_data(X, y, sample_weight)
            y_given = y  # every row kept: a Dask X takes no weight of 0
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
            y = column_or_1d(y, warn=True)
            y_given = y
            X, y, w, kept = check_fit_weights(X, y, sample_weight, self.class_weight, return_kept=True)
            stds, total_var = _weighted_spread(X, w)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"RobustSVC needs samples of at least 2 classes in y; got 1 class ({self.classes_[0]!r})")
        kernels = self._width_candidates(kern, stds, total_var)
        if is_dask_array(X):
            eta_all = self._eta_vector(X, y)
        else:
            eta_all = self._eta_vector(np.empty((y_given.shape[0], 0)), y_given)
            if eta_all is not None and kept is not None:
                eta_all = eta_all[kept]
        problems = [self.classes_[1]] if self.classes_.size == 2 else list(self.classes_)
        L = self._landmark_count(X.shape[0])
        solver = self.solver if self.solver != "auto" else _auto_solver(X, L, self.warm_start)
        # "auto" only: an interior-point stall solved again by HiGHS (fold solves and the final fit alike)
        stall_lp_cells = STALL_LP_MAX_CELLS if self.solver == "auto" else 0
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
        rng = check_random_state(self.random_state)
        Z = X if L is None else self._select_landmarks(X, L, rng)

        def delta_of(kern: Kernel, Xs: np.ndarray, yb: np.ndarray, rho: float | None,
                     rows: np.ndarray | None) -> np.ndarray | None:
            if p is None:
                return None
            if rho is not None:
                eta = eta_from_rho(Xs, yb, float(rho), None if w is None else (w if rows is None else w[rows]))
            elif eta_all is not None:
                eta = eta_all if rows is None else eta_all[rows]
            else:
                eta = np.zeros(Xs.shape[0])
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
                delta = robust_delta(kern, Xs, eta, p)
            if not np.all(np.isfinite(delta)):
                raise ValueError("the robust bounds delta_i overflow float64: eta (or rho times the features' spread) "
                                 "is too large for these data and this kernel")
            return delta

        # Hyperparameter selection (svmopt.robust.select): the nu path of every width and rho on common folds.
        nu_per_problem: list[np.ndarray] = [nus] * len(problems)
        self.selection_ = None
        if self.selection == "cv" and (len(kernels) > 1 or nus.size > 1 or len(rhos) > 1):
            explicit = cv_is_index_pairs(self.cv)
            if explicit:  # (train, test) pairs index the rows given to fit: every row
                sel_rows = np.arange(y.shape[0])
            else:
                sel_rows = stratified_subsample(y, AUTO_MAX_ROWS if L is None else SELECT_MAX_ROWS, rng)
            Xs = _take_rows(X, sel_rows) if sel_rows.size < X.shape[0] or is_dask_array(X) else X
            folds = cv_splits(self.cv, y[sel_rows], kept if explicit else None,
                              n_given=y_given.shape[0] if explicit and not is_dask_array(X) else None)
            options = {"line_search": self.line_search, "n_grid": self.n_grid, "interval": self.interval,
                       "solver_options": self.solver_options}
            # The folds solve the same LPs exactly: LP (23) on the fold's Gram block for the paper's model, the
            # reduced LP by the solver that "auto" picks at the fold's size (or the one asked for).
            cv_solver = "lp" if L is None else (self.solver if self.solver != "auto" else _auto_solver(Xs, L))
            if L is None:
                options["lp_solver"] = self.lp_solver
            elif cv_solver in ("cutting_plane", "ipm"):
                options.update(tol=self.tol, max_iter=self.max_iter, stall_lp_cells=stall_lp_cells)
            cv_bar = progress(self.verbose, len(kernels) * len(folds), "RobustSVC cross-validation")
            sel = cross_validate_paths(
                Xs, y[sel_rows], problems, kernels, rhos, nus, p=p, Z=None if L is None else Z, folds=folds,
                solver=cv_solver, fit_options=options, weight=None if w is None else w[sel_rows],
                deadline=None if self.max_time is None else budget.start + SELECT_TIME_SHARE * self.max_time,
                bar=cv_bar,
                delta_of=lambda k, Xf, yf, rho, rows: delta_of(k, Xf, yf, rho, sel_rows[rows]))
            cv_bar.close()
            if sel.stopped:
                budget.cut(f"the cross-validation (after {SELECT_TIME_SHARE:g} of max_time; candidates not scored "
                           "on every fold were not chosen)")
            if sel.n_not_converged:
                warn(f"RobustSVC: {sel.n_not_converged} cross-validation solves stopped at max_iter={self.max_iter}; "
                     "they were scored as they were", ConvergenceWarning)
            nu_per_problem = [np.array([v]) for v in sel.nu]
            n_val = sel.n_rows
            held_out = sel.held_out  # the folds' held-out rows (weights), each as often as it is held out
            self.selection_ = {
                "alpha": [k.alpha for k in kernels] if kern.name == "rbf" else None,
                "rho": None if self.rho is None else np.asarray(rhos),
                "nu": nus, "errors": sel.errors / held_out, "n_rows": n_val, "n_folds": sel.n_folds,
                "time_s": sel.seconds}
            logger.info("RobustSVC: selected %s, rho=%s, nu=%s by %d-fold cross-validation on %d rows (%.2f s)",
                        kernels[sel.kernel], rhos[sel.rho], sel.nu.tolist(), sel.n_folds, n_val, sel.seconds)
            if self.verbose:
                self._print_selection(self.selection_, sel.kernel, sel.rho)
            kernels, rhos = [kernels[sel.kernel]], [rhos[sel.rho]]
        kern = kernels[0]
        rho = rhos[0]
        self.kernel_ = kern
        rows: dict[str, Any] = {}
        if paper_lp:
            K = _finite(kern.gram(X), "the Gram matrix")
        else:
            r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
            if not is_dask_array(X) and (solver == "lp" or X.shape[0] * Z.shape[0] * 8 <= get_memory_budget() // 2):
                rows = {"Phi": _finite(kern.cross(X, Z), "the kernel rows")}  # cached: within half the budget
            else:  # recomputed block by block at every pass (a Dask array's by the workers that hold the chunks)
                rows = {"X": X, "Z": Z, "params": kern.core_params}
                if solver == "ipm" and not is_dask_array(X):  # the leading rows that fit half the budget: kept
                    rows["cache_rows"] = (get_memory_budget() // 2) // (8 * max(Z.shape[0], 1))
        fits: list[BinaryFit] = []
        deltas = []
        deadline = budget.deadline
        warm = getattr(self, "_warm_engines", {}) if self.warm_start else {}
        engines: dict[bytes, Any] = {}
        bar = progress(self.verbose, len(problems), "RobustSVC fit")
        for label, nus_p in zip(problems, nu_per_problem, strict=True):
            yb = np.where(y == label, 1.0, -1.0)
            delta = delta_of(kern, X, yb, rho, None)
            if paper_lp:
                fits.append(fit_binary(K, yb, delta=delta, nus=nus_p, line_search=self.line_search,
                                       n_grid=self.n_grid, interval=self.interval, solver_options=self.solver_options,
                                       lp_solver=self.lp_solver, weight=w, deadline=deadline))
            else:
                key = _problem_key(X, yb, w, Z, kern, delta, self.solver_options) \
                    if self.warm_start and solver == "cutting_plane" else b""
                fits.append(fit_binary_reduced(yb, r, delta=delta, nus=nus_p, solver=solver, tol=self.tol,
                                               max_iter=self.max_iter, line_search=self.line_search,
                                               n_grid=self.n_grid, interval=self.interval,
                                               solver_options=self.solver_options, weight=w, deadline=deadline,
                                               lp=warm.get(key) if key else None,
                                               stall_lp_cells=stall_lp_cells, usable=True,
                                               **rows))
                if key:
                    engines[key] = fits[-1].engine
            if fits[-1].stopped:
                budget.cut(fits[-1].stopped + ("" if len(problems) == 1 else f" (problem {label!r} vs rest)"))
            deltas.append(np.zeros(X.shape[0]) if delta is None else delta)
            bar.update()
        bar.close()
        U = np.stack([f.u for f in fits])  # (n_problems, number of expansion points)
        if paper_lp:  # LP (23)'s u: the coefficients are y_j u_j
            del K
            U = np.stack([np.where(y == label, 1.0, -1.0) for label in problems]) * U
        support = np.flatnonzero(np.any(U != 0.0, axis=0))
        self.model_ = "paper" if L is None else "reduced"
        self.landmarks_ = None if L is None else Z
        # the paper's model: indices into the rows given to fit (rows of weight 0 were left out of the LP)
        self.support_ = kept[support] if L is None and kept is not None else support
        self.support_vectors_ = Z[support].copy()
        self.dual_coef_ = U[:, support]
        self.intercept_ = np.array([f.b for f in fits])
        self.gamma_ = np.array([f.gamma for f in fits])
        self.omega_ = np.array([f.omega for f in fits])
        self.nu_ = np.array([f.nu for f in fits])
        self.rho_ = rho
        self.delta_ = np.stack(deltas)
        total_weight = float(X.shape[0]) if w is None else float(w.sum())
        self.training_error_ = np.array([f.training_count / total_weight for f in fits])
        self.objective_ = np.array([f.objective for f in fits])
        self.lower_bound_ = np.array([f.lower_bound for f in fits])
        self.n_iter_ = np.array([f.n_iter for f in fits])
        self.fit_path_ = [f.path for f in fits]
        self._warn_degenerate(fits, problems, deltas)
        self._warm_engines = engines
        budget.finish(self)
        return self

    def __getstate__(self) -> dict:
        """The pickled state: everything but ``warm_start``'s solver state (HiGHS models do not pickle)."""
        state = dict(super().__getstate__())  # a copy: BaseEstimator's may be the instance's own __dict__
        state.pop("_warm_engines", None)
        return state

    def _print_selection(self, sel: dict, ka: int, kr: int) -> None:
        """``verbose``: the held-out error rate of every candidate (best nu per problem), the choice marked."""
        alphas = sel["alpha"] if sel["alpha"] is not None else [None]
        rhos = sel["rho"] if sel["rho"] is not None else [None]
        print(f"[RobustSVC] {sel['n_folds']}-fold cross-validation on {sel['n_rows']} rows, {sel['time_s']:.2f} s; "
              f"held-out error (best nu of {len(sel['nu'])}) per candidate:")
        for a, alpha in enumerate(alphas):
            for r, rho in enumerate(rhos):
                err = sel["errors"][a, r]
                best = ", ".join(f"{e:.4f} at nu={sel['nu'][int(np.argmin(row))]:g}"
                                 for e, row in zip(err.min(axis=1), err, strict=True))
                mark = "  <- selected" if (a, r) == (ka, kr) else ""
                print(f"  alpha={'-' if alpha is None else f'{alpha:.4g}'} rho={'-' if rho is None else rho}: "
                      f"{best}{mark}")

    def _warn_degenerate(self, fits: list[BinaryFit], problems: list[Any], deltas: list[np.ndarray]) -> None:
        """A ``UserWarning`` naming the cause when a binary problem's model gives every training point one class."""
        for fit, label, delta in zip(fits, problems, deltas, strict=True):
            side = fit.scores - fit.b > 0
            if side.all() == side.any():  # one class for every training point
                which = "" if len(problems) == 1 else f" (problem {label!r} vs rest)"
                if not np.any(fit.u != 0.0):
                    if np.any(delta > 0):  # a robust term that is not zero
                        cause = (f"the uncertainty set swallows the margin: with p={self.p!r} the robust term "
                                 f"delta_i * sum_j r_j |u_j| outweighs every gain of u != 0; lower rho (now "
                                 f"{self.rho_!r}) or eta, or raise nu (now {fit.nu:g})")
                    else:
                        cause = (f"nu={fit.nu:g} makes the slacks cheaper than any coefficient; raise nu (or widen "
                                 "the grid)")
                    what = "the LP's solution is u = 0 (no support vectors)"
                else:
                    what = "the surface has support but the threshold b puts every training point on one side"
                    cause = "the training count was lowest with a constant prediction; check the kernel width alpha"
                other = self.classes_[0] if len(problems) == 1 else "rest"
                warn(f"RobustSVC: the fitted model predicts {str(label if side.all() else other)!r} for every training "
                     f"point{which}: {what}; {cause}", UserWarning)

    def _dask_data(self, X: Any, y: Any,
                   sample_weight: Any) -> tuple[Any, np.ndarray, np.ndarray | None, np.ndarray, float]:
        """A Dask X as the reduced model reads it: checked (2-D, known row chunks, finite); y gathered; the weights
        (sample and class; every one must be > 0, rows cannot be left out of a Dask array here); and the data
        statistics of the kernel widths, :func:`_weighted_spread`'s, computed by the workers (one pass unweighted,
        two weighted: :func:`svmopt.fixed_size.dask_engine.column_moments`)."""
        import dask
        import dask.array as da

        X = check_dask_array(X).astype(np.float64)
        y = column_or_1d(np.asarray(y.compute() if is_dask_array(y) else y), warn=True)
        n = X.shape[0]
        if y.shape[0] != n:
            raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
        if n < 2:
            raise ValueError(f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of 2 is required.")
        w = check_dask_fit_weights(y, sample_weight, self.class_weight)
        if w is None:  # one pass
            col_var, col_mean, finite = dask.compute(X.var(axis=0), X.mean(axis=0), da.isfinite(X).all())
            if not bool(finite):
                raise ValueError("Input X contains NaN or infinity.")
            col_var = np.asarray(col_var, dtype=np.float64)
            stds = np.sqrt(col_var * n / (n - 1))
        else:
            col_mean, s2, W = column_moments(X, w)
            col_var = s2 / W
            stds = column_stds(s2, n, w)
        self.n_features_in_ = int(X.shape[1])
        self.__dict__.pop("feature_names_in_", None)
        return X, y, w, stds, (float(col_var.mean() + np.var(col_mean)) if col_var.size else 0.0)

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
