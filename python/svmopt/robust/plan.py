"""RobustSVC's parameters resolved for one fit: the checks between parameters (:func:`resolve_parameters`), then on
the training data (:func:`plan_fit`) the candidate kernel widths, the per-row eta, the model (the paper's, or the
reduced one over L landmarks), the solver and the landmarks, gathered in a :class:`Plan`; the robust bounds delta
of the plan on any rows (:func:`robust_bounds`). The defaults and their measurements are stated where each constant
is defined."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.cluster import MiniBatchKMeans

from svmopt._shared.bandwidth import entropy_bandwidths
from svmopt._shared.config import get_memory_budget
from svmopt._shared.dask import is_dask_array
from svmopt._shared.highs import check_options
from svmopt._shared.prototypes import MAX_CANDIDATES, select_prototypes  # the fixed-size LS-SVM's selection
from svmopt._shared.validation import is_finite_real, real_array
from svmopt.kernels import Kernel
from svmopt.robust.data import TrainingData, take_rows
from svmopt.robust.fit import NU_GRID
from svmopt.robust.model import eta_from_rho, robust_delta
from svmopt.robust.sparse import dense_rows, is_sparse

logger = logging.getLogger(__name__)

#: ``n_landmarks="auto"`` keeps the paper's model up to this many training rows: its LP (23) has ~2 m^2 nonzeros, and
#: a fit (RBF, d = 20, one nu) took 0.5 s at 500 rows, 2.7 s at 1,000 and 179 s at 2,000
#: (docs/performance.md#the-reduced-model-cutting-planes); the default's cross-validation solves it 3 x 3 x 5 times.
AUTO_MAX_ROWS = 500
#: Landmarks of the reduced model under ``n_landmarks="auto"``: one per :data:`AUTO_ROWS_PER_LANDMARK` training rows
#: within these bounds (at most n). One per 20 rows (140 landmarks at 2,800 rows) left a low-dimensional problem of
#: many clusters (5 features, 4 clusters per class) 1.7-3.1 points below a tuned SVC; 300 landmarks closed it on
#: the split measured, at 0.36x the SVC grid's CPU time, 1,000 gained nothing more at 4x.
AUTO_LANDMARKS = 100
AUTO_LANDMARKS_MAX = 500
AUTO_ROWS_PER_LANDMARK = 10
#: ``solver="auto"`` passes the reduced LP to HiGHS as it is up to this many kernel values n x L, and uses the
#: interior-point method above. Measured on magic (RBF, one solve each): HiGHS was faster only at 200 rows x 10
#: landmarks (3.2 ms against 4.2 ms); the interior point was 1.1-1.8x faster at 200 x 25-100, 1.9-13.3x at 500-1,000
#: rows and 8.4-75.9x at 2,000-5,000 rows, to the same objective within 6.4e-7; on adult alike, on the nearly
#: separable shuttle and letter 0.4-1.6x at 1,000 rows and 1.6-4.4x at 5,000
#: (docs/performance.md#highs-or-the-interior-point).
DIRECT_LP_MAX_CELLS = 4_000
#: Under ``solver="auto"``, a nu at which the interior-point method stalls short of ``tol`` (nearly dependent kernel
#: rows of large magnitude: a linear or polynomial kernel over more landmarks than its feature space has dimensions)
#: is solved again by HiGHS on the LP as it is, exact, when its kernel rows are in memory and at most this many
#: (HiGHS took 2.1-5.1 s at this size, 5,000 x 100 on magic); above, the stall warns.
STALL_LP_MAX_CELLS = 500_000
SOLVERS = ("auto", "ipm", "lp", "cutting_plane")
LANDMARK_EXACT_BANDWIDTH_ROWS = 500
LANDMARK_METHODS = ("entropy", "kmeans", "random")
#: ``alpha`` rules: cross-validated among the paper's width and :data:`ALPHA_FACTORS` times the data-scaled width, the
#: data-scaled width ``sqrt(n_features * X.var() / 2)`` (scikit-learn's ``gamma="scale"``), the paper's
#: ``max_j std_j``.
ALPHA_RULES = ("auto", "scale", "paper")
#: ``alpha="auto"``: the widths compared after the paper's, as multiples of the data-scaled one (a multiple within
#: :data:`SAME_WIDTH` of an earlier width is left out).
ALPHA_FACTORS = (1.0, 2.0, 0.5)
#: ``alpha="auto"``: a candidate width within this relative difference of an earlier one is the same kernel.
SAME_WIDTH = 0.01
#: ``rho="grid"``: the values of the paper's rule ``eta = rho * max_j std_j`` compared by cross-validation.
RHO_GRID = np.array([1e-3, 1e-2, 1e-1])
#: ``nu="auto"`` under ``selection="cv"``: the nu compared (the paper's grid ``NU_GRID`` stops at 1, where the
#: training-count rule always ends; held-out errors often fall further, as C does for scikit-learn's SVC).
#: (Literal decades: np.logspace(-2, 2, 5) rounds 0.1 an ulp off on some numpy releases.)
NU_CV_GRID = np.array([1e-2, 1e-1, 1.0, 1e1, 1e2])
#: The nu at which the paper's own rule ends (Pseudocode 1's training count over ``NU_GRID`` picks its top, 1, on
#: every set measured): ``nu="auto"`` prefers it, then the values nearest it (the larger first).
PAPER_NU = 1.0
#: ``selection``: held-out errors on ``cv`` stratified folds, or the paper's training count (nu only).
SELECTIONS = ("cv", "training_error")
#: ``selection="cv"`` draws its folds from a stratified subsample of at most this many training rows (the paper's
#: model: at most :data:`AUTO_MAX_ROWS`); the final fit uses every row.
SELECT_MAX_ROWS = 1000


@dataclass
class Parameters:
    """The parameters that do not depend on the data (:func:`resolve_parameters`)."""

    kernel: Kernel  # its width still "auto" when ``alpha`` is a rule or a sequence (resolved on the data)
    nus: np.ndarray  # ascending, each value once
    p: float | None  # the norm of the uncertainty set (11); None: the deterministic model (6)
    rhos: list[float | None]  # the rho rule's values; [None] without the rule
    nu_order: np.ndarray  # indices of ``nus``, most preferred first (the selection's ties and noise rule)
    nu_noise: bool  # the selection keeps the first of ``nu_order`` within the noise of the folds (nu="auto")


@dataclass
class Plan:
    """One fit's parameters resolved on its training data (:func:`plan_fit`)."""

    kernels: list[Kernel]  # the resolved kernels compared (one after the selection)
    nus: np.ndarray  # the nu values (ascending)
    nu_order: np.ndarray  # indices of ``nus``, most preferred first
    nu_noise: bool  # nu by the one-standard-error rule over ``nu_order`` (else the fewest errors)
    kernel_noise: bool  # the kernel and rho by that rule over their order (alpha="auto": the paper's width first)
    p: float | None  # the norm of the uncertainty set; None: the deterministic model
    rhos: list[float | None]  # the rho values compared ([None] without the rho rule)
    eta: np.ndarray | None  # per-row eta of the fitted rows (None: the rho rule, or no eta)
    problems: list[Any]  # class A of each binary problem (one, or one per class for one-vs-rest)
    n_landmarks: int | None  # L of the reduced model; None: the paper's model
    landmarks: np.ndarray | None  # the reduced model's landmarks (L x d); None for the paper's model
    solver: str  # "lp" (LP (23) for the paper's model), "ipm" or "cutting_plane"
    asked_solver: str  # the ``solver`` parameter ("auto": chosen by the size, the folds' by theirs)
    stall_lp_cells: int  # an interior-point stall is solved again by HiGHS up to this many kernel values (0: never)
    select_max_rows: int  # selection="cv" subsamples at most this many rows
    path_options: dict[str, Any]  # line_search, n_grid, interval and solver_options of every nu path
    lp_solver: str  # LP (23)'s solver
    tol: float
    max_iter: int

    @property
    def paper_lp(self) -> bool:
        """LP (23) on the Gram matrix (else the reduced form, over the landmarks or the training points)."""
        return self.solver == "lp" and self.n_landmarks is None


