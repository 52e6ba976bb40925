"""The fixed-size LS-SVM estimators (paper 002: De Brabanter, De Brabanter, Suykens & De Moor, 2010):
``FixedSizeLSSVR`` and ``FixedSizeLSSVC``, svmopt's large-scale model. What they share (the parameters, ``fit``,
``partial_fit``, the compact predictor) is :class:`svmopt.fixed_size.base.FixedSizeLSSVM`, whose module describes
the pipeline; here each defines its problems (one regression, or the binary problems of a coding of the classes),
the systems of a ``partial_fit`` stream and its outputs.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets

from svmopt._shared.calibration import ProbabilityMixin
from svmopt._shared.moments import weighted_variance_denominator, weighted_variance_denominator_of_sums
from svmopt._shared.multiclass import ovo_scores
from svmopt._shared.prototypes import MAX_CANDIDATES
from svmopt._shared.validation import CLASS_WEIGHT, StrOptions, shown
from svmopt.fixed_size.base import FixedSizeLSSVM, only_with_fixed_hyperparameters
from svmopt.fixed_size.calibrated import check_probability, fold_params, fold_time
from svmopt.fixed_size.search import N_ITER_NO_CHANGE, TUNE_ROWS, Problem
from svmopt.fixed_size.stream import System
from svmopt.kernels import Kernel


class FixedSizeLSSVR(RegressorMixin, FixedSizeLSSVM):
    """Fixed-size LS-SVM regression (paper 002), tuned by CSA + simplex on the fast v-fold CV MSE.

    Parameters
    ----------
    n_prototypes : int or "auto", default="auto"
        m, the number of prototype vectors (clamped to the number of candidate rows with a warning); ``"auto"``:
        :data:`svmopt.fixed_size.selection.AUTO_PROTOTYPES`, or every candidate row when there are fewer (no warning).
    kernel : {"rbf", "linear"} or svmopt.Kernel, default="rbf"
    gamma : float, array-like of shape (n_problems,) or None
        Regularization constant of (7); None: tuned. One value per binary problem (as a multi-class fit's
        ``gamma_`` lists them) fixes each problem's; ``partial_fit`` takes one number.
    sigma2 : float, array-like of shape (n_problems,) or None
        RBF bandwidth in K = exp(-||x - z||^2 / sigma2) on the standardized inputs; None: tuned. One value per
        binary problem as for ``gamma``.
    cv : int, CV splitter, iterable of (train, test) pairs or None, default=None
        Folds of the fast CV: a number (random folds per problem), or splits whose test sets partition the rows
        (they are the folds; X must then be an array, np.memmap or dask array: ``split(X, y)`` sees X as given).
        None: 10 random folds; with ``gamma`` and ``sigma2`` fixed the CV score is then informational and is
        computed only while its 10 fold solves are cheap (:data:`svmopt.fixed_size.search.FIXED_CV_FLOPS`: m up to
        about 600), else ``cv_score_`` is NaN and the fit takes one pass without per-fold sums. Give ``cv`` to always
        have it.
    block_size : int or None
        Rows per streamed block (default 65536).
    random_state, verbose, n_jobs
        Seed (bandwidths are deterministic; PV, folds, CSA are seeded), tqdm progress bars, threads of the core's
        OpenMP loops and, during ``fit``, of the BLAS (None or -1: all).
    regularize_bias : bool, default=True
        True: (7) as printed (I_{m+1}/gamma); False: the bias is not penalized.
    standardize : bool, default=True
        Standardize inputs (and the target) with the training statistics, as the paper does. The column deviations
        are measured in a power-of-two unit, so the model does not depend on the scale of X: ``X * c`` (any
        ``c > 0`` with ``X * c`` finite) gives the prototypes, the tuning and the predictions of X (to rounding;
        exactly for ``c`` a power of two), for ``fit`` and ``partial_fit``. With ``standardize=False`` ``sigma2``
        and ``prototypes`` are in X's units.
    n_csa, n_simplex : int or None, default=None
        The tuning budget: CSA then simplex cost evaluations. None: the paper's 90 + 70 for a search over gamma
        (with sigma^2, or alone); 20 + 10 for a search over sigma^2 alone (``gamma_search="path"``, or gamma
        fixed), where each evaluation is a sigma^2 value tried: one pass over the data, plus one prediction pass
        for a classifier whose features exceed ``feature_memory``.
    gamma_search : {"auto", "csa", "path"}, default="auto"
        How gamma is tuned. "auto": "csa" below 50,000 training rows (``PATH_MIN_ROWS``, all problems together),
        "path" from there on when gamma is tuned, logged (``logging.INFO``) and stored as ``gamma_search_``; at
        5·10⁴ rows the joint search took 3.4x the path's time, for a test accuracy 0.08 points higher
        (docs/performance.md#tuning-along-the-gamma-path).
        "csa": jointly with sigma^2 by CSA + simplex over (log gamma, log sigma^2), as in the
        paper (Section 6): nearly every evaluation is at a new sigma^2, hence one pass over the data. "path": CSA +
        simplex search log sigma^2 alone, and at every sigma^2 tried gamma takes the best of the 31 values
        :data:`svmopt.fixed_size.tuning.GAMMA_PATH` (log gamma = -10, -9, ..., 20, the joint search's bounds), all
        scored on that sigma^2's fold statistics: the same fast v-fold CV cost (19)-(21), minimized over gamma on the
        path instead of searched. It scores 31 gammas for the price of one pass, so it reaches a comparable model with
        far fewer passes (hence its budget of 20 + 10): the choice for millions of rows. Ties on the path (the
        misclassification rate is piecewise constant) take the middle of the tied values. With sigma^2 fixed (or a
        kernel other than RBF) "path" is a grid search over gamma: one pass, plus one prediction pass for a
        classifier whose features exceed ``feature_memory``.
    max_candidates : int, default=200000
        Rows (a uniform subsample above this) used for the entropy bandwidths and the prototype search.
    feature_memory : str or int, default="1G"
        Budget for holding Phi_e in memory during CV; above it the blocked Algorithm 3B streams twice. With
        fixed gamma and sigma2 and Phi_e over this budget, a classifier skips the (second-pass) CV score, even
        with ``cv`` given: ``cv_score_`` is NaN.
    prototype_selection : {"entropy", "random"}, default="entropy"
        How the m prototype vectors are chosen among the candidate rows: "entropy" maximizes the quadratic
        Rényi entropy (Algorithm 1, with the entropy bandwidths); "random" draws m distinct rows uniformly
        without replacement (seeded by ``random_state``; stratified by class for classification, as the entropy
        path; no bandwidths are computed, ``entropy_bandwidths_`` is None). The paper's Table 1 compares the two.
    statistics : {"auto", "features", "kernel"}, default="auto"
        What each streaming pass sums per CV fold. "features": Phi_u^T Phi_u and Phi_u^T y_u of the Nyström
        features (5), as the paper's Algorithm 3. "kernel": the same products of the kernel block
        C = [K(X, PV), 1], mapped to the features' statistics by the projection once per sigma^2
        (Phi^T Phi = P~^T C^T C P~): one symmetric rank-k update of order m per row block (n m^2 flops) instead
        of the projection C P and the update of order m' (2 n m m' + n m'^2), about 3x fewer flops at m' = m; the
        fast CV predicts held-out rows as C (P~ theta). The map multiplies C^T C's rounding errors by
        lambda_max / lambda_min of the kept spectrum of Omega_mm, so "auto" (the default) takes the kernel block
        only where that ratio is at most 1e5 (the measured errors are in
        docs/performance.md#which-statistics-and-how-accurate) and the features
        otherwise; the linear kernel always uses its explicit features. ``problems_[i]["statistics"]`` records
        the choice of each final fit.
    prototypes : array-like (m, n_features) or None, default=None
        Fixed prototype vectors, on the scale the model works on (the standardized one when ``standardize``: an
        earlier fit's ``prototypes_`` fit for the same scaling): ``fit`` and ``partial_fit`` use exactly these
        points (no bandwidths, no selection; ``prototype_indices_`` is None). None: selected as above. Not for the
        linear kernel.
    max_time : float or None, default=None
        Seconds for ``fit`` (None: unlimited). The tuning's search (coupled simulated annealing, then the simplex)
        checks the clock between cost evaluations, in the core, and stops with the best point so far; the remaining
        binary problems of a multi-class model then take the last tuned values, and the informational CV score of
        fixed hyperparameters is skipped. Not cut short: the standardization pass, the entropy bandwidths and the
        prototype selection (they run before the tuning), a cost evaluation (or gamma path) under way, and the
        final fit (7) of every binary/regression problem (a pass over the data each), so a fit may run past
        max_time by their time.
        ``max_time_reached_`` is True and a ``ConvergenceWarning`` names what was cut short.
    tune_rows : int or None, default=2000
        The tuning of a problem of more rows runs on a sample of ``tune_rows`` of them (stratified by class for a
        classifier, drawn with ``random_state``; their weights kept): CSA + simplex on the fast v-fold CV of the
        sample, exact on it, then one pass over all the problem's rows fits (7) at the values chosen, so the fit's
        time stops growing with n past the sample but for that pass (and the standardization, the gathering of the
        candidates and of the sample). None: every row, the paper's protocol (Section 6). Not with ``cv`` given
        as splits (their folds are X's rows: the tuning then uses every row). ``cv_score_`` is then the sample's
        CV cost and ``problems_[i]["tune_rows"]`` the rows tuned on. The default and its accuracy against the
        paper's search are measured in docs/guide/fixed_size.md#tuning-on-a-sample.
    n_iter_no_change : int or None, default=20
        Each stage of the search (CSA, then the simplex) stops once this many evaluations in a row have not
        lowered the best CV cost by more than :data:`svmopt.fixed_size.tuning.STALL_RTOL` of it (the stage's
        budget, ``n_csa`` or ``n_simplex``, bounds it still); ``problems_[i]["stopped_early"]`` says whether it did.
        None: the whole budget, as the paper.

    Sample weights
    --------------
    ``fit(X, y, sample_weight)`` (X an array, ``np.memmap`` or dask array) minimises the weighted squared loss:
    with W = diag(w), the ridge system (7) becomes (Phi_e^T W Phi_e + I/gamma) theta = Phi_e^T W y (the bias column
    of Phi_e included, so Phi_e^T W 1 and sum w enter too); each CV fold model (20)-(21) is built from the weighted
    fold sums and the CV cost (19) is the weighted mean sum_i w_i L_i / sum_i w_i of the held-out losses; the input
    (and target) standardization uses weighted means and deviations (denominator sum w - min(1, sum w^2 / sum w),
    the one of RobustSVC and the ellipsoids: sum w - 1 when every weight is >= 1, so integer weights equal repeated
    rows). Rows of weight 0 are left out (masked out of every pass over X, never copied out of it). The prototypes
    are *not* chosen by weight: the Rényi-entropy (or random) selection runs on the rows of positive weight as if
    unweighted (the entropy bandwidths too), so with selected prototypes a weighted fit differs from the fit on
    repeated rows; with ``prototypes`` given (and fixed gamma, sigma2) integer weights give the same model as
    repeated rows. On a dask array every chunk sums its rows' weighted statistics and held-out losses on its
    worker (:class:`svmopt.fixed_size.dask_engine.DaskCVEngine`). The weights enter the streaming pass in the core
    (each row of the features, or of the kernel block with ``statistics="kernel"``, scaled by sqrt(w_i) on its way
    into the per-fold sums), so ``statistics`` applies as to unweighted fits, and a weighted fit takes the same
    passes as an unweighted one; it forgoes only the holdout identity of the fast CV (many small folds) and, for
    explicit linear features, the dsyrk straight on X's rows.

    Attributes
    ----------
    n_prototypes_ : int
        m, the number of prototype vectors used (0 for the linear kernel).
    prototypes_ : ndarray (n_prototypes_, n_features) or None
        The prototype vectors on the standardized scale (None for the linear kernel).
    prototype_indices_ : ndarray of int or None
        Their rows in the training data: indices into the X passed to ``fit`` (for ``partial_fit``: into the first
        rows, the chunks passed until ``n_prototypes`` rows of positive weight had arrived, concatenated), counting
        the rows of weight 0 too (the prototypes are chosen among the rows of positive
        weight only); None when ``prototypes`` is given or the kernel is linear.
    entropy_bandwidths_ : ndarray (n_features,) or None
        Per-dimension plug-in bandwidths of the entropy criterion (None for random selection).
    entropy_log_offdiag_ : float or None
        Log of the off-diagonal entropy sum of the selected set (None without an entropy search).
    n_pv_proposals_ : int
        Swap proposals made by the prototype search (0 without an entropy search).
    n_bandwidth_fallbacks_ : int
        Dimensions whose plug-in bandwidth fell back to the normal reference rule (0 without an entropy search).
    kernel_mode_ : str
        ``"rbf"``, ``"linear"`` (explicit features) or ``"kernel"`` (a given :class:`svmopt.Kernel`).
    kernel_ : svmopt.Kernel or list of svmopt.Kernel
        The fitted model's kernel: ``Kernel("rbf", alpha=sqrt(sigma2_ / 2))`` (the paper's exp(-||x - z||^2 /
        sigma2) on the standardized inputs), a list of one per problem where the problems' sigma2 differ;
        ``Kernel("linear")``; or the kernel given, as given.
    gamma_ : float or ndarray (n_problems,)
        Tuned (or given) regularization constant; one entry per binary problem for multi-class models.
    sigma2_ : float or ndarray (n_problems,)
        Tuned (or given) RBF bandwidth, likewise.
    cv_score_ : float
        The fast v-fold CV cost at ``(gamma_, sigma2_)``: the (weighted) mean squared error of the standardized
        target (y - y_mean_) / y_scale_, so ``cv_score_ * y_scale_**2`` is the MSE in the target's units (NaN when
        it was skipped: fixed hyperparameters, see ``cv`` and ``feature_memory``, or ``max_time`` spent).
    gamma_search_ : str
        The gamma search of the fit, "csa" or "path" (``gamma_search="auto"`` resolved: "csa" with gamma fixed, when
        sigma^2 alone, if anything, is searched by CSA + simplex).
    problems_ : list of dict
        Per binary/regression problem: the tuning record and the fitted coefficients (``"statistics"``: what the
        final fit summed, "features" or "kernel").
    x_mean_ : ndarray (n_features,)
        Means used to standardize the inputs (0 when ``standardize=False``).
    x_scale_ : ndarray (n_features,)
        Standard deviations used to standardize the inputs (1 when ``standardize=False``).
    timings_ : dict
        Seconds spent per stage (standardize, bandwidth, prototypes, tuning_and_fit, total).
    max_time_reached_ : bool
        Whether ``max_time`` cut a stage short (the model is the best found in the time).
    n_features_in_ : int
        Number of features seen during ``fit``.
    y_mean_ : float
        Mean used to standardize the target (0 when ``standardize=False``).
    y_scale_ : float
        Standard deviation used to standardize the target (1 when ``standardize=False``).

    See Also
    --------
    FixedSizeLSSVC : The classifier.
    choose_n_prototypes : The paper's heuristic for m.
    svmopt.fixed_size.cv_engine.CVEngine : The fast v-fold cross-validation.

    References
    ----------
    .. [1] K. De Brabanter, J. De Brabanter, J. A. K. Suykens and B. De Moor, "Optimized fixed-size kernel models
       for large data sets", Computational Statistics & Data Analysis (Elsevier), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from svmopt import FixedSizeLSSVR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(400, 1))
    >>> y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(400)
    >>> reg = FixedSizeLSSVR(n_prototypes=30, random_state=0).fit(X, y)
    >>> reg.prototypes_.shape
    (30, 1)
    >>> reg.score(X, y) > 0.8
    True
    """

    _task = "regression"

    def _check_y(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity.")
        return y

    def _problems(self, y, w=None, dropped: bool = False):
        if w is None:
            self.y_mean_ = float(y.mean()) if self.standardize else 0.0
            sd = float(y.std(ddof=1)) if (self.standardize and y.size > 1) else 1.0
        else:  # weighted mean and deviation (integer weights: as the repeated rows)
            W = float(w.sum())
            self.y_mean_ = float(w @ y) / W if self.standardize else 0.0
            sd = math.sqrt(float(w @ (y - self.y_mean_) ** 2) / weighted_variance_denominator(w)) \
                if self.standardize else 1.0
        if not (np.isfinite(self.y_mean_) and np.isfinite(sd)):
            raise ValueError("y: the target's mean/standard deviation overflow float64; rescale y before fitting")
        self.y_scale_ = sd if sd > 0 else 1.0
        return [Problem("regression", (y - self.y_mean_) / self.y_scale_)]

    def predict(self, X):
        """Predictions sum_k beta_k K(x, PV_k) + b (mapped back to the target's scale)."""
        return self._raw_decision(X)[:, 0] * self.y_scale_ + self.y_mean_

    @only_with_fixed_hyperparameters
    def partial_fit(self, X, y, sample_weight=None):
        """Add a chunk of rows to the fit with fixed ``gamma`` and ``sigma2`` (required). The first rows fix the
        input scaling (with ``standardize``, from their statistics) and the prototypes (``prototypes``, or selected
        among them): the calls' rows are kept until ``n_prototypes`` rows of positive weight have arrived
        (``"auto"``: 500; with ``prototypes`` given or the linear kernel, 2 with ``standardize``, else 1), then
        taken as one first chunk, so that a stream of one-row chunks gets the ``n_prototypes`` it asks for and the
        model of a stream whose first chunk held those rows; until then the estimator is not fitted (a prediction
        raises ``NotFittedError`` saying how many rows have arrived). Every chunk adds its Phi^T W Phi, Phi^T W y,
        sum w y^2 and sum w^2, and the ridge solve (7) is redone, so the model after any call is the fit on all rows
        seen (the target standardized with the exact statistics of all rows). With ``prototypes`` given, many calls
        equal one ``fit`` on their concatenation (with ``standardize=False`` or the same scaling) to rounding;
        otherwise the prototypes are selected from the first rows alone (the first chunk, or the first calls' up
        to ``n_prototypes`` rows), not from all rows as ``fit`` selects them. The parameters that define
        the features (``kernel``, ``sigma2``, the prototypes and their selection, ``statistics``, ``standardize``)
        must not change between calls (a ValueError names the one that did); ``gamma`` and ``regularize_bias`` may:
        the solve uses their current values."""
        return self._partial_fit(X, y, None, sample_weight)

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(y.shape[0], dtype=np.int64)

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[System]:
        """The regression system from the sums of all rows: with ``standardize`` the target is centred and scaled by
        the exact (weighted) statistics of everything seen, Phi^T W (y - mu) / sd = (t - mu Phi^T W 1) / sd, where
        Phi^T W 1 is the bias column of G."""
        G0, t0 = G[0], t[0]
        W = float(G0[-1, -1])
        if self.standardize and W > 0:
            self.y_mean_ = float(t0[-1]) / W
            with np.errstate(over="ignore", invalid="ignore"):  # sum w y^2 of |y| above 1e154 is inf: refused below
                var = np.float64(yy[0]) - W * np.float64(self.y_mean_) ** 2
            var = float(var) / weighted_variance_denominator_of_sums(W, float(ww[0]))
            if not (math.isfinite(self.y_mean_) and math.isfinite(var)):
                raise ValueError("y: the target's mean/standard deviation overflow float64; rescale y before fitting")
            sd = math.sqrt(max(var, 0.0))
            self.y_scale_ = sd if sd > 0 else 1.0
        else:
            self.y_mean_, self.y_scale_ = 0.0, 1.0
        return [(G0, (t0 - self.y_mean_ * G0[:, -1]) / self.y_scale_, [0])]


class FixedSizeLSSVC(ProbabilityMixin, ClassifierMixin, FixedSizeLSSVM):
    """Fixed-size LS-SVM classification (paper 002): least squares on ±1 codes, sign decision.

    All binary problems share one stratified prototype set and are tuned separately (decision:
    the paper's Section 8.4 does not say whether the prototypes are shared). With ``standardize`` (the default) the
    model does not depend on the scale of X (see :class:`FixedSizeLSSVR`'s ``standardize``).

    Parameters
    ----------
    multiclass : {"ovo", "moc"}, default="ovo"
        One-vs-one (one binary model per class pair, trained on that pair's rows, majority vote, ties by the summed
        outputs) or minimum output coding (ceil(log2 M) bits, nearest valid codeword in Hamming distance, ties by
        Euclidean distance).
    n_prototypes, kernel, gamma, sigma2, cv, block_size, random_state, verbose
        As for :class:`FixedSizeLSSVR`.
    regularize_bias, standardize, n_csa, n_simplex, max_candidates, feature_memory, n_jobs, prototype_selection
    statistics, prototypes, max_time, gamma_search, tune_rows, n_iter_no_change
        As for :class:`FixedSizeLSSVR` (its "Sample weights" section says where the weights enter).
    probability : bool, default=False
        Fit a calibration of held-out decision values after the model (:mod:`svmopt._shared.calibration`): 5
        stratified folds (seeded by ``random_state``) of clones at the fit's ``gamma_``, ``sigma2_`` and prototype
        count (no second tuning; the time left under ``max_time`` shared among them), then ``predict_proba`` and
        ``predict_log_proba``, whose argmax is ``predict`` on every row; about 5 more fits at fixed values, each
        a prototype selection and one pass. X must be an array or ``np.memmap`` (a dask array or a block stream
        is refused before any work), every class needs 2 rows of positive weight, and ``partial_fit`` refuses
        it.
    class_weight : dict, "balanced" or None, default=None
        Multiplies the sample weight of each row by its class's factor (``{label: weight}``, or "balanced":
        W / (k W_c) with W_c the class's weighted count); the fit is then the weighted one of
        :class:`FixedSizeLSSVR`'s "Sample weights" (each binary problem on its rows' weights).

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        The labels; ``classes_[1]`` is the positive class of a binary problem.
    coding_ : str
        ``"binary"``, ``"ovo"`` or ``"moc"``.
    pairs_ : list of (int, int)
        Class indices of the one-vs-one problems (``coding_ == "ovo"`` only).
    codebook_ : ndarray (n_classes, n_bits)
        The ±1 codeword of each class (``coding_ == "moc"`` only).
    n_prototypes_ : int
        m, the number of prototype vectors used (0 for the linear kernel).
    prototypes_ : ndarray (n_prototypes_, n_features) or None
        The prototype vectors on the standardized scale (None for the linear kernel).
    prototype_indices_ : ndarray of int or None
        Their rows in the training data: indices into the X passed to ``fit`` (for ``partial_fit``: into the first
        rows, the chunks passed until ``n_prototypes`` rows of positive weight had arrived, concatenated), counting
        the rows of weight 0 too (the prototypes are chosen among the rows of positive
        weight only); None when ``prototypes`` is given or the kernel is linear.
    entropy_bandwidths_ : ndarray (n_features,) or None
        Per-dimension plug-in bandwidths of the entropy criterion (None for random selection).
    entropy_log_offdiag_ : float or None
        Log of the off-diagonal entropy sum of the selected set (None without an entropy search).
    n_pv_proposals_ : int
        Swap proposals made by the prototype search (0 without an entropy search).
    n_bandwidth_fallbacks_ : int
        Dimensions whose plug-in bandwidth fell back to the normal reference rule (0 without an entropy search).
    kernel_mode_ : str
        ``"rbf"``, ``"linear"`` (explicit features) or ``"kernel"`` (a given :class:`svmopt.Kernel`).
    kernel_ : svmopt.Kernel or list of svmopt.Kernel
        The fitted model's kernel, as for :class:`FixedSizeLSSVR` (a list where the binary problems' sigma2 differ).
    calibration_ : BinaryCalibration or MulticlassCalibration
        With ``probability=True``: the map from decision values to probabilities.
    gamma_ : float or ndarray (n_problems,)
        Tuned (or given) regularization constant; one entry per binary problem for multi-class models.
    sigma2_ : float or ndarray (n_problems,)
        Tuned (or given) RBF bandwidth, likewise.
    cv_score_ : float or ndarray (n_problems,)
        The fast v-fold CV cost at ``(gamma_, sigma2_)`` (NaN when it was skipped: fixed hyperparameters, see
        ``cv`` and ``feature_memory``, or ``max_time`` spent), likewise.
    gamma_search_ : str
        The gamma search of the fit, "csa" or "path" (``gamma_search="auto"`` resolved: "csa" with gamma fixed, when
        sigma^2 alone, if anything, is searched by CSA + simplex).
    problems_ : list of dict
        Per binary/regression problem: the tuning record and the fitted coefficients (``"statistics"``: what the
        final fit summed, "features" or "kernel").
    x_mean_ : ndarray (n_features,)
        Means used to standardize the inputs (0 when ``standardize=False``).
    x_scale_ : ndarray (n_features,)
        Standard deviations used to standardize the inputs (1 when ``standardize=False``).
    timings_ : dict
        Seconds spent per stage (standardize, bandwidth, prototypes, tuning_and_fit, total).
    max_time_reached_ : bool
        Whether ``max_time`` cut a stage short (the model is the best found in the time).
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    FixedSizeLSSVR : The regressor (and the shared parameters).
    choose_n_prototypes : The paper's heuristic for m.
    RobustSVC : A kernel SVM solved as an LP (paper 000).

    References
    ----------
    .. [1] K. De Brabanter, J. De Brabanter, J. A. K. Suykens and B. De Moor, "Optimized fixed-size kernel models
       for large data sets", Computational Statistics & Data Analysis (Elsevier), 2010.

    Examples
    --------
    >>> from svmopt import FixedSizeLSSVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> clf = FixedSizeLSSVC(n_prototypes=50, random_state=0).fit(X, y)
    >>> clf.classes_.tolist(), clf.prototypes_.shape
    (['B', 'M'], (50, 30))
    >>> clf.score(X, y) > 0.9
    True
    """

    _task = "classification"

    _parameter_constraints: ClassVar[dict] = {
        **FixedSizeLSSVM._parameter_constraints,
        "multiclass": [StrOptions({"ovo", "moc"})],
        "class_weight": CLASS_WEIGHT,
        "probability": ["boolean"],
    }

    def __init__(self, *, n_prototypes: int | str = "auto", kernel: str | Kernel = "rbf", gamma: float | None = None,
                 sigma2: float | None = None, cv: Any = None, multiclass: str = "ovo", block_size: int | None = None,
                 random_state=None, verbose: bool = False, regularize_bias: bool = True, standardize: bool = True,
                 n_csa: int | None = None, n_simplex: int | None = None, max_candidates: int = MAX_CANDIDATES,
                 feature_memory: str | int = "1G", n_jobs: int | None = None, prototype_selection: str = "entropy",
                 statistics: str = "auto", prototypes=None, max_time: float | None = None, class_weight=None,
                 gamma_search: str = "auto", tune_rows: int | None = TUNE_ROWS,
                 n_iter_no_change: int | None = N_ITER_NO_CHANGE, probability: bool = False):
        super().__init__(n_prototypes=n_prototypes, kernel=kernel, gamma=gamma, sigma2=sigma2, cv=cv,
                         block_size=block_size, random_state=random_state, verbose=verbose,
                         regularize_bias=regularize_bias, standardize=standardize, n_csa=n_csa, n_simplex=n_simplex,
                         max_candidates=max_candidates, feature_memory=feature_memory, n_jobs=n_jobs,
                         prototype_selection=prototype_selection, statistics=statistics, prototypes=prototypes,
                         max_time=max_time, gamma_search=gamma_search, tune_rows=tune_rows,
                         n_iter_no_change=n_iter_no_change)
        self.multiclass = multiclass
        self.class_weight = class_weight
        self.probability = probability

    def _class_weight(self):
        return self.class_weight

    # -- probabilities (svmopt._shared.calibration; svmopt.fixed_size.calibrated) ------------------------------
    def _check_probability(self, X: Any, y_kept: np.ndarray | None = None) -> None:
        check_probability(self, X, y_kept)

    def _after_fit(self, src, y, sample_weight, tbudget) -> None:
        """The calibration of ``probability=True`` on the validated rows (``predict`` is classes_[1] where the
        binary decision value is >= 0, the argmax of ``decision_function`` for more classes), each of its folds
        sharing the time left under ``max_time``."""
        self._fold_time = fold_time(tbudget)
        try:
            self._fit_probability(getattr(src, "array", None), y, sample_weight, zero_is_positive=True)
        finally:
            del self._fold_time

    def _fold_params(self) -> dict[str, Any]:
        return fold_params(self, getattr(self, "_fold_time", None))

    def _check_y(self, y):
        y = np.asarray(y)
        check_classification_targets(y)
        return y

    def _set_coding(self, M: int) -> None:
        """``coding_`` (and ``pairs_`` or ``codebook_``) for M >= 2 classes."""
        self.__dict__.pop("pairs_", None)  # from an earlier fit of another coding
        self.__dict__.pop("codebook_", None)
        if M == 2:
            self.coding_ = "binary"
        elif self.multiclass == "ovo":
            self.coding_ = "ovo"
            self.pairs_ = list(combinations(range(M), 2))
        else:
            self.coding_ = "moc"
            L = max(1, math.ceil(math.log2(M)))
            self.codebook_ = np.array([[1.0 if (c >> (L - 1 - j)) & 1 else -1.0 for j in range(L)]
                                       for c in range(M)])

    def _problems(self, y, w=None, dropped: bool = False):
        self.classes_, codes = np.unique(y, return_inverse=True)
        self._codes = codes
        M = self.classes_.size
        if M < 2 and dropped:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes, but the rows of positive "
                             f"weight (sample_weight times class_weight) hold only one class: "
                             f"{shown(self.classes_[0])} (got 1 class)")
        if M < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes in the data, but the data "
                             f"contains only one class: {shown(self.classes_[0])} (got 1 class)")
        self._set_coding(M)
        if M == 2:
            return [Problem("binary", np.where(codes == 1, 1.0, -1.0))]
        if self.multiclass == "ovo":
            probs = []
            for a, b in self.pairs_:
                mask = (codes == a) | (codes == b)
                probs.append(Problem(f"{self.classes_[a]} vs {self.classes_[b]}",
                                     np.where(codes[mask] == a, 1.0, -1.0), mask))
            return probs
        return [Problem(f"MOC bit {j}", self.codebook_[codes, j]) for j in range(self.codebook_.shape[1])]

    @only_with_fixed_hyperparameters
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the fit with fixed ``gamma`` and ``sigma2`` (required). ``classes`` (every label
        of the whole stream) is required on the first call, as for scikit-learn's ``SGDClassifier``; it fixes the
        coding. The first rows fix the input scaling (with ``standardize``) and the prototypes (``prototypes``, or
        selected among them): the calls' rows are kept until ``n_prototypes`` rows of positive weight have arrived
        (``"auto"``: 500; with ``prototypes`` given or the linear kernel, 2 with ``standardize``, else 1), then
        taken as one first chunk, as in :meth:`FixedSizeLSSVR.partial_fit` (until then a prediction raises
        ``NotFittedError`` saying how many rows have arrived). Every chunk adds, per class c, Phi_c^T W_c Phi_c and
        Phi_c^T w_c (the sums every binary problem's (7) is built from: a pair (a, b) has G_a + G_b and targets
        s_a - s_b), and the systems are solved again, so the model after any call is the fit on all rows seen.
        ``class_weight`` may be a dict ("balanced" needs the class counts of the whole stream: not supported).
        With ``prototypes`` given, many calls equal one ``fit`` on their concatenation (with ``standardize=False``
        or the same scaling) to rounding; otherwise the prototypes are selected from the first rows alone, not from
        all rows as ``fit`` selects them. The parameters that define the features (``kernel``, ``sigma2``, the
        prototypes and their selection, ``statistics``, ``standardize``, ``multiclass``) must not change between
        calls (a ValueError names the one that did); ``gamma`` and ``regularize_bias`` may. ``fit`` keeps no sums:
        the first partial_fit call after it starts a new stream (``classes`` defaulting to the fitted
        ``classes_``)."""
        return self._partial_fit(X, y, classes, sample_weight)

    def _stream_classes(self, y: np.ndarray, classes, first: bool) -> None:
        """The first call fixes ``classes_`` and the coding (after fit: a new stream over its classes); a later
        call's ``classes`` must be the same, and every call's labels among them."""
        if first:
            if classes is None and hasattr(self, "classes_"):  # after fit: a new stream over its classes
                classes = self.classes_
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit (every label of "
                                 "the whole stream)")
            self.classes_ = np.unique(np.asarray(classes))
            if self.classes_.size < 2:
                raise ValueError(f"classes must hold at least 2 labels, got {self.classes_.tolist()}")
            self._set_coding(self.classes_.size)
        elif classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"classes={shown(classes)} differs from the classes of the first partial_fit call "
                             f"({self.classes_.tolist()})")
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(f"y has labels {unknown.tolist()} not in classes ({self.classes_.tolist()})")

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.classes_, y).astype(np.int64)

    def _stream_definition(self, mode: str, kern, sigma2) -> dict[str, Any]:
        """As for the regressor, and the coding of more than two classes (fixed by the first call)."""
        return {**super()._stream_definition(mode, kern, sigma2),
                "multiclass": self.multiclass if self.classes_.size > 2 else None}

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[System]:
        """Each binary problem's (Phi^T W Phi, Phi^T W y) from the per-class sums (targets +1 / -1)."""
        if self.coding_ == "binary":
            return [(G[0] + G[1], t[1] - t[0], [0, 1])]
        if self.coding_ == "ovo":
            return [(G[a] + G[b], t[a] - t[b], [a, b]) for a, b in self.pairs_]
        Gs, every = G.sum(axis=0), list(range(G.shape[0]))
        return [(Gs, np.tensordot(self.codebook_[:, j], t, axes=1), every) for j in range(self.codebook_.shape[1])]

    def _strata(self, y):
        return np.searchsorted(self.classes_, y).astype(np.int64)

    def decision_function(self, X):
        """Binary: the real output f(x) (> 0 means classes_[1]). Multiclass: one score per class whose argmax is
        the prediction (1vs1: votes plus the summed outputs squashed into (-1/3, 1/3); MOC: minus the Hamming
        distance to the class codeword minus a squashed Euclidean distance)."""
        F = self._raw_decision(X)
        if self.coding_ == "binary":
            return F[:, 0]
        M = self.classes_.size
        if self.coding_ == "ovo":
            return ovo_scores(F, self.pairs_, M)
        S = np.where(F >= 0, 1.0, -1.0)
        ham = (S[:, None, :] != self.codebook_[None, :, :]).sum(axis=2)
        euc = np.sqrt(((F[:, None, :] - self.codebook_[None, :, :]) ** 2).sum(axis=2))
        return -ham - euc / (1.0 + euc)

    def predict(self, X):
        """Class labels: sign of f (sign(0) = +1) for two classes, 1vs1 vote or MOC decoding otherwise."""
        D = self.decision_function(X)
        if D.ndim == 1:
            return self.classes_[(D >= 0).astype(int)]
        return self.classes_[np.argmax(D, axis=1)]
