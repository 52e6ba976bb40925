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
  start cold, which measured faster than from the previous basis (docs/performance.md#robustsvc-design-figures).
  Small problems (``lp_solver="auto"``, m <= ``fit.DENSE_LP_MAX_M``) use the core's certified dense simplex
  instead, warm-started across the grid (HiGHS's per-solve overhead dominates there).
* ``rho`` rule (Section 6): ``eta_class = rho * max_j std_{j, class}`` (ddof=1) on the training data the
  estimator sees (in a Pipeline: the transformed data; decision: the space the kernel sees, not stated in the paper). A
  class with one training point has std 0.
* ``alpha="paper"`` / ``c="auto"``: the paper's rule, max feature std (ddof=1) of the training data; when every
  feature is constant the scale is 1 (decision: a zero denominator is replaced by 1), never 0 or NaN.
* Defaults (not the paper's: it picks its configuration and rho on the test split, Section 6, and nu by the
  training count, which always ends at the top of its grid): the candidate RBF widths are the paper's
  ``max_j std_j`` and the data-scaled ``sqrt(d X.var() / 2)`` (scikit-learn's ``gamma="scale"``) times 1, 2, 1/2,
  ``nu`` is ``logspace(-2, 2, 5)``, and these and, when several are given, ``rho`` are chosen by held-out errors of
  stratified folds (:mod:`svmopt.robust.select`): the paper's width and nu = 1 are kept unless another candidate is
  better beyond the noise of the folds (a one-standard-error rule), a constant fold model preferred last. Above
  500 rows the reduced model over n / 10 landmarks (100 to 500). Measured against scikit-learn's SVC tuned by a
  4 x 4 grid (``benchmarks/studies/defaults.py``).
* More than two classes: one-vs-rest, one binary problem per class (its class = A), prediction by the
  largest ``f_l(x) - b_l``. For per-class ``eta`` in one-vs-rest each point keeps its own class's value;
  with ``rho`` the "rest" group's std is used for the B side.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from svmopt._shared.calibration import N_FOLDS, ProbabilityMixin
from svmopt._shared.dask import is_dask_array, map_row_chunks
from svmopt._shared.runtime import TimeBudget
from svmopt._shared.sparse import as_csr, check_sparse_input, is_sparse
from svmopt._shared.splits import cv_is_index_pairs
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
    check_input,
    fit_context,
    is_finite_real,
)
from svmopt.kernels import KERNEL_NAMES, Kernel
from svmopt.robust.data import TrainingData, training_data
from svmopt.robust.diagnostics import warn_degenerate
from svmopt.robust.fit import LINE_SEARCHES, LP_SOLVERS
from svmopt.robust.model import INTERVALS
from svmopt.robust.plan import (
    ALPHA_RULES,
    LANDMARK_METHODS,
    SELECTIONS,
    SOLVERS,
    Plan,
    in_input_units,
    in_units,
    plan_fit,
    resolve_parameters,
)
from svmopt.robust.select import select_by_cv
from svmopt.robust.solve import FinalFit, expansion_points, solve_problems
from svmopt.robust.sparse import sparse_points_matvec


# ------------------------------------------------------------------------------------------ the estimator
class RobustSVC(ProbabilityMixin, ClassifierMixin, BaseEstimator):
    """Robust nonlinear SVM of Maggioni & Spinelli (LP (23) + line search (27)); see the module docstring.

    The defaults select the RBF width and ``nu`` by 3-fold cross-validation on the training data and fit the
    paper's model up to :data:`AUTO_MAX_ROWS` rows, its reduced form over landmarks above. The paper's own
    protocol is ``RobustSVC(alpha="paper", nu="grid", selection="training_error", n_landmarks=None)``.
    A fit that ends with every training point on one side warns (``UserWarning``), naming the cause. A scipy sparse X
    (CSR or CSC) is read over its nonzeros on every path, never densified (:mod:`svmopt.robust.sparse`).

    Scale: with the RBF kernel and a data-driven width (``alpha="auto"``, ``"scale"`` or ``"paper"``; robust bounds
    by ``rho`` rather than an absolute ``eta``) the model does not depend on the scale of X: ``X * c`` (any
    ``c > 0`` with ``X * c`` finite) gives the predictions of X, since the width scales with X and the kernel values,
    the LP and the threshold are those of X (to rounding); beyond :data:`svmopt.robust.data.SAFE_MAGNITUDE`, where
    the squared distances would underflow or overflow, the kernel is evaluated on X over a power of two with the
    width over it (exact; ``kernel_``, ``support_vectors_`` and ``landmarks_`` are in X's units). A numeric
    ``alpha`` or ``eta`` is a length in X's units. The other kernels' values scale with X (the sigmoid's saturate):
    a model that is one class at a small scale warns naming X's magnitude, and kernel values of 1e15 or more (for
    the linear kernel, X beyond about 1e7) are refused, naming it.

    The constants named below are those of :mod:`svmopt.robust.plan` (the defaults resolved for a fit), but
    ``NU_GRID`` and ``DENSE_LP_MAX_M`` (:mod:`svmopt.robust.fit`) and ``SELECT_TIME_SHARE``
    (:mod:`svmopt.robust.select`).

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
        kernel once there are more than a few features; ``"auto"``: the ``"paper"`` width and :data:`ALPHA_FACTORS`
        times the ``"scale"`` width compared by ``selection="cv"``, the paper's kept unless another is better beyond
        the noise of the folds (the ``"scale"`` width under ``selection="training_error"``); a sequence is compared
        by ``selection="cv"`` (the fewest held-out errors, the first given on ties).
    nu : float > 0, sequence of floats, "auto" or "grid", default="auto"
        Weight of the slacks. ``"grid"`` = the paper's ``logspace(-3, 0, 5)`` (:data:`NU_GRID`); ``"auto"`` =
        ``logspace(-2, 2, 5)`` (:data:`NU_CV_GRID`) under ``selection="cv"``, ``nu = 1`` (:data:`PAPER_NU`, where the
        paper's rule ends) kept unless another is better beyond the noise of the folds, then the values nearest it;
        the paper's grid under ``"training_error"``. A sequence is searched in ascending order, each value once
        (``fit_path_`` and ``selection_["nu"]`` list them so).
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
        Gram matrix. ``"auto"``: the paper's model up to :data:`AUTO_MAX_ROWS` training rows, else n / 10
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
    probability : bool, default=False
        Fit a calibration of the decision values after the model (:mod:`svmopt._shared.calibration`), so that
        ``predict_proba`` and ``predict_log_proba`` exist: the held-out decision values of a stratified, shuffled
        5-fold (seeded by ``random_state``) of clones fitted at the hyperparameters this fit selected (its kernel,
        ``nu``, ``rho`` and model: no second selection), mapped by a sigmoid through 1/2 at the threshold with one
        slope on each side (two classes) or a softmax of the one-vs-rest scores with one temperature; the argmax of
        the probabilities is ``predict`` on every row. Costs about five more fits. Needs X as an array (not Dask),
        at least 2 rows of every class, and ``eta`` not given per sample; under ``max_time`` each fold's fit gets
        the time left divided by the folds.
    verbose : bool, default=False
        Print the cross-validation's held-out error of every candidate, and show progress bars on stderr: the
        cross-validation's fold solves, and the final fit's solver -- the interior point's iterations or the cutting
        planes' passes out of ``max_iter`` (started again at every ``nu`` and binary problem), HiGHS's LPs counted
        by the ``nu`` values -- with the binary problem, ``nu`` and the certified relative gap in the postfix
        (``gap=3.1e-03``); nothing is printed otherwise.

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
        weights, their weights); ``fold_errors``, shape (n_folds, n_alpha, n_rho, n_problems, n_nu), the same per
        fold (summed over the folds: ``errors``; the noise rule reads them); ``n_rows``, ``n_folds`` and ``time_s``.
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
    input_unit_ : float
        The power of two X was divided by for the RBF kernel (1 for every magnitude of X between 2^-128 and 2^128):
        the kernel is evaluated on ``X / input_unit_`` with the width ``kernel_.alpha / input_unit_`` (exact), as
        prediction does.
    calibration_ : BinaryCalibration or MulticlassCalibration
        With ``probability=True``: the map from decision values to probabilities.
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
        "probability": ["boolean"],
        "verbose": ["verbose"],
    }

    def __init__(self, *, kernel: str | Kernel = "rbf", degree: int = 1, c: float | str = "auto",
                 alpha: float | str | Sequence[float] = "auto", nu: float | str | Sequence[float] = "auto",
                 p: float | str | None = None, eta: Any = None, rho: float | str | Sequence[float] | None = None,
                 selection: str = "cv", cv: int = 3, line_search: str = "exact", n_grid: int = 10_000,
                 interval: str = "paper", solver_options: Mapping[str, Any] | None = None, lp_solver: str = "auto",
                 n_landmarks: int | str | None = "auto", landmarks: str | Any = "entropy", solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 1000, random_state: Any = None, class_weight: Any = None,
                 max_time: float | None = None, warm_start: bool = False, probability: bool = False,
                 verbose: bool = False):
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
        self.probability = probability
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

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
        check_sparse_input("RobustSVC", X, accepted=True)  # a Dask array of sparse chunks: refused
        params = resolve_parameters(self)  # the checks between parameters, before the data's
        self._check_probability(X)
        data = training_data(self, X, y, sample_weight, params.kernel.name)  # RBF: X over a power of two
        if self.probability and np.unique(data.y, return_counts=True)[1].min() < 2:
            raise ValueError("probability=True needs at least 2 rows of every class (of positive weight) for its "
                             "held-out decision values")
        rng = check_random_state(self.random_state)  # the landmarks, then the cross-validation's subsample
        plan = plan_fit(self, params, data, rng)
        if plan.n_landmarks is None:  # the paper's model: a Dask X (of at most AUTO_MAX_ROWS rows) in memory
            data = data.in_memory()
        plan, nus_per_problem, self.selection_ = self._select(plan, data, rng, budget)
        warm = getattr(self, "_warm_engines", {}) if self.warm_start else None
        final = solve_problems(plan, data, nus_per_problem, budget, warm, self.verbose)
        self._set_fitted(plan, data, final)
        budget.finish(self)
        self._fold_time = None if budget.max_time is None else \
            max(1e-3, budget.start + budget.max_time - time.perf_counter()) / N_FOLDS
        try:  # on every row given, as validated (the calibration leaves the rows of weight 0 out itself)
            self._fit_probability(data.X_given, data.y_given, sample_weight, zero_is_positive=False)
        finally:
            del self._fold_time
        return self

    def _check_probability(self, X: Any) -> None:
        """``probability=True``'s needs, before any work: X in memory, and no per-sample eta (the folds' clones
        cannot take it)."""
        if not self.probability:
            return
        if is_dask_array(X):
            raise ValueError("probability=True needs X as an array: its held-out decision values come from folds of "
                             "rows; compute the Dask array first, or leave probability=False")
        if self.eta is not None and not isinstance(self.eta, Mapping) and not is_finite_real(self.eta):
            raise ValueError("probability=True cannot take eta per sample (the calibration's folds fit clones on "
                             "subsets of the rows): give eta per class (a dict) or as one number, or rho")

    def _fold_params(self) -> dict[str, Any]:
        """The hyperparameters this fit selected, for the calibration's clones (:mod:`svmopt._shared.calibration`):
        the resolved kernel (its width and offset), ``nu`` (one value, or the values the binary problems took:
        then each problem's nu is chosen again among them), ``rho``, the model (the paper's, or the reduced one
        over as many landmarks), no progress output, and the time left per fold under ``max_time``."""
        nus = np.unique(self.nu_)
        params: dict[str, Any] = {
            "kernel": self.kernel_, "nu": float(nus[0]) if nus.size == 1 else nus.tolist(),
            "n_landmarks": None if self.model_ == "paper" else int(np.asarray(self.landmarks_).shape[0]),
            "verbose": False, "warm_start": False}
        if self.rho_ is not None:
            params["rho"] = float(self.rho_)
        if nus.size > 1 and cv_is_index_pairs(self.cv):  # index pairs of every row do not index a fold's rows
            params["cv"] = 3
        if self.kernel_.name == "rbf":
            params["alpha"] = float(self.kernel_.alpha)
        if getattr(self, "_fold_time", None) is not None:
            params["max_time"] = self._fold_time
        return params

    def _select(self, plan: Plan, data: TrainingData, rng: np.random.RandomState,
                budget: TimeBudget) -> tuple[Plan, list[np.ndarray], dict[str, Any] | None]:
        """The hyperparameter selection (:mod:`svmopt.robust.select`: the nu path of every width and rho on common
        folds): the plan narrowed to the choice, each binary problem's nu values, ``selection_``. With nothing to
        compare, or under ``selection="training_error"`` (Pseudocode 1's count over the nu path), the plan as it
        is."""
        if self.selection == "cv" and (len(plan.kernels) > 1 or plan.nus.size > 1 or len(plan.rhos) > 1):
            return select_by_cv(plan, data, self.cv, rng, budget, self.verbose)
        return plan, [plan.nus] * len(plan.problems), None

    def _set_fitted(self, plan: Plan, data: TrainingData, final: FinalFit) -> None:
        """The fitted attributes from the final fit (the support: the expansion points of a nonzero coefficient
        for some problem)."""
        fits, U = final.fits, final.coef
        support = np.flatnonzero(np.any(U != 0.0, axis=0))
        paper = plan.n_landmarks is None
        unit = data.unit  # the power of two X was divided by (RBF only; 1 for the usual magnitudes): undone here
        self.classes_ = data.classes
        self.kernel_ = in_input_units(final.kernel, unit)
        self.model_ = "paper" if paper else "reduced"
        self.landmarks_ = plan.landmarks if plan.landmarks is None or unit == 1.0 else plan.landmarks * unit
        # the paper's model: indices into the rows given to fit (rows of weight 0 were left out of the LP)
        self.support_ = data.kept[support] if paper and data.kept is not None else support
        self.support_vectors_ = expansion_points(plan, data)[support] * unit  # a copy
        self.input_unit_ = unit
        self._input_unit = unit  # the name svmopt.onnx reads
        self.dual_coef_ = U[:, support]
        self.intercept_ = np.array([f.b for f in fits])
        self.gamma_ = np.array([f.gamma for f in fits])
        self.omega_ = np.array([f.omega for f in fits])
        self.nu_ = np.array([f.nu for f in fits])
        self.rho_ = final.rho
        self.delta_ = np.stack(final.deltas)
        total_weight = float(data.X.shape[0]) if data.weight is None else float(data.weight.sum())
        self.training_error_ = np.array([f.training_count / total_weight for f in fits])
        self.objective_ = np.array([f.objective for f in fits])
        self.lower_bound_ = np.array([f.lower_bound for f in fits])
        self.n_iter_ = np.array([f.n_iter for f in fits])
        self.fit_path_ = [f.path for f in fits]
        warn_degenerate(self, fits, plan.problems, final.deltas, data.absmax)
        self._warm_engines = final.engines

    def __getstate__(self) -> dict:
        """The pickled state: everything but ``warm_start``'s solver state (HiGHS models do not pickle)."""
        state = dict(super().__getstate__())  # a copy: BaseEstimator's may be the instance's own __dict__
        state.pop("_warm_engines", None)
        return state

    # -- prediction ------------------------------------------------------------------------------
    def _raw(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        if is_dask_array(X):  # chunk by chunk where the chunks are, gathered here (n x n_problems)
            return map_row_chunks(self, "_raw", X, self.dual_coef_.shape[0])
        check_input(X, "X")
        check_sparse_input("RobustSVC", X, accepted=True)
        X = validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
        if is_sparse(X):
            X = as_csr(X, "X")
        unit = getattr(self, "input_unit_", getattr(self, "_input_unit", 1.0))  # the RBF's working scale (2^k)
        # the paper's model fitted on a sparse X keeps sparse support vectors: densified a block at a time
        matvec = sparse_points_matvec if is_sparse(self.support_vectors_) else Kernel.matvec
        if self.support_.size == 0:
            f = np.zeros((X.shape[0], self.dual_coef_.shape[0]))
        elif unit != 1.0:  # the kernel evaluated as in the fit: on X / unit with the width alpha / unit (exact)
            f = matvec(in_units(self.kernel_, unit), X / unit, self.support_vectors_ / unit, self.dual_coef_.T)
        else:
            f = matvec(self.kernel_, X, self.support_vectors_, self.dual_coef_.T)
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

