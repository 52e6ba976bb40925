"""Cross-validated selection of RobustSVC's hyperparameters (the kernel width, rho and nu) on the training data.

Paper 000 selects nu by the training misclassification count of Pseudocode 1 and picks its kernel configuration and
rho on the test split (Section 6). A library cannot look at a test split, and the training count always prefers the
largest nu and the narrowest kernel; so ``RobustSVC(selection="cv")`` compares the candidates by their held-out
errors instead:

* stratified k-fold (``cv`` folds, unshuffled: deterministic) on the training rows, or on a stratified subsample
  of them above :data:`svmopt.robust.plan.SELECT_MAX_ROWS` (``AUTO_MAX_ROWS`` for the paper's model; the same folds
  for every candidate); or the user's splitter or (train, test) pairs (:func:`svmopt._shared.splits.cv_splits`);
* with sample weights, the folds' LPs and line searches are weighted and a held-out error counts its weight;
* every candidate kernel width and rho is one LP path over the nu grid per fold and binary problem, solved exactly
  as the final fit solves it (LP (23) on the fold's Gram block, or the reduced model over the fit's landmarks),
  the threshold chosen on the fold's training rows by the line search (10)/(27);
* each solution of the path is scored on the held-out rows with the test-time rule (class A iff f(x) - b > 0).

The reduced model's kernel rows K(X, Z) are computed once per kernel width and sliced per fold while they fit half
the memory budget (:func:`svmopt.get_memory_budget`), as the final fit keeps them; beyond (the user's index pairs
over every row of a large X) each fold's interior-point or cutting-plane solver computes its training rows' kernel
rows at every pass (the interior-point method keeping the leading rows that fit half the budget) and the held-out
rows are scored by the streamed kernel matvec: no n x L matrix is formed. ``solver="lp"`` (HiGHS on the LP as it
is) needs the kernel rows in memory whatever their size (up to the whole budget). Kept, the rows of a fold's
training part are a copy beside them (the solver reads them contiguous), so both together must fit half the budget.
The two paths choose alike but where an interior-point solve stalls short of its gap: with the rows in memory
(at most ``stall_lp_cells``) HiGHS solves that nu again exactly, streamed the stalled solve's certified point is
scored.

Decisions: the kernel width and rho are shared by the binary problems of one-vs-rest (one kernel per estimator) and
are compared by the sum over problems of each problem's held-out errors at its nu; nu is chosen per problem. The
candidates are scored by :func:`svmopt._shared.selection.candidate_fold_errors` (kernel by kernel, a kernel's rows
made once for its folds) and kept per fold, then chosen by :func:`choose`:

* given values (a sequence of widths, nu or rho, ``nu="grid"``): the fewest held-out errors, ties to the larger nu
  (on small data a small nu often ties at the majority rate with u = 0, a constant classifier) and to the width and
  rho given first;
* the defaults (``alpha="auto"``, ``nu="auto"``), which hold the paper's own rules as candidates -- its width
  ``max_j std_j`` first, and ``nu = 1``, where its training-count rule over its grid ends -- keep the paper's
  choice unless another candidate is better beyond the noise of the folds: the one-standard-error rule on the
  paired fold differences (:func:`svmopt._shared.selection.first_within_noise`), the preference order the paper's
  value first, then (nu) the values nearest it, the larger first, and (widths) the data-scaled ones in the order of
  ``ALPHA_FACTORS``. A candidate whose fold model predicted one class for all the fold's held-out rows (u = 0, or
  every score on one side) on some fold is preferred last: three folds of 17 rows (Arrhythmia) cannot tell such a
  constant classifier from a real one, and the paper's width on standardized data of 279 features, or nu = 1 on 51
  rows, gave one.

The landmarks of the reduced model depend on X only (no labels), so they are chosen once on all training rows and
shared by the folds.

:func:`select_by_cv` runs this for a fit's :class:`~svmopt.robust.plan.Plan` (its subsample, folds and solver) and
returns the plan narrowed to the choice; :func:`cross_validate_paths` scores the candidates.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.config import get_memory_budget, warn
from svmopt._shared.dask import is_dask_array
from svmopt._shared.runtime import TimeBudget, progress
from svmopt._shared.selection import candidate_fold_errors, first_lowest, first_within_noise, fold_totals
from svmopt._shared.splits import cv_is_index_pairs, cv_splits, stratified_subsample
from svmopt._shared.validation import shown
from svmopt.kernels import Kernel
from svmopt.robust.data import TrainingData, take_rows
from svmopt.robust.fit import MAX_KERNEL_MAGNITUDE, fit_binary, fit_binary_reduced
from svmopt.robust.plan import Plan, auto_solver, in_input_units, robust_bounds
from svmopt.robust.sparse import SparseKernelRows, is_sparse

logger = logging.getLogger(__name__)

#: Under ``max_time``, the cross-validation starts no fold solve after this share of it (the rest is the final fit's).
SELECT_TIME_SHARE = 0.75

#: ``delta_of(kernel, X_fold, y_binary_fold, rho, rows)``: a fold's robust bounds (None: the deterministic model).
DeltaOf = Callable[[Kernel, np.ndarray, np.ndarray, "float | None", np.ndarray], "np.ndarray | None"]


@dataclass
class Selection:
    """The outcome of :func:`cross_validate_paths`."""

    kernel: int  # index into the candidate kernels
    rho: int  # index into the candidate rhos
    nu: np.ndarray  # (n_problems,) selected nu per binary problem
    errors: np.ndarray  # (n_kernels, n_rhos, n_problems, n_nus) held-out error counts summed over the folds
    fold_errors: np.ndarray  # (n_folds, n_kernels, n_rhos, n_problems, n_nus) the same per fold (NaN: not scored)
    constant: np.ndarray  # (n_folds, n_kernels, n_rhos, n_problems, n_nus) the fold's model gave one class throughout
    n_rows: int  # rows the folds were drawn from
    held_out: float  # the folds' held-out rows summed (their weights with sample weights): the errors' denominator
    n_folds: int
    seconds: float
    n_not_converged: int  # fold solves stopped by max_iter (their models were scored as they were)
    stopped: bool = False  # max_time's deadline cut the search short (unscored candidates have infinite errors)


def _held_out_decision(F: np.ndarray, va: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """(F coef)[va]: the held-out rows' scores from the stored kernel rows F."""
    return (F @ coef)[va]