def auto_solver(X: Any, L: int | None, warm_start: bool = False) -> str:
    """``solver="auto"``: LP (23) for the paper's model; for the reduced one the LP as it is while its n x L kernel
    values are at most :data:`DIRECT_LP_MAX_CELLS` (in memory), else the interior-point method, or the cutting planes
    under ``warm_start`` (their cuts are what a warm start keeps)."""
    if L is None:
        return "lp"
    if not is_dask_array(X) and X.shape[0] * L <= DIRECT_LP_MAX_CELLS:
        return "lp"
    return "cutting_plane" if warm_start else "ipm"


def parse_values(name: str, value: Any, rules: str, zero: bool = False) -> np.ndarray:
    """A parameter given as a number or a non-empty sequence of finite numbers > 0 (>= 0 with ``zero``)."""
    try:
        out = real_array(value, name).ravel()  # text and complex values refused too
    except (TypeError, ValueError):
        out = np.array([np.nan])
    if out.size == 0 or not np.all(np.isfinite(out)) or np.any(out < 0) or (not zero and np.any(out == 0)):
        raise ValueError(f"{name} must be a number {'>=' if zero else '>'} 0, a non-empty sequence of them, or "
                         f"{rules}; got {value!r}")
    return out


def resolve_parameters(est: Any) -> Parameters:
    """The kernel, nu values, p and rho values of the RobustSVC ``est`` (its validated parameters), and the checks
    between parameters."""
    check_options(est.solver_options)  # before the data: every solver path that reads them reads them checked
    if isinstance(est.kernel, Kernel):
        kern = est.kernel
    else:
        try:
            kern = Kernel(est.kernel, degree=est.degree, c=est.c,
                          alpha=float(est.alpha) if is_finite_real(est.alpha) else "auto")
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"RobustSVC: {exc}") from None
    auto_nu = isinstance(est.nu, str) and est.nu == "auto" and est.selection == "cv"
    if isinstance(est.nu, str):
        nus = (NU_CV_GRID if auto_nu else NU_GRID).copy()
    else:
        # ascending, each value once: the paths solve them in this order, and the ties rules read it ("the
        # smallest nu" under the training count, the larger under the cross-validation)
        nus = np.unique(parse_values("nu", est.nu, "'auto' or 'grid'"))
    # the cross-validation's preference: nu="auto" the paper's nu, then the nearest (the larger first), kept within
    # the noise of the folds; else the larger nu on ties
    distance = np.round(np.abs(np.log10(nus / PAPER_NU)), 9)  # decades from the paper's nu (10 and 0.1 alike)
    nu_order = np.lexsort((-nus, distance)) if auto_nu else np.arange(nus.size)[::-1]
    if est.rho is None:
        rhos: list[float | None] = [None]
    else:
        rhos = list(RHO_GRID if isinstance(est.rho, str) else parse_values("rho", est.rho, "'grid'", zero=True))
    p = est.p
    if p is not None:
        p = np.inf if isinstance(p, str) else float(p)
        if kern.name == "sigmoid":
            raise ValueError("kernel='sigmoid' has no robust bound delta (paper 000 covers linear, polynomial "
                             "and RBF kernels); use p=None (deterministic model) or another kernel")
    elif est.eta is not None or est.rho is not None:
        raise ValueError("eta and rho need an uncertainty set: set p (1, 2 or 'inf'), or leave eta=rho=None")
    if est.eta is not None and est.rho is not None:
        raise ValueError("give either eta (per sample or per class) or rho (the paper's rule), not both")
    if est.interval == "unbounded" and est.line_search == "grid":
        raise ValueError("interval='unbounded' needs line_search='exact' or 'exact_decision' (a grid needs "
                         "finite ends)")
    if est.selection == "training_error":
        if len(rhos) > 1:
            raise ValueError("selection='training_error' (the paper's rule for nu) cannot compare rho values: "
                             "the robust training count only grows with rho; give one rho, or selection='cv'")
        if not isinstance(est.alpha, str) and not is_finite_real(est.alpha) and \
                parse_values("alpha", est.alpha, "'auto', 'scale' or 'paper'").size > 1:
            raise ValueError("selection='training_error' (the paper's rule for nu) cannot compare kernel widths: "
                             "the training count prefers the narrowest; give one alpha, or selection='cv'")
    return Parameters(kern, nus, p, rhos, nu_order, auto_nu)


