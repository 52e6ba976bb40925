"""EllipsoidPSOClassifier: classification as a QCQP solved by coupled particle swarms (Kumar & Ramakrishnan, paper 003).

Per binary problem:

1. Projection (paper Section 4.3.5, ``projection="pair"``): whiten the pair's training samples (eigen-decomposition of
   their covariance, eigenvalue floor ``1e-10 * max``), then project onto ``p_1 ∝ mu_1 - mu_2`` and ``p_2`` = the
   largest-|eigenvalue| eigenvector of the deflated covariance difference (``p2_mode="covdiff"``), so the QCQP
   is solved in ``n = 2`` dimensions.
2. Class ellipsoids (Section 4.2, eq. (15); reading B: see ``reading``): ``E_c = E(mu_c, M_c / rho_c)`` with ``M_c =
   Sigma_c^{-1}`` (``metric="inverse"``; ``"covariance"`` is the literal eq. (15)) and ``rho_c`` the squared Mahalanobis
   distance of class c's own training point nearest (in the other class's metric) to the other class's mean.
   Selected on the training rows (not in the paper; ``ratio="auto"``, ``shrinkage="auto"``, the defaults): the
   radii of the two ellipsoids are scaled by ``sqrt(ratio)`` and ``1 / sqrt(ratio)`` (the paper's pair is ratio 1;
   the bisector of step 5 then moves towards the smaller ellipsoid's class, which matters with unequal classes), and
   the whitening of step 1 may shrink the covariance towards ``mean(eig) I`` by the Ledoit-Wolf amount (a
   covariance estimated from few rows per feature); both by held-out errors on ``cv`` folds (an int: stratified
   folds of each binary problem's rows; a splitter or a list of splits: their rows of the problem)
   (:data:`RATIO_GRID` x {0, Ledoit-Wolf}, the ratios beyond 2^-3 ... 2^3 only while the lowest error is on the
   edge), each candidate scored with the exact closest points of step 4, and chosen by a one-standard-error rule on
   the paired folds that keeps the paper's construction (ratio 1, no shrinkage) unless another candidate is better
   beyond the noise of the folds (:func:`svmopt.ellipsoid.selection.select_pair`). A class covariance
   singular in the working space (one-hot features, fewer rows than features) gets a ridge of ``1e-6 lambda_max``
   (:data:`svmopt.ellipsoid.geometry.SINGULAR_RIDGE`) instead of no ellipsoid.
3. Shrink fallback (not in the paper): if the ellipsoids intersect, both are shrunk by ``s = gamma * s*`` with
   ``s* = max_u u^T (mu_1 - mu_2) / (g_1(u) + g_2(u))``; counted in ``n_shrunk_``.
4. Closest points (the QCQP (4)-(5) of Section 3.1): the two coupled swarms of eq. (7) in the C++ core
   (``solver="pso"``, :func:`pso_closest_points`), or the exact support-function dual (``solver="exact"``,
   :func:`ellipsoid_closest_points`), each with a certified duality gap.
5. Hyperplane (Section 4.2, eqs. (13), (14), (16)): the perpendicular bisector ``z(q) = w^T q + w_0``, ``w = x* - y*``,
   ``w_0 = (||y*||^2 - ||x*||^2) / 2``, mapped back to input space: ``w_in = W Pi w``, ``b_in = w_0 - w_in^T m``.

Multiclass (decision; the paper does not say how it combines binary problems): one-vs-one with majority vote, ties
broken by the sum of normalized margins, then by the smaller class index (``multiclass="ovr"`` is kept for ablation).
Class 1 of a pair (the positive side, ``z >= 0``) is the smaller label. For two classes scikit-learn's convention is
kept: ``decision_function`` is ``-z`` so that positive values mean ``classes_[1]``.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmopt._shared.calibration import N_FOLDS, ProbabilityMixin
from svmopt._shared.config import warn
from svmopt._shared.runtime import TimeBudget, progress
from svmopt._shared.sparse import as_csr, check_sparse_input, is_sparse
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    SECONDS,
    Interval,
    Real,
    StrOptions,
    check_fit_weights,
    check_input,
    fit_context,
    shown,
)
from svmopt.ellipsoid.binary import ClosestSolver, Construction, PairData, hyperplane, working_space
from svmopt.ellipsoid.decision import decision_values, predicted_classes
from svmopt.ellipsoid.geometry import ellipsoid_closest_points
from svmopt.ellipsoid.projection import input_unit, largest_magnitude, map_back, whiten
from svmopt.ellipsoid.selection import (
    RATIO_GRID,
    SelectionPlan,
    pair_folds,
    per_model_choices,
    select_pair,
    user_splits,
)
from svmopt.ellipsoid.sparse_rows import check_width, sparse_whiten
from svmopt.ellipsoid.swarms import SWARM_CONSTRAINTS, pso_closest_points, seed_from

# ----------------------------------------------------------------------------------------------- estimator

_CHOICES = {
    "solver": ("pso", "exact"),
    "metric": ("inverse", "covariance"),
    "fallback": ("shrink", "none"),
    "projection": ("pair", "dataset", "none"),
    "multiclass": ("ovo", "ovr"),
    "p2_mode": ("covdiff", "literal", "random"),
    "reading": ("B", "A"),
    "rand_scope": ("particle", "iteration"),
    "sync": ("jacobi", "gauss_seidel"),
    "boundary_mode": ("revert", "project"),
}


class EllipsoidPSOClassifier(ProbabilityMixin, ClassifierMixin, BaseEstimator):
    """Linear classifier from the closest points of two class ellipsoids, found by coupled particle swarms.

    Kumar & Ramakrishnan (paper 003) [1]_; the choices where the paper is silent are described in the module
    docstring and under each parameter.

    Parameters
    ----------
    n_particles : int, default 10
        Particles per swarm (k).
    max_iter : int, default 200
        Swarm iterations (T); the only stopping rule, as in the paper's Table 1.
    w, c1, c2, c3, c4 : float
        Coefficients of the velocity update (7): previous velocity, personal best, global best, direction towards
        the other swarm's best, craziness (random point of a sphere of random radius in [0, 1)).
    solver : {"pso", "exact"}, default "pso"
        The coupled swarms (C++ core) or the exact support-function dual (deterministic).
    metric : {"inverse", "covariance"}, default "inverse"
        ``Sigma^{-1}`` (Mahalanobis, as the text describes; the default) or the literal ``Sigma`` of eq. (15).
    fallback : {"shrink", "none"}, default "shrink"
        Shrink both ellipsoids by ``gamma * s*`` when they intersect (not in the paper) or solve as they are (literal).
    projection : {"pair", "dataset", "none"}, default "pair"
        Whitening + 2-D projection fitted on the pair's training samples (Section 4.3.5), whitening on all training
        samples then the pair's 2-D projection, or none (the QCQP is solved in input space, as for the paper's 2-D
        synthetic data).
    random_state : int, RandomState instance or None
        Seeds the swarms (one seed per fit; the k-th binary problem uses seed + k).
    multiclass : {"ovo", "ovr"}, default "ovo"
        One-vs-one with majority vote (ties by the sum of normalized margins), or one-vs-rest (ablation).
    gamma : float, default 0.9
        Shrink margin of the fallback (0 < gamma < 1).
    s_init : float, default 0.1
        Initial swarm: uniform in the ellipsoid scaled by s_init around the class mean.
    p2_mode : {"covdiff", "literal", "random"}, default "covdiff"
        Second projection direction: the largest-|eigenvalue| eigenvector of the deflated covariance difference,
        the literal top eigenvector of the subset covariance (Section 4.3.5, degenerate), or a random orthogonal one.
    reading : {"B", "A"}, default "B"
        Which training point fixes each ellipsoid's boundary: "B", class c's own point nearest to the other
        class's mean; "A", the other class's nearest point (see :func:`class_ellipsoids`).
    rand_scope : {"particle", "iteration"}, default "particle"
        PSO ablation switch (eq. (7)): independent random numbers per particle, or shared per iteration (the
        literal Table 1).
    sync : {"jacobi", "gauss_seidel"}, default "jacobi"
        PSO ablation switch (Section 3.2): both swarms use the other's best from the previous evaluation, or
        the second swarm sees the first's new best.
    boundary_mode : {"revert", "project"}, default "revert"
        The paper's revert rule for infeasible moves, or their projection onto the ellipsoid (extension).
    ratio : float > 0, "auto" or array-like of floats > 0, default "auto"
        The class-1 ellipsoid's radius is multiplied by ``sqrt(ratio)``, the class-2 one's divided by it (1 = the
        paper's ellipsoids). ``"auto"``: chosen per binary problem among :data:`RATIO_GRID` (2^-6 ... 2^6; beyond
        2^-3 ... 2^3 only while the lowest held-out error is on the edge of the ratios scored) by held-out errors
        (see ``cv``). An array: one ratio per binary model (in the order of ``pairs_``), e.g. a fitted model's
        ``ratios_``; then ``shrinkage`` must be given per model too, and nothing is selected.
    shrinkage : float in [0, 1], "ledoit_wolf", "auto" or array-like of those, default "auto"
        Shrinkage of the covariance the whitening uses towards ``mean(eig) I`` (0 = the paper's). ``"auto"``: 0 or
        the Ledoit-Wolf amount, chosen per binary problem with ``ratio`` by held-out errors. An array: one value
        (an amount or "ledoit_wolf") per binary model, e.g. a fitted model's ``shrinkages_``, with ``ratio`` per
        model.
    cv : int >= 2, CV splitter, iterable of (train, test) index arrays or None, default 5
        Folds of the selection. Each candidate is scored on them with the exact closest points (step 4 of the
        module docstring; the swarms approximate them) and the choice is the paper's construction unless another
        candidate has fewer held-out errors beyond one standard error of the paired fold differences (then the
        candidate nearest to the paper's within that error of the best). An int (None: 5): stratified
        (unshuffled) folds of each binary problem's rows (fewer when a class has fewer rows). A splitter
        (``KFold(5, shuffle=True)``, ...) or an iterable of (train, test) pairs, as
        :func:`sklearn.model_selection.check_cv` accepts: split over all the rows given to ``fit``; each binary
        problem uses its own rows of each split (a split without held-out rows of the problem is skipped).
    class_weight : dict, "balanced" or None, default None
        Multiplies the weights of each class's rows (``"balanced"``: ``W / (n_classes W_c)`` with ``W_c`` the
        weighted count of class c); see Notes.
    max_time : float > 0 or None, default None
        Seconds the fit may take (None: no limit). Each binary problem gets an equal share of the time left, half
        of it for the ratio/shrinkage selection; the swarms stop between iterations with their best particles so
        far, the selection with the folds every candidate completed. A fit cut short sets ``max_time_reached_``
        and warns (``ConvergenceWarning``); the model is usable.
    verbose : bool, default False
        Print each binary problem's held-out errors and its choice, and show a progress bar over the swarm runs
        (selection candidates and final fits) on stderr. Nothing is printed otherwise.
    probability : bool, default False
        Also fit ``predict_proba`` / ``predict_log_proba`` (absent otherwise): a map of held-out decision values
        (5 stratified shuffled folds seeded by ``random_state``, each fitting the selected ratios and shrinkages)
        to probabilities whose argmax is ``predict`` on every row; a sigmoid through 1/2 at the decision threshold
        for two classes, a softmax with one temperature over ``decision_function`` otherwise
        (:mod:`svmopt._shared.calibration`). Each class then needs enough rows for its ellipsoid in every fold.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        The labels seen during ``fit``.
    n_features_in_ : int
        Number of features seen during ``fit``.
    pairs_ : list of (int, int)
        Class indices (positive side first) of each binary model; for OvR ``(k, -1)``.
    coef_ : ndarray (n_models, n_features)
        Input-space hyperplanes ``z(v) = coef_ @ v + intercept_``; ``z >= 0`` is the positive class of the pair.
    intercept_ : ndarray (n_models,)
        Their offsets.
    models_ : list of dict
        Per model: whitening ``m``, ``W``, projection ``Pi``, ellipsoids ``mu1, P1, mu2, P2`` (after the shrink),
        shrink factor ``s``, closest points ``x, y``, working-space ``w, w0``.
    ratios_ : ndarray (n_models,)
        The radius ratio per model.
    shrinkages_ : ndarray (n_models,) of object
        The whitening shrinkage per model (0.0 or "ledoit_wolf").
    selection_ : dict or None
        The candidates (``shrinkage``, ``ratio``), the held-out error rates per model (``errors``, shape
        (n_models, n_shrinkages, n_ratios)) and per model its held-out errors per fold (``fold_errors``, a list of
        arrays (n_folds, n_shrinkages, n_ratios): counts, or weights of the misclassified rows in units of the
        power of two at or above the largest weight; NaN where not scored), which the one-standard-error rule
        compares; None when nothing was selected.
    shrink_factors_ : ndarray (n_models,)
        ``s`` per model (1 = no shrink).
    n_shrunk_ : int
        How many binary problems needed the shrink fallback (ellipsoids intersected).
    n_iter_ : int
        Swarm iterations run per binary problem (``max_iter``, fewer for a problem that ``max_time`` cut short:
        the smallest count; 1 for the exact solver). Per problem in ``models_[k]["n_iter"]``.
    max_time_reached_ : bool
        Whether ``max_time`` cut a stage short (the warning names them).
    distances_ : ndarray (n_models,)
        ``||x* - y*||`` per model.
    certificate_gaps_ : ndarray (n_models,)
        Its certified gap ``||x* - y*|| - phi(u)`` (an upper bound on ``||x* - y*|| - D*``).
    calibration_ : object
        With ``probability=True``: the map from decision values to probabilities.

    Notes
    -----
    **Sample weights** (``fit(X, y, sample_weight)`` times ``class_weight``) are frequency weights: an integer
    weight counts as that many copies of the row, a weight of 0 leaves the row out (then integer weights give the
    model of the repeated rows when ``cv`` is a splitter or a list of splits; an int ``cv`` folds rows, not
    copies). They enter every data statistic of the paper's construction and none of its other quantities:

    * the class means ``mu_c`` and covariances ``Sigma_c`` of the ellipsoids (Section 4.2, eq. (15)), as weighted
      means and covariances normalized by ``W - min(1, sum w^2 / W)`` (``W - 1`` when every weight is >= 1, the
      count of the repeated rows minus one; see :func:`weighted_mean_cov`); a class needs ``n + 1`` rows or a
      total weight of ``n + 1``;
    * the whitening of Section 4.3.5 (mean and covariance of the pair's rows, or of all rows with
      ``projection="dataset"``), its Ledoit-Wolf shrinkage amount (scikit-learn's formula with every sum over
      rows weighted and the row count replaced by ``W``), and the statistics of the 2-D projection (the
      weighted class means for ``p_1``, the weighted covariances for ``p_2``);
    * the held-out errors of the ``ratio``/``shrinkage`` selection (the weight of the misclassified held-out
      rows over the weight of all held-out rows); the training part of each fold is fitted with its weights.

    The facing points ``b_c`` that fix the radii ``rho_c`` (eq. (15)) are minima over the rows: a row's weight
    does not move them, only its presence. A weight constant over a class (``class_weight``) leaves that class's
    ellipsoid in the working space as it is -- eq. (15) has no class prior -- but it weights the pair's (or the
    data set's) whitening and the 2-D projection that define that space, and the selection's held-out errors (the
    radius ratio); with ``projection="none"`` it acts through the selection only. The swarms (eq. (7)) see only
    the ellipsoids: the same ellipsoids and ``random_state`` give the same swarm, whatever the rows' order or
    count.

    **Scale.** With a projection the model does not depend on the scale of X (the whitening of Section 4.3.5
    removes it): ``X * c`` (``c > 0``, ``X * c`` finite and not subnormal) gives X's predictions, ``coef_ / c`` and
    X's ``intercept_`` (to rounding; exactly for powers of two), and the selection and the multiclass margins are
    scale-free. With ``projection="none"``, ``solver="exact"`` is invariant too (the ellipsoids scale with X); the
    swarms are not (their craziness radius is in [0, 1) at any scale), and refuse X beyond ``SAFE_MAGNITUDE``.

    See Also
    --------
    pso_closest_points : The coupled swarms on two given ellipsoids.
    ellipsoid_closest_points : The exact closest points (support-function dual).
    RobustSVC : A kernel SVM solved as an LP (paper 000).

    References
    ----------
    .. [1] D. Kumar and A. G. Ramakrishnan, "Quadratically constrained quadratic programming for classification
       using particle swarms and applications", MILE Laboratory, Indian Institute of Science, Bangalore
       (preprint; no year or venue given).

    Examples
    --------
    >>> from svmopt import EllipsoidPSOClassifier
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wine")
    >>> clf = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    >>> clf.coef_.shape, len(clf.pairs_)
    ((3, 13), 3)
    >>> clf.score(X, y) > 0.8
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **SWARM_CONSTRAINTS,
        **{name: [StrOptions(set(allowed))] for name, allowed in _CHOICES.items()},
        "random_state": ["random_state"],
        "gamma": [Interval(Real, 0, 1, closed="neither")],
        "ratio": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither"), "array-like"],
        "shrinkage": [StrOptions({"auto", "ledoit_wolf"}), Interval(Real, 0, 1, closed="both"), "array-like"],
        "cv": ["cv_object"],
        "class_weight": CLASS_WEIGHT,
        "max_time": [SECONDS, None],
        "verbose": ["verbose"],
        "probability": ["boolean"],
    }

    def __init__(
        self,
        *,
        n_particles=10,
        max_iter=200,
        w=0.05,
        c1=0.05,
        c2=0.05,
        c3=0.05,
        c4=0.2,
        solver="pso",
        metric="inverse",
        fallback="shrink",
        projection="pair",
        random_state=None,
        multiclass="ovo",
        gamma=0.9,
        s_init=0.1,
        p2_mode="covdiff",
        reading="B",
        rand_scope="particle",
        sync="jacobi",
        boundary_mode="revert",
        ratio="auto",
        shrinkage="auto",
        cv=5,
        class_weight=None,
        max_time=None,
        verbose=False,
        probability=False,
    ):
        self.n_particles = n_particles
        self.max_iter = max_iter
        self.w = w
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.c4 = c4
        self.solver = solver
        self.metric = metric
        self.fallback = fallback
        self.projection = projection
        self.random_state = random_state
        self.multiclass = multiclass
        self.gamma = gamma
        self.s_init = s_init
        self.p2_mode = p2_mode
        self.reading = reading
        self.rand_scope = rand_scope
        self.sync = sync
        self.boundary_mode = boundary_mode
        self.ratio = ratio
        self.shrinkage = shrinkage
        self.cv = cv
        self.class_weight = class_weight
        self.max_time = max_time
        self.verbose = verbose
        self.probability = probability

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True  # scipy sparse X: the moments over its nonzeros (svmopt.ellipsoid.sparse_rows)
        tags.non_deterministic = False
        return tags

    # ---------------------------------------------------------------- fitting
    @fit_context
    def fit(self, X, y, sample_weight=None):
        """Fit one binary model per class pair (OvO) or per class (OvR) on ``X`` (n_samples, n_features).

        ``sample_weight`` (n_samples,), non-negative: frequency weights of the rows (see the class docstring for
        the quantities they enter); rows of weight 0 are left out. Atomic: on an error or an interrupt the
        estimator is left as it was before the call.

        Any finite scale of X: X of entries beyond :data:`svmopt.ellipsoid.projection.SAFE_MAGNITUDE` is fitted
        over a power of two and mapped back exactly (:func:`svmopt.ellipsoid.projection.map_back`), but with
        ``projection="none"`` and ``solver="pso"``, where it is refused (see Notes, "Scale"). ``n_features`` is
        bounded by the memory budget (:func:`svmopt.get_memory_budget`): a binary problem forms d x d
        covariances (with fewer rows than features it works on the rows' SVD and Gram matrix instead, but the
        budget is checked for d x d all the same)."""
        budget = TimeBudget(self.max_time)
        X_given, y_given = X, y
        X, yi, w, splits = self._validate_rows(X, y, sample_weight)
        pairs = self._pairs()
        fixed = per_model_choices(self.ratio, self.shrinkage, len(pairs))
        unit = input_unit(X, self.projection, self.solver)
        Xu = X if unit == 1.0 else X / unit
        seed = seed_from(self.random_state)
        plan = self._selection_plan(Xu, w, fixed)
        jobs = self._jobs(pairs, yi, splits, plan)
        models, errors = self._fit_pairs(Xu, w, jobs, plan, seed, budget, fixed)
        self._set_models(pairs, [map_back(mdl, unit) for mdl in models], errors, plan)
        if not (np.all(np.isfinite(self.coef_)) and np.all(np.isfinite(self.intercept_))):
            raise ValueError(f"X: its entries (largest magnitude {largest_magnitude(X):.3g}) are too small for "
                             "the hyperplane's coefficients (about 1 / |x|) to be held in float64; rescale X")
        self._warn_one_sided(X, yi)
        budget.finish(self)
        self._fold_time = None if budget.max_time is None else max(1e-3, budget.remaining()) / N_FOLDS
        try:  # the rows as given (the calibration leaves the rows of weight 0 out itself)
            self._fit_probability(X_given, y_given, sample_weight, zero_is_positive=False)
        finally:
            del self._fold_time
        return self

    def _fold_params(self) -> dict:
        """The choices of this fit for the calibration's clones (:mod:`svmopt._shared.calibration`): the ratio and
        shrinkage of every binary model (so that no fold selects again), no progress output, and the time left per
        fold under ``max_time``."""
        params = {"ratio": self.ratios_.tolist(), "shrinkage": self.shrinkages_.tolist(), "verbose": False}
        if getattr(self, "_fold_time", None) is not None:  # set during fit only
            params["max_time"] = self._fold_time
        return params

    def _validate_rows(self, X, y, sample_weight) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, list | None]:
        """``(X, class index per row, weights, the user's cv splits)`` of the rows fitted (those of weight > 0);
        sets ``classes_``. Every class must be large enough for its ellipsoid."""
        check_sparse_input("EllipsoidPSOClassifier", X, accepted=True)  # a Dask array of sparse chunks is refused
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, accept_sparse=("csr", "csc"))
        X = as_csr(X) if is_sparse(X) else X  # CSC: converted once (the folds and pairs index rows)
        check_classification_targets(y)
        check_width(X)  # the d x d matrices of the fit within the memory budget, before any work
        n_rows = X.shape[0]
        # The validation runs on row indices, so that the kept rows are known (a user's cv splits index all rows).
        kept, y_kept, w = check_fit_weights(np.arange(n_rows), y, sample_weight, self.class_weight)
        splits = user_splits(self.cv, kept, X, y)
        if kept.size < n_rows:
            X, y = X[kept], y_kept
        self.classes_, yi = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"EllipsoidPSOClassifier needs at least 2 classes; got 1 class: {self.classes_}")
        self._check_class_sizes(yi, w, X.shape[1])
        return X, yi, w, splits

    def _check_class_sizes(self, yi: np.ndarray, w: np.ndarray | None, n_features: int) -> None:
        """Each class's ellipsoid is fitted in the working space (the 2-D projection, 1-D for one feature, or the
        input space with projection="none"): it needs dims + 1 rows (or total weight), or its covariance is
        singular; a class too small is named here, before any whitening."""
        K = self.classes_.size
        dims = 1 if n_features == 1 else (n_features if self.projection == "none" else 2)
        count = np.bincount(yi, minlength=K).astype(np.float64)
        size = count if w is None else np.maximum(count, np.bincount(yi, weights=w, minlength=K))
        for c in np.flatnonzero(size < dims + 1):
            label = self.classes_[c].item() if isinstance(self.classes_[c], np.generic) else self.classes_[c]
            raise ValueError(f"EllipsoidPSOClassifier: class {label!r} has {int(count[c])} training "
                             f"row(s){'' if w is None else f' (total weight {size[c]:g})'}; its ellipsoid in {dims} "
                             f"dimension(s) needs at least {dims + 1}")
        if self.probability:  # the calibration's k folds (k = min(N_FOLDS, smallest class)) fit on k - 1 of them
            k = int(min(N_FOLDS, count.min()))
            train = count - np.ceil(count / max(k, 1))
            for c in np.flatnonzero(train < dims + 1):
                raise ValueError(f"probability=True: class {shown(self.classes_[c])} has {int(count[c])} rows; the "
                                 f"training part of each of the calibration's {k} folds holds {int(train[c])}, "
                                 f"fewer than its ellipsoid in {dims} dimension(s) needs ({dims + 1})")

    def _selection_plan(self, X: np.ndarray, w: np.ndarray | None, fixed: list | None) -> SelectionPlan:
        """The shrinkage and ratio candidates (one each unless "auto"; ``fixed``: the per-model choices, nothing
        selected), with the data set's whitening per shrinkage for ``projection="dataset"``."""
        if fixed is not None:
            shrinks: list[float | str] = list(dict.fromkeys(sh for sh, _ in fixed))
            ratios = np.array([fixed[0][1]])
        else:
            shrinks = [0.0, "ledoit_wolf"] if _is_auto(self.shrinkage) else [self.shrinkage]
            ratios = RATIO_GRID if _is_auto(self.ratio) else np.array([float(self.ratio)])
        white = sparse_whiten if is_sparse(X) else whiten
        globs = {sh: white(X, sh, w) if self.projection == "dataset" else None for sh in shrinks}
        return SelectionPlan(shrinks, ratios, globs) if fixed is None else SelectionPlan(shrinks[:1], ratios, globs)

    def _pairs(self) -> list[tuple[int, int]]:
        """The binary problems as class indices: every pair (OvO, and always for two classes), or each class
        against the rest ``(k, -1)`` (OvR)."""
        K = self.classes_.size
        if self.multiclass == "ovo" or K == 2:
            return [(a, b) for a in range(K) for b in range(a + 1, K)]
        return [(a, -1) for a in range(K)]

    def _jobs(self, pairs: list[tuple[int, int]], yi: np.ndarray, splits: list | None,
              plan: SelectionPlan) -> list[tuple[np.ndarray, np.ndarray, list]]:
        """Per binary problem: its rows (indices into X) of class 1 and class 2, and its folds (none when nothing
        is selected)."""
        jobs = []
        for a, b in pairs:
            i1 = np.flatnonzero(yi == a)
            i2 = np.flatnonzero(yi == b) if b >= 0 else np.flatnonzero(yi != a)
            jobs.append((i1, i2, pair_folds(self.cv, i1, i2, splits, yi.size) if plan.select else []))
        return jobs

    def _fit_pairs(self, X: np.ndarray, w: np.ndarray | None, jobs: list, plan: SelectionPlan, seed: int,
                   budget: TimeBudget, fixed: list | None) -> tuple[list[dict], list[tuple]]:
        """Each binary problem's selection (when there is a choice) and model; the models and the selections'
        error rates. ``max_time``: each binary problem gets an equal share of what is left, its selection half
        of it. The selection scores its candidates with the exact closest points where the working space has at
        most 2 dimensions (there they are exact and certified), with the estimator's solver otherwise."""
        cons = self._construction()
        rng = np.random.RandomState(seed)
        models: list[dict] = []
        errors: list[tuple[np.ndarray, np.ndarray]] = []
        with progress(self.verbose, sum(len(f) * plan.n_candidates + 1 for *_, f in jobs),
                      "EllipsoidPSOClassifier") as bar:
            for k, (i1, i2, folds) in enumerate(jobs):
                pair = PairData(X[i1], X[i2], None if w is None else w[i1], None if w is None else w[i2], folds)
                share = budget.remaining() / (len(jobs) - k)
                now = time.perf_counter()
                pair_end = None if budget.max_time is None else now + share
                if plan.select:
                    sel_end = None if pair_end is None else now + 0.5 * share
                    closest = self._closest(seed + k, sel_end, exact=self.projection != "none" or X.shape[1] <= 2)
                    (sh, ratio), err, per_fold = select_pair(pair, plan, cons, closest, seed + k, sel_end, budget, bar)
                    errors.append((err, per_fold))
                    if self.verbose:
                        table = "; ".join(f"shrinkage {shown(s_)}: " + " ".join(f"{e:.3f}" for e in row)
                                          for s_, row in zip(plan.shrinks, err, strict=True))
                        print(f"[EllipsoidPSOClassifier] pair {k} held-out error per ratio {plan.ratios.tolist()}: "
                              f"{table}; selected ratio {ratio:g}, shrinkage {shown(sh)}")
                else:
                    sh, ratio = fixed[k] if fixed is not None else (plan.shrinks[0], float(plan.ratios[0]))
                mdl = self._fit_binary(pair, plan.globs[sh], seed + k, rng, ratio, sh, pair_end)
                if mdl["timed_out"]:
                    budget.cut(f"swarm iterations of binary problem {k} ({mdl['n_iter']} of {self.max_iter})")
                models.append(mdl)
                bar.update(1)
        return models, errors

    def _set_models(self, pairs: list[tuple[int, int]], models: list[dict], errors: list[tuple],
                    plan: SelectionPlan) -> None:
        """The fitted attributes from the binary models and the selections' error rates."""
        self.pairs_ = pairs
        self.ratios_ = np.array([mdl["ratio"] for mdl in models])
        self.shrinkages_ = np.array([mdl["shrinkage"] for mdl in models], dtype=object)
        self.selection_ = None if not errors else {
            "shrinkage": plan.shrinks, "ratio": plan.ratios.copy(),
            "errors": np.array([e for e, _ in errors]), "fold_errors": [f for _, f in errors]}
        self.models_ = models
        self.coef_ = np.array([mdl["w_in"] for mdl in models])
        self.intercept_ = np.array([mdl["b_in"] for mdl in models])
        self.shrink_factors_ = np.array([mdl["s"] for mdl in models])
        self.n_shrunk_ = int(np.sum(self.shrink_factors_ < 1.0))
        self.distances_ = np.array([mdl["distance"] for mdl in models])
        self.certificate_gaps_ = np.array([mdl["gap"] for mdl in models])
        self.n_iter_ = min(int(mdl["n_iter"]) for mdl in models)

    def _warn_one_sided(self, X: np.ndarray, yi: np.ndarray) -> None:
        """A ``UserWarning`` for each pair whose hyperplane leaves every training point of the pair on one side."""
        Z = X @ self.coef_.T + self.intercept_  # X validated above (not again: it has lost a DataFrame's names)
        for k, (a, b) in enumerate(self.pairs_):
            rows = (yi == a) | (yi == b) if b >= 0 else np.ones(yi.size, dtype=bool)
            side = Z[rows, k] >= 0
            if side.all() or not side.any():
                which = f"classes {shown(self.classes_[a])} and {shown(self.classes_[b])}" if b >= 0 else \
                    f"class {shown(self.classes_[a])} against the rest"
                warn(f"EllipsoidPSOClassifier: the hyperplane of {which} puts every training point of the pair on "
                     "one side (the ellipsoids' closest points lie beyond the data: classes of very different "
                     "spread or size); try ratio='auto' or solver='exact'", UserWarning)

    def _construction(self) -> Construction:
        return Construction(self.projection, self.p2_mode, self.metric, self.reading, self.fallback, self.gamma)

    def _closest(self, seed: int, deadline: float | None, exact: bool = False) -> ClosestSolver:
        """The closest points of step 4: the exact support-function dual (``solver="exact"`` or ``exact``), else the
        coupled swarms seeded by ``seed``, stopping at ``deadline``."""
        if exact or self.solver == "exact":
            return lambda mu1, P1, mu2, P2: (ellipsoid_closest_points(mu1, P1, mu2, P2), 1, False)

        def swarms(mu1, P1, mu2, P2):
            cp = pso_closest_points(
                mu1, P1, mu2, P2, n_particles=self.n_particles, max_iter=self.max_iter, w=self.w, c1=self.c1,
                c2=self.c2, c3=self.c3, c4=self.c4, s_init=self.s_init, random_state=seed, rand_scope=self.rand_scope,
                sync=self.sync, boundary_mode=self.boundary_mode,
                max_time=None if deadline is None else max(0.0, deadline - time.perf_counter()))
            return cp, cp.info["n_iter"], cp.info["timed_out"]

        return swarms

    def _fit_binary(self, pair: PairData, glob, seed, rng, ratio: float = 1.0, shrinkage: float | str = 0.0,
                    deadline: float | None = None) -> dict:
        """The model of one binary problem (steps 1-5 of the module docstring, :mod:`svmopt.ellipsoid.binary`) on
        ``pair``'s rows: whitening (``glob``: the data set's, else the pair's) and projection, the class ellipsoids
        with their radius ratio, the shrink fallback, the closest points and the bisecting hyperplane."""
        cons = self._construction()
        return hyperplane(working_space(pair, glob, shrinkage, rng, cons), ratio, cons, self._closest(seed, deadline))

    # ---------------------------------------------------------------- prediction
    def _pair_scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        check_input(X, "X")
        check_sparse_input("EllipsoidPSOClassifier", X, accepted=True)
        X = validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
        return np.asarray(X @ self.coef_.T, dtype=np.float64) + self.intercept_  # sparse: over the nonzeros

    def decision_function(self, X):
        """Binary: ``-z`` (positive means ``classes_[1]``). Multiclass, one-vs-one: (n_samples, n_classes) votes
        plus normalized margins scaled into (-1/3, 1/3), so that the argmax is the prediction (ties by the margin
        sum); one-vs-rest: the (n_samples, n_classes) normalized margins, whose argmax is the prediction. Model k's
        normalized margin is ``z_k max_j ||w_j|| / ||w_k||``, a distance in units of ``1 / max_j ||w_j||``: it does
        not depend on the scale of X (:func:`svmopt.ellipsoid.projection.relative_norms`)."""
        return decision_values(self._pair_scores(X), self.coef_, self.pairs_, self.classes_.size, self.multiclass)

    def predict(self, X):
        """Class labels: ``z >= 0`` gives the pair's first class; multiclass by OvO vote."""
        return predicted_classes(self.decision_function(X), self.classes_)


def _is_auto(value) -> bool:
    return isinstance(value, str) and value == "auto"
