"""Which solver ``solver="auto"`` runs for paper 001's comparison models, (SVM-l1) of :class:`svmopt.L1SVC` and
(FS-SVM) of :class:`svmopt.FeatureBudgetSVC`, and the HiGHS options of L1SVC's direct LP: the direct LP/MILP (a row
and a column per training point) or the cutting planes on the hinge sum (:mod:`svmopt._shared.cutting_plane`, one
pass over the data per iteration, a master of 2 d + 1 columns)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svmopt._shared.dask import is_dask_array
from svmopt._shared.sparse import is_sparse

#: ``solver="auto"`` of FeatureBudgetSVC uses the cutting planes above this many rows (the direct MILP has a column
#: and a row per training point).
AUTO_CUTTING_PLANE_ROWS = 20_000
#: L1SVC's ``solver="auto"``: the direct LP up to AUTO_LP_ROWS rows (HiGHS's simplex: the exact vertex, in
#: milliseconds); above, the cutting planes where the rows outnumber the features AUTO_ROWS_PER_FEATURE times or more
#: (their master LP has 2 d + 1 columns and a few hundred rows), else the direct LP by HiGHS's interior point up to
#: AUTO_LP_MAX_NONZEROS nonzeros of X (the cutting planes beyond: their memory does not grow with n, and their iterate
#: is a usable model wherever max_time stops them). Measured, CPU seconds about the wall's (C = 1; LP by the interior
#: point / cutting planes): 1,000 x 100 0.33 / 0.67, 2,000 x 200 1.9 / 7.3, 3,000 x 400 9.2 / > 60, a sparse 20,000
#: x 5,000 of 10^5 nonzeros 4.0 / > 60; 5,000 x 50 1.3 / 0.38, 5,000 x 100 3.1 / 1.6, 20,000 x 50 8.9 / 0.85
#: (HiGHS's simplex 43 s), 20,000 x 100 29 / 3.5, 50,000 x 20 11 / 0.20. On a sparse 10^6 x 10^5 of 10^7 nonzeros
#: the interior point had no point after 300 s (benchmarks/results/sparse_linear.json), where the cutting planes'
#: iterate held 81 % held-out accuracy.
AUTO_LP_ROWS = 1_000
AUTO_ROWS_PER_FEATURE = 25
AUTO_LP_MAX_NONZEROS = 2_000_000


def pick_solver(solver: str, X: Any, by_shape: bool = False) -> str:
    """The solver of ``solver="auto"``: by the rows (FeatureBudgetSVC), or by the shape and the nonzeros of X
    (``by_shape``, L1SVC's rule above); a Dask array always takes the cutting planes."""
    if solver == "auto" and by_shape and not is_dask_array(X):
        n, d = X.shape
        nnz = X.nnz if is_sparse(X) else n * d
        lp = n <= AUTO_LP_ROWS or (n < AUTO_ROWS_PER_FEATURE * d and nnz <= AUTO_LP_MAX_NONZEROS)
        return "lp" if lp else "cutting_plane"
    if solver == "auto":
        return "cutting_plane" if is_dask_array(X) or X.shape[0] > AUTO_CUTTING_PLANE_ROWS else "lp"
    if solver == "lp" and is_dask_array(X):
        raise ValueError("solver='lp' passes the model to HiGHS with a row per training point in memory; for a Dask "
                         "array use solver='cutting_plane' (or 'auto')")
    return solver


def lp_options(solver_options: Mapping[str, Any] | None, X: Any) -> dict[str, Any] | None:
    """L1SVC's HiGHS options for the direct LP: the interior point above AUTO_LP_ROWS rows (4.9x faster than the
    simplex at 20,000 x 50; see AUTO_ROWS_PER_FEATURE), unless ``solver_options`` name a ``solver``."""
    if X.shape[0] <= AUTO_LP_ROWS or "solver" in (solver_options or {}):
        return None if solver_options is None else dict(solver_options)
    return {"solver": "ipm", **(solver_options or {})}