def plan_fit(est: Any, params: Parameters, data: TrainingData, rng: np.random.RandomState) -> Plan:
    """The plan of ``est.fit`` on ``data``: the candidate kernels, eta, the binary problems, the model, the solver
    and the landmarks (drawn from ``rng``)."""
    kernels = width_candidates(params.kernel, est.alpha, est.selection, data.stds, data.total_var, data.unit)
    eta = eta_vector(est.eta, data.y_given)  # per row given to fit: those of weight 0 left out below
    if eta is not None and data.kept is not None:
        eta = eta[data.kept]
    if eta is not None and data.unit != 1.0:
        eta = eta / data.unit  # an input-space length, as X (data.input_unit)
    problems = [data.classes[1]] if data.classes.size == 2 else list(data.classes)
    X = data.X
    L = landmark_count(est.n_landmarks, est.landmarks, X.shape[0])
    solver = est.solver if est.solver != "auto" else auto_solver(X, L, est.warm_start)
    if is_dask_array(X):
        if L is None and X.shape[0] > AUTO_MAX_ROWS:
            raise ValueError(f"X is a Dask array of {X.shape[0]} rows: the paper's model (n_landmarks=None) needs "
                             f"the {X.shape[0]} x {X.shape[0]} Gram matrix in memory; set n_landmarks (an int or "
                             "'auto') for the reduced model, which reads the chunks where they are")
        if L is not None and solver == "lp":
            raise ValueError("solver='lp' passes the reduced LP to HiGHS as it is, with the n x L kernel rows in "
                             "memory; for a Dask array use solver='cutting_plane' (or 'auto')")
    return Plan(
        kernels=kernels, nus=params.nus, nu_order=params.nu_order, nu_noise=params.nu_noise,
        kernel_noise=isinstance(est.alpha, str) and est.alpha == "auto" and len(kernels) > 1,
        p=params.p, rhos=params.rhos, eta=eta, problems=problems, n_landmarks=L,
        landmarks=None if L is None else select_landmarks(est.landmarks, X, L, rng, data.unit), solver=solver,
        asked_solver=est.solver,
        # "auto" only: an interior-point stall solved again by HiGHS (fold solves and the final fit alike)
        stall_lp_cells=STALL_LP_MAX_CELLS if est.solver == "auto" else 0,
        select_max_rows=AUTO_MAX_ROWS if L is None else SELECT_MAX_ROWS,
        path_options={"line_search": est.line_search, "n_grid": est.n_grid, "interval": est.interval,
                      "solver_options": est.solver_options},
        lp_solver=est.lp_solver, tol=est.tol, max_iter=est.max_iter)