def _streamed_decision(kern: Kernel, X_va: np.ndarray, Z: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """K(X_va, Z) coef without storing K(X_va, Z): empty for no held-out rows, NaN for a non-finite ``coef`` (what
    the product with stored kernel rows gives)."""
    if X_va.shape[0] == 0 or not np.all(np.isfinite(coef)):
        return np.full(X_va.shape[0], np.nan)
    return kern.matvec(X_va, Z, coef)


@dataclass
class _KernelRows:
    """One candidate kernel's rows on the selection's data, made once for all its folds: the Gram matrix (paper's
    model; rows: held-out points, columns: a fold's expansion points, its training rows) or K(X, Z) (reduced model;
    None when streamed), the landmarks' sqrt(k(z, z)), and whether the values overflow (or reach 1e15)."""

    F: np.ndarray | None
    r: np.ndarray | None
    overflow: bool


def _kernel_rows(kern: Kernel, X: np.ndarray, Z: np.ndarray | None, stream: bool) -> _KernelRows:
    F: np.ndarray | None
    if Z is None:
        F, r = kern.gram(X), None
    else:
        r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
        F = None if stream else kern.cross(X, Z)
    if stream:  # every kernel row finite: their means, streamed
        assert Z is not None
        overflow = not np.all(np.isfinite(kern.matvec(X, Z, np.full(Z.shape[0], 1.0 / Z.shape[0]))))
    else:
        assert F is not None
        overflow = F.size > 0 and not float(np.max(np.abs(F))) < MAX_KERNEL_MAGNITUDE
    return _KernelRows(F, r, overflow)


def _real_first(order: np.ndarray, constant: np.ndarray) -> np.ndarray:
    """``order`` with the candidates flagged ``constant`` moved to its end (their order kept)."""
    order = np.asarray(order)
    return np.concatenate([order[~constant[order]], order[constant[order]]])


def choose(fold_err: np.ndarray, nu_order: np.ndarray, *, kernel_noise: bool = False, nu_noise: bool = False,
           constant: np.ndarray | None = None) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The choice from the per-fold held-out errors ``fold_err`` (n_folds, n_kernels, n_rhos, n_problems, n_nus; NaN
    where not scored): the kernel, the rho, each problem's nu index, and the errors summed over the folds (inf for
    a candidate not scored on every fold, which is never preferred to a scored one).

    Each (kernel, rho, problem) takes its nu first: the first of ``nu_order`` among the lowest sums
    (:func:`~svmopt._shared.selection.first_lowest`) or, with ``nu_noise``, the first of that order within the noise
    of the folds of the lowest (:func:`~svmopt._shared.selection.first_within_noise`). The kernel and rho
    (candidates kernel-major, in their given order) are then compared by the errors of their problems at those nu,
    summed over the problems, fold by fold: the lowest sum (first on ties) or, with ``kernel_noise``, the first
    within the noise of the folds.

    ``constant`` (the shape of ``fold_err``): the fold's model predicted one class for all its held-out rows (u = 0,
    or every score on one side). The noise rule prefers no such candidate: on few rows a constant classifier can
    lie within the noise of a real one (3 folds of 17 rows), so a candidate constant on any fold goes to the end
    of the preference order (chosen only as the lowest of all)."""
    n_folds, n_k, n_r, n_p, n_nu = fold_err.shape
    if constant is None:
        constant = np.zeros(fold_err.shape, dtype=bool)
    collapsed = np.asarray(constant.any(axis=0))  # (n_k, n_r, n_p, n_nu)
    sums, counted = fold_totals(fold_err.reshape(n_folds, -1), complete="candidate")
    sums = sums.reshape(n_k, n_r, n_p, n_nu)
    pick = np.zeros((n_k, n_r, n_p), dtype=np.intp)
    for idx in np.ndindex(n_k, n_r, n_p):
        column = fold_err[(slice(None),) + tuple(idx)]  # noqa: RUF005 (mypy targets Python 3.10)
        pick[idx] = (first_within_noise(column, counted, _real_first(nu_order, collapsed[idx]))
                     if nu_noise else first_lowest(sums[idx], nu_order))
    # per fold and (kernel, rho): its problems' errors at their nu (NaN where a fold did not score one)
    at_pick = np.take_along_axis(fold_err, pick[None, ..., None], axis=4)[..., 0].sum(axis=3).reshape(n_folds, -1)
    order = np.arange(n_k * n_r)
    if kernel_noise:
        flat = np.take_along_axis(collapsed, pick[..., None], axis=3)[..., 0].any(axis=2).ravel()
        c = first_within_noise(at_pick, counted, _real_first(order, flat))
    else:
        c = first_lowest(np.take_along_axis(sums, pick[..., None], axis=3)[..., 0].sum(axis=2).ravel(), order)
    ka, kr = divmod(c, n_r)
    return ka, kr, pick[ka, kr], sums


def cross_validate_paths(X: np.ndarray, y: np.ndarray, problems: Sequence[Any], kernels: Sequence[Kernel],
                         rhos: Sequence[float | None], nus: np.ndarray, *, p: float | None,
                         delta_of: DeltaOf,
                         Z: np.ndarray | None, folds: list[tuple[np.ndarray, np.ndarray]], solver: str,
                         fit_options: dict[str, Any], weight: np.ndarray | None = None,
                         deadline: float | None = None, bar: Any = None, nu_order: np.ndarray | None = None,
                         kernel_noise: bool = False, nu_noise: bool = False) -> Selection:
    """Held-out error counts of every (kernel, rho, problem, nu) on common folds of ``(X, y)``; the choice
    (:func:`choose`, ``nu_order`` by default the largest nu first).

    ``delta_of(kernel, X_fold, y_binary_fold, rho, rows)`` gives the fold's robust bounds (None: deterministic);
    ``rows`` are the fold's row indices into ``X`` (for per-sample eta). ``Z=None`` fits LP (23) on the fold's Gram
    block; else the reduced model over the landmarks ``Z``. ``fit_options`` go to the path fitter.

    The candidates are scored kernel by kernel (:func:`~svmopt._shared.selection.candidate_fold_errors`: a kernel's
    rows are computed once for its folds), each fold and problem one nu path per rho, every solution of the path
    scored on the held-out rows. ``weight`` (sample weights, > 0): the folds' fits are weighted and a held-out error
    counts its row's weight. A fold whose training rows hold one class of a problem scores none of that problem's
    candidates (its held-out rows add no error to any: they stay alike); a problem left so on every fold is warned
    about. A kernel whose values overflow (or reach 1e15) on these data has infinite errors (never selected).
    ``deadline`` (``time.perf_counter()``): no fold solve starts after it, and the nu paths stop there; a
    candidate not scored on every fold counts as an infinite error (with none scored: the first width and rho, and
    the first nu of ``nu_order``). ``Selection.stopped`` says whether it hit."""
    t0 = time.perf_counter()
    nu_order = np.arange(nus.size)[::-1] if nu_order is None else np.asarray(nu_order)
    shape = (len(rhos), len(problems), nus.size)
    # Whether a fold's training rows hold both sides of a problem: with one only (a class of one row, which plain
    # k-fold holds out; or a user's split) there is no model to score, and every candidate is alike on that fold.
    trainable = np.array([[bool(np.any(y[tr] == label) and np.any(y[tr] != label)) for tr, _ in folds]
                          for label in problems], dtype=bool).reshape(len(problems), len(folds))
    never = [label for label, row in zip(problems, trainable, strict=True) if folds and not row.any()]
    if never:
        warnings.warn(f"RobustSVC: the cross-validation scored no candidate of the problem(s) {shown(never)}: the "
                      "class is missing from the training rows of every fold; their nu is the first of the preference "
                      "order (the tie rule), their held-out errors are 0", UserWarning, stacklevel=2)
    not_converged = 0
    # The reduced model's kernel rows, streamed beyond half the memory budget (HiGHS on the LP as it is needs them).
    half = get_memory_budget() // 2
    most_tr = max((tr.size for tr, _ in folds), default=0)
    stream = Z is not None and solver != "lp" and (X.shape[0] + most_tr) * Z.shape[0] * 8 > half
    current: dict[int, _KernelRows] = {}  # the kernel being scored (one at a time)
    constant = np.zeros((len(folds), len(kernels), *shape), dtype=bool)

    def score(fi: int, a: int) -> np.ndarray:
        nonlocal not_converged
        kern = kernels[a]
        if a not in current:
            current.clear()
            current[a] = _kernel_rows(kern, X, Z, stream)
        rows_a = current[a]
        if rows_a.overflow:
            return np.full(shape, np.inf)  # never selected; not a deadline cut
        out = np.full(shape, np.nan)
        F, r = rows_a.F, rows_a.r
        tr, va = folds[fi]
        if stream:  # the fold's rows of X (n x d, read from a memmap): their kernel rows are not kept
            X_tr, X_va = ((X[tr], X[va]) if is_sparse(X) else
                          (np.asarray(X[tr], dtype=np.float64), np.asarray(X[va], dtype=np.float64)))
        for pi, label in enumerate(problems):
            if not trainable[pi, fi]:
                out[:, pi] = 0.0
                continue
            yb = np.where(y == label, 1.0, -1.0)
            truth = yb[va] > 0
            w_tr = None if weight is None else weight[tr]
            w_va = np.ones(va.size) if weight is None else weight[va]
            for ri, rho in enumerate(rhos):
                if deadline is not None and time.perf_counter() >= deadline:
                    return out
                delta = None if p is None else delta_of(kern, X_tr if stream else X[tr], yb[tr], rho, tr)
                cell = out[ri, pi]
                decision: Callable[[np.ndarray], np.ndarray]
                if stream:  # the streamed kernel matvec (no held-out rows, or a non-finite solution: as F_va @)
                    assert Z is not None
                    decision = functools.partial(_streamed_decision, kern, X_va, Z)
                elif Z is None:
                    assert F is not None
                    decision = F[np.ix_(va, tr)].__matmul__
                else:  # the held-out rows' scores from all rows' (no copy of F[va] held through the solve)
                    assert F is not None
                    decision = functools.partial(_held_out_decision, F, va)

                def on_solution(nu: float, coef: np.ndarray, b: float, decision=decision, truth=truth, cell=cell,
                                w_va=w_va, flags=constant[fi, a, ri, pi]) -> None:
                    k = int(np.flatnonzero(nus == nu)[0])
                    side = (decision(coef) - b) > 0
                    wrong = side != truth
                    cell[k] = np.count_nonzero(wrong) if weight is None else float(w_va[wrong].sum())
                    flags[k] = not np.any(coef != 0.0) or bool(side.all() == side.any())

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    if Z is None:
                        assert F is not None
                        fit_binary(F[np.ix_(tr, tr)], yb[tr], delta=delta, nus=nus, on_solution=on_solution,
                                   weight=w_tr, deadline=deadline, **fit_options)
                    else:
                        assert r is not None
                        rows: dict[str, Any] = (
                            {**({"row_blocks": SparseKernelRows(kern, X_tr, Z)} if is_sparse(X_tr) else
                                {"X": X_tr, "Z": Z, "params": kern.core_params}),
                             "cache_rows": half // (8 * max(Z.shape[0], 1)) if solver == "ipm" else 0}
                            if stream else {"Phi": np.ascontiguousarray(F[tr])})  # type: ignore[index]
                        fit_binary_reduced(yb[tr], r, delta=delta, nus=nus, solver=solver, on_solution=on_solution,
                                           weight=w_tr, deadline=deadline, **rows, **fit_options)
                # max_iter's warnings are counted; HiGHS's at max_time's deadline are the Selection's `stopped`;
                # any other is passed on
                late = deadline is not None and time.perf_counter() >= deadline
                not_converged += sum(issubclass(w.category, ConvergenceWarning) and "max_iter" in str(w.message)
                                     for w in caught)
                for w in caught:
                    counted = issubclass(w.category, ConvergenceWarning) and ("max_iter" in str(w.message) or late)
                    if not counted:
                        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out

    fold_err, stopped = candidate_fold_errors(len(folds), len(kernels), score, deadline, bar, shape)
    current.clear()
    fold_err = fold_err.reshape(len(folds), len(kernels), *shape)
    stopped = stopped or bool(np.isnan(fold_err).any())  # a path or a problem cut short by the deadline
    ka, kr, nu_idx, errors = choose(fold_err, nu_order, kernel_noise=kernel_noise, nu_noise=nu_noise,
                                    constant=constant)
    held_out = float(sum(va.size if weight is None else weight[va].sum() for _, va in folds))
    return Selection(kernel=ka, rho=kr, nu=nus[nu_idx], errors=errors, fold_errors=fold_err, constant=constant,
                     n_rows=int(y.size),
                     held_out=held_out, n_folds=len(folds), seconds=time.perf_counter() - t0,
                     n_not_converged=not_converged, stopped=stopped)


def select_by_cv(plan: Plan, data: TrainingData, cv: Any, rng: np.random.RandomState, budget: TimeBudget,
                 verbose: bool) -> tuple[Plan, list[np.ndarray], dict[str, Any]]:
    """``selection="cv"`` over the plan's candidates (its subsample drawn from ``rng``): the plan with the chosen
    kernel and rho only, each binary problem's chosen nu, and the estimator's ``selection_``."""
    X, y, w = data.X, data.y, data.weight
    L = plan.n_landmarks
    explicit = cv_is_index_pairs(cv)
    if explicit:  # (train, test) pairs index the rows given to fit: every row
        sel_rows = np.arange(y.shape[0])
    else:
        sel_rows = stratified_subsample(y, plan.select_max_rows, rng)
    Xs = take_rows(X, sel_rows) if sel_rows.size < X.shape[0] or is_dask_array(X) else X
    folds = cv_splits(cv, y[sel_rows], data.kept if explicit else None,
                      n_given=data.y_given.shape[0] if explicit and not is_dask_array(X) else None)
    options = dict(plan.path_options)
    # The folds solve the same LPs exactly: LP (23) on the fold's Gram block for the paper's model, the
    # reduced LP by the solver that "auto" picks at the fold's size (or the one asked for).
    cv_solver = "lp" if L is None else (plan.asked_solver if plan.asked_solver != "auto" else auto_solver(Xs, L))
    if L is None:
        options["lp_solver"] = plan.lp_solver
    elif cv_solver in ("cutting_plane", "ipm"):
        options.update(tol=plan.tol, max_iter=plan.max_iter, stall_lp_cells=plan.stall_lp_cells)
    cv_bar = progress(verbose, len(plan.kernels) * len(folds), "RobustSVC cross-validation")
    sel = cross_validate_paths(
        Xs, y[sel_rows], plan.problems, plan.kernels, plan.rhos, plan.nus, p=plan.p, Z=plan.landmarks, folds=folds,
        solver=cv_solver, fit_options=options, weight=None if w is None else w[sel_rows],
        deadline=None if budget.max_time is None else budget.start + SELECT_TIME_SHARE * budget.max_time,
        bar=cv_bar, delta_of=functools.partial(_subsample_bounds, plan, data, sel_rows), nu_order=plan.nu_order,
        kernel_noise=plan.kernel_noise, nu_noise=plan.nu_noise)
    cv_bar.close()
    if sel.stopped:
        budget.cut(f"the cross-validation (after {SELECT_TIME_SHARE:g} of max_time; candidates not scored "
                   "on every fold were not chosen)")
    if sel.n_not_converged:
        warn(f"RobustSVC: {sel.n_not_converged} cross-validation solves stopped at max_iter={plan.max_iter}; "
             "they were scored as they were", ConvergenceWarning)
    selection = {
        "alpha": [in_input_units(k, data.unit).alpha for k in plan.kernels] if plan.kernels[0].name == "rbf" else None,
        "rho": None if plan.rhos[0] is None else np.asarray(plan.rhos),
        # the errors over the folds' held-out rows (weights), each as often as it is held out
        "nu": plan.nus, "errors": sel.errors / sel.held_out, "fold_errors": sel.fold_errors / sel.held_out,
        "n_rows": sel.n_rows, "n_folds": sel.n_folds, "time_s": sel.seconds}
    logger.info("RobustSVC: selected %s, rho=%s, nu=%s by %d-fold cross-validation on %d rows (%.2f s)",
                in_input_units(plan.kernels[sel.kernel], data.unit), plan.rhos[sel.rho], sel.nu.tolist(), sel.n_folds,
                sel.n_rows, sel.seconds)
    if verbose:
        print_selection(selection, sel.kernel, sel.rho)
    chosen = dataclasses.replace(plan, kernels=[plan.kernels[sel.kernel]], rhos=[plan.rhos[sel.rho]])
    return chosen, [np.array([v]) for v in sel.nu], selection


def _subsample_bounds(plan: Plan, data: TrainingData, sel_rows: np.ndarray, kern: Kernel, X: np.ndarray,
                      yb: np.ndarray, rho: float | None, rows: np.ndarray) -> np.ndarray | None:
    """:data:`DeltaOf` of the subsample ``sel_rows``: a fold's robust bounds (``rows`` index the subsample)."""
    return robust_bounds(plan, data, kern, X, yb, rho, sel_rows[rows])


def print_selection(sel: dict, ka: int, kr: int) -> None:
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