def in_units(kern: Kernel, unit: float) -> Kernel:
    """The kernel ``kern`` of X as the kernel of ``X / unit`` (:func:`svmopt.robust.data.input_unit`: an RBF's width
    divided by the power of two ``unit``, exactly); :func:`in_input_units` maps it back."""
    return kern if unit == 1.0 or kern.name != "rbf" else kern.replace(alpha=float(kern.alpha) / unit)


def in_input_units(kern: Kernel, unit: float) -> Kernel:
    """The kernel of ``X / unit`` as the kernel of X (the inverse of :func:`in_units`)."""
    return kern if unit == 1.0 or kern.name != "rbf" else kern.replace(alpha=float(kern.alpha) * unit)


def width_candidates(kern: Kernel, alpha: Any, selection: str, stds: np.ndarray, total_var: float,
                     unit: float = 1.0) -> list[Kernel]:
    """The resolved kernels to fit: one, or the widths that ``selection="cv"`` compares (``alpha="auto"``); on data
    over ``unit`` (a numeric width given for X divided by it, the data-driven ones those of the data)."""
    if kern.is_resolved:
        return [in_units(kern, unit)]
    paper = float(np.max(stds)) if stds.size else 0.0
    if not (np.isfinite(paper) and paper > 0):
        paper = 1.0  # every feature constant: a zero denominator becomes 1
    scale = float(np.sqrt(stds.size * total_var / 2.0)) if stds.size else 0.0
    if not (np.isfinite(scale) and scale > 0):
        scale = 1.0
    c = paper if kern.c == "auto" else kern.c
    if kern.alpha != "auto" or kern.name != "rbf":  # no width to choose (the paper's c still resolved)
        return [kern.replace(c=c, alpha=paper if kern.alpha == "auto" else kern.alpha)]
    if isinstance(alpha, str):
        if alpha == "paper":
            widths = [paper]
        elif alpha == "scale" or selection == "training_error":
            widths = [scale]
        else:  # "auto": the paper's rule first (the selection prefers it), then the data-scaled multiples
            widths = [paper]
            for a in (scale * f for f in ALPHA_FACTORS):
                if all(abs(a - w) > SAME_WIDTH * w for w in widths):
                    widths.append(a)
    else:
        widths = [float(a) / unit for a in parse_values("alpha", alpha, "'auto', 'scale' or 'paper'")]
    return [kern.replace(c=c, alpha=a) for a in widths]


def eta_vector(eta_param: Any, y: np.ndarray) -> np.ndarray | None:
    """Per-sample eta of the rows of labels ``y`` from ``eta`` (scalar / array / per-class dict); None when rho is
    used."""
    if eta_param is None:
        return None
    n = y.shape[0]
    if isinstance(eta_param, Mapping):
        eta = np.full(n, np.nan)
        for label, val in eta_param.items():
            eta[y == label] = val
        missing = np.unique(y[np.isnan(eta)])
        if missing.size:
            raise ValueError(f"eta (per-class dict) has no value for class(es) {missing.tolist()}")
    elif is_finite_real(eta_param):
        eta = np.full(n, float(eta_param))
    else:
        eta = real_array(eta_param, "eta")
        if eta.shape != (n,):
            raise ValueError(f"eta must be a number, a dict per class or an array of shape ({n},) "
                             f"(one per training sample), got shape {eta.shape}")
    if not np.all(np.isfinite(eta)) or np.any(eta < 0):
        raise ValueError("eta must be finite and >= 0")
    return eta


def landmark_count(n_landmarks: int | str | None, landmarks: Any, n: int) -> int | None:
    """L of the reduced model, or None for the paper's model (``n_landmarks``; "auto" decides by ``n``)."""
    if n_landmarks is None:
        if not isinstance(landmarks, str):
            raise ValueError("landmarks given as points need the reduced model: set n_landmarks (an int or "
                             "'auto')")
        return None
    if isinstance(n_landmarks, str):  # "auto"
        if not isinstance(landmarks, str):  # given points: the reduced model over them, at any size
            return int(np.shape(landmarks)[0]) if np.ndim(landmarks) == 2 else 0
        if n <= AUTO_MAX_ROWS:
            return None
        L = min(n, max(AUTO_LANDMARKS, min(AUTO_LANDMARKS_MAX, n // AUTO_ROWS_PER_LANDMARK)))
        logger.info("RobustSVC: %d training rows > %d, the reduced model over %d landmarks (n_landmarks='auto')",
                    n, AUTO_MAX_ROWS, L)
        return L
    if int(n_landmarks) > n and isinstance(landmarks, str):
        raise ValueError(f"n_landmarks={n_landmarks} exceeds the {n} training rows to choose them from")
    return int(n_landmarks)


def select_landmarks(landmarks: Any, X: Any, L: int, rng: np.random.RandomState, unit: float = 1.0) -> np.ndarray:
    """The reduced model's landmarks (L x d): the given points (over ``unit``, as X is), or chosen from X by the
    method ``landmarks``."""
    if not isinstance(landmarks, str):
        Z = real_array(landmarks, "landmarks")
        if Z.ndim == 2 and Z.shape[0] == 0:
            raise ValueError(f"landmarks is empty (shape {Z.shape}): give at least one point, or a method "
                             "('entropy', 'kmeans', 'random')")
        if Z.ndim != 2 or Z.shape[1] != X.shape[1] or Z.shape[0] != L or not np.all(np.isfinite(Z)):
            raise ValueError(f"landmarks must be a finite array of shape (n_landmarks, {X.shape[1]}) = "
                             f"({L}, {X.shape[1]}), got shape {Z.shape}")
        # a copy: landmarks_ is not the caller's array
        return np.array(Z if unit == 1.0 else Z / unit, dtype=np.float64, order="C")
    if landmarks == "random":
        Zr = take_rows(X, np.sort(rng.choice(X.shape[0], L, replace=False)))
        return dense_rows(Zr, "RobustSVC's landmarks (n_landmarks x n_features)") if is_sparse(Zr) else Zr
    # As the fixed-size LS-SVM does: the search runs on at most MAX_CANDIDATES rows (a uniform sample above that),
    # so its cost and its copy stay bounded whatever n (for a Dask array, the candidates are gathered; k-means
    # on an in-memory array sees every row).
    n = X.shape[0]
    cand = np.arange(n) if n <= MAX_CANDIDATES else np.sort(rng.choice(n, MAX_CANDIDATES, replace=False))
    if landmarks == "kmeans":
        km = MiniBatchKMeans(n_clusters=L, random_state=rng.randint(2**31 - 1), n_init=1)
        return np.ascontiguousarray(km.fit(take_rows(X, cand) if is_dask_array(X) else X).cluster_centers_,
                                    dtype=np.float64)
    if is_sparse(X):  # the candidates densified (the core's search reads dense rows): those within half the budget
        fit = max(L, (get_memory_budget() // 2) // (8 * max(X.shape[1], 1)))
        if cand.size > fit:
            cand = np.sort(rng.choice(cand, fit, replace=False))
        Xc = dense_rows(X[cand], "RobustSVC's landmark candidates (rows x n_features)")
    else:
        Xc = X if cand.size == n and not is_dask_array(X) else take_rows(X, cand)
    # The plug-in bandwidths of the entropy criterion (Algorithm 2 of paper 002) on binned sums above
    # LANDMARK_EXACT_BANDWIDTH_ROWS rows: the exact sums cost O(n^2) per feature (5 s at 1,400 rows x 57 features).
    h = entropy_bandwidths(Xc, exact_max_n=LANDMARK_EXACT_BANDWIDTH_ROWS)[0] if Xc.shape[0] >= 2 else None
    idx = select_prototypes(Xc, L, bandwidths=h, random_state=rng.randint(2**31 - 1))["idx"]
    return np.ascontiguousarray(Xc[np.sort(idx)])


def robust_bounds(plan: Plan, data: TrainingData, kern: Kernel, X: np.ndarray, yb: np.ndarray, rho: float | None,
                  rows: np.ndarray | None = None) -> np.ndarray | None:
    """delta_i (12) of the rows ``rows`` of the training data (None: every row), ``X`` and ``yb`` (binary labels)
    theirs, under the kernel ``kern`` and the rho rule's ``rho`` (None: the plan's eta, or eta = 0); None for the
    deterministic model."""
    if plan.p is None:
        return None
    w = data.weight
    if rho is not None:
        eta = eta_from_rho(X, yb, float(rho), None if w is None else (w if rows is None else w[rows]))
    elif plan.eta is not None:
        eta = plan.eta if rows is None else plan.eta[rows]
    else:
        eta = np.zeros(X.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        delta = robust_delta(kern, X, eta, p=plan.p)
    if not np.all(np.isfinite(delta)):
        raise ValueError("the robust bounds delta_i overflow float64: eta (or rho times the features' spread) "
                         "is too large for these data and this kernel")
    return delta
