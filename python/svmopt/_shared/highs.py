"""A small shared layer over HiGHS (``highspy``) for svmopt's LP and MILP models.

The C++ core builds a model's constraint matrix as CSC arrays (column starts, row indices, values); this
module hands them to HiGHS in **one** ``passModel`` call (never row by row from Python), sets the options,
solves, and maps the HiGHS model status to svmopt's conventions:

* optimal -> a :class:`HighsResult`;
* time / iteration / solution limit or interrupt **with** a primal feasible incumbent ->
  ``sklearn.exceptions.ConvergenceWarning`` and the incumbent (``result.optimal`` is False);
* anything else (infeasible, unbounded, load/model/solve errors, numerical trouble, no incumbent) ->
  :class:`svmopt.SolverError` whose ``status`` is the HiGHS model status string; except that
  ``solve(iterate_at_limit=True)`` returns HiGHS's current point at a limit, feasible or not, without a warning,
  for a caller that makes it feasible and warns itself.

Re-solves after an objective change (:meth:`HighsModel.change_costs`) start from the previous basis
(HiGHS keeps it) or, with ``warm_start=False``, cold on the same model (no second ``passModel``).
For MILPs (paper 001) pass ``integrality`` and optionally a MIP start (:meth:`HighsModel.set_start`).

Ctrl-C: a solve on the main thread raises ``KeyboardInterrupt`` within a fraction of a second, never a status or an
incumbent (:class:`svmopt._shared.interrupts.HighsRunner`).

Defaults (chosen for the small dense LPs of paper 000 and overridable through ``options``):
``presolve="off"``, ``solver="simplex"`` with the dual simplex (``simplex_strategy=1``), primal and dual
feasibility tolerances 1e-9 (tight, so that the returned ``xi`` match the hinge that
paper 000's omega (9) is computed from; its code ran CVX at high precision), ``random_seed=0``, output off.
"""

from __future__ import annotations

import difflib
import functools
import numbers
import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import highspy
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.config import warn
from svmopt._shared.interrupts import HighsRunner
from svmopt.exceptions import SolverError

_INF = highspy.kHighsInf
_LARGE_MATRIX_VALUE = 1e15  # HiGHS's default large_matrix_value: passModel rejects larger |a_ij|
_MS = highspy.HighsModelStatus

DEFAULT_OPTIONS: dict[str, Any] = {
    "output_flag": False,
    "presolve": "off",
    "solver": "simplex",
    "simplex_strategy": 1,  # dual simplex
    "primal_feasibility_tolerance": 1e-9,
    "dual_feasibility_tolerance": 1e-9,
    "random_seed": 0,
}


_banner_done = False
_banner_lock = threading.Lock()


def _new_highs() -> highspy.Highs:
    """A silent ``highspy.Highs``. HiGHS prints its banner ("Running HiGHS ...") on stdout when the process
    creates its first instance, before any option can be set; that one construction runs with the process's
    standard output sent to the null device, so that a library call prints nothing."""
    global _banner_done
    with _banner_lock:
        if not _banner_done:
            _banner_done = True
            if sys.stdout is not None:
                sys.stdout.flush()
            try:
                saved = os.dup(1)
            except OSError:  # no standard output at all: nothing to silence
                saved = None
            if saved is not None:
                try:
                    with open(os.devnull, "wb") as null:
                        os.dup2(null.fileno(), 1)
                        highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
    h = highspy.Highs()
    h.silent()
    return h


# Limits after which HiGHS may still hold a usable (primal feasible) incumbent.
_LIMIT_STATUSES = {
    _MS.kTimeLimit,
    _MS.kIterationLimit,
    _MS.kSolutionLimit,
    _MS.kInterrupt,
    _MS.kObjectiveBound,
    _MS.kObjectiveTarget,
}
if hasattr(_MS, "kHighsInterrupt"):
    _LIMIT_STATUSES.add(_MS.kHighsInterrupt)

_PRIMAL_FEASIBLE = 2  # HighsSolutionStatus kSolutionStatusFeasible



@dataclass
class HighsResult:
    """Solution of one HiGHS solve.

    Attributes
    ----------
    x : ndarray (n_cols,)
        Column values.
    objective : float
    status : str
        HiGHS model status string (``"Optimal"``, ``"Time limit reached"``, ...).
    optimal : bool
        False when ``x`` is an incumbent returned at a limit (a ``ConvergenceWarning`` was issued), or HiGHS's
        current point at a limit under ``iterate_at_limit`` (no warning; ``objective`` is then HiGHS's objective
        value, for the dual simplex its dual objective, not necessarily c'x).
    row_value, col_dual, row_dual : ndarray
        Row activities and duals (duals empty when HiGHS reports none, e.g. for a MILP).
    iterations : int
        Simplex + IPM + PDLP iterations of this solve.
    runtime : float
        HiGHS run time of this solve in seconds.
    info : dict
        Selected HiGHS info values (mip_gap, max primal/dual infeasibility, ...).
    """

    x: np.ndarray
    objective: float
    status: str
    optimal: bool
    row_value: np.ndarray
    col_dual: np.ndarray
    row_dual: np.ndarray
    iterations: int
    runtime: float
    info: dict = field(default_factory=dict)


def _as_int32(a: Any, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be a 1-D integer array")
    if arr.size and (arr.min() < 0 or arr.max() > np.iinfo(np.int32).max):
        raise ValueError(f"{name} has entries outside [0, 2^31 - 1] (HiGHS uses 32-bit indices)")
    return np.ascontiguousarray(arr, dtype=np.int32)


def _as_f64(a: Any, n: int, name: str, fill: float | None = None) -> np.ndarray:
    if a is None:
        if fill is None:
            raise ValueError(f"{name} is required")
        return np.full(n, fill, dtype=np.float64)
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    return np.ascontiguousarray(arr)


def merge_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``DEFAULT_OPTIONS`` updated with ``options``, checked by :func:`check_options`."""
    merged = dict(DEFAULT_OPTIONS)
    if options is None:
        return merged
    check_options(options)
    merged.update(options)
    return merged


#: HiGHS's option types: what a value must be, and the type's name in HiGHS's option list.
_OPTION_TYPES = {
    highspy.HighsOptionType.kBool: ("True or False", "bool"),
    highspy.HighsOptionType.kInt: ("an integer", "int"),
    highspy.HighsOptionType.kDouble: ("a number", "double"),
    highspy.HighsOptionType.kString: ("a string", "string"),
}


def check_options(options: Any) -> None:
    """``solver_options`` checked as HiGHS would take them, before any model is built: a mapping of HiGHS option
    names to values of the option's type, each accepted by HiGHS (its range, its string choices). A ``TypeError``
    for a non-mapping or a non-str key, else a ``ValueError`` naming the option -- an unknown name (with the
    nearest names), a value of the wrong type (with the type expected), or a value HiGHS refuses (a negative
    ``time_limit``, ``presolve="maybe"``)."""
    if options is None:
        return
    if not isinstance(options, Mapping):
        raise TypeError(f"solver_options must be a dict of HiGHS options or None, got {type(options).__name__}")
    for key, value in options.items():
        if not isinstance(key, str):
            raise TypeError(f"solver_options keys must be HiGHS option names (str), got {key!r}")
        problem = _option_problem(key, _plain(value))
        if problem:
            raise ValueError(f"solver_options[{key!r}]: {problem}")


def _plain(value: Any) -> Any:
    """numpy's scalars as the Python bool, int or float HiGHS takes."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _option_problem(key: str, value: Any) -> str | None:
    """Why HiGHS would not take ``key = value`` (None: it would)."""
    option = _option_type(key)
    if isinstance(option, str):
        return option
    expected, name = option
    kind = type(value).__name__
    if not {"bool": kind == "bool", "int": kind == "int", "double": kind in ("int", "float"),
            "string": kind == "str"}.get(name, True):
        return f"expected {expected} (a HiGHS {name} option), got {value!r} ({kind})"
    if not _option_value_taken(key, float(value) if name == "double" else value):
        return f"HiGHS refuses the value {value!r} (outside the range or the choices of this {name} option)"
    return None


# Asked of a scratch HiGHS instance, and cached: the models of one fit pass the same options many times.
@functools.lru_cache(maxsize=256)
def _option_type(key: str) -> tuple[str, str] | str:
    """``(what a value must be, HiGHS's type name)`` of the option ``key``, or why there is none."""
    h = _new_highs()
    status, option_type = h.getOptionType(key)
    if status != highspy.HighsStatus.kOk:
        names = [n for n in dir(h.getOptions()) if not n.startswith("_")]
        near = difflib.get_close_matches(key, names, n=3)
        return "not a HiGHS option" + (f" (did you mean {', '.join(map(repr, near))}?)" if near else "")
    return _OPTION_TYPES.get(option_type, ("a value", "?"))


@functools.lru_cache(maxsize=1024)
def _option_value_taken(key: str, value: Any) -> bool:
    """Whether HiGHS sets the option ``key`` (of ``value``'s type) to ``value``."""
    return _new_highs().setOptionValue(key, value) == highspy.HighsStatus.kOk


class HighsModel:
    """An LP or MILP held by one ``highspy.Highs`` instance, passed in one ``passModel`` call.

    Minimise ``c^T x`` subject to ``row_lower <= A x <= row_upper``, ``col_lower <= x <= col_upper`` and,
    for a MILP, ``x_j`` integer where ``integrality[j] == 1``.

    Parameters
    ----------
    a_start, a_index, a_value : array-like
        CSC matrix ``A`` (n_rows x n_cols): ``a_start`` of length n_cols or n_cols + 1, int32-compatible.
    col_cost : array-like (n_cols,)
    col_lower, col_upper : array-like (n_cols,) or scalar, default 0 and +inf
    row_lower, row_upper : array-like (n_rows,) or scalar, default -inf and +inf
    n_rows : int
    integrality : array-like of {0, 1} (n_cols,), optional
        1 marks an integer column (a MILP); None or all zeros is an LP.
    options : dict, optional
        HiGHS options overriding :data:`DEFAULT_OPTIONS`; an unknown name or a bad value is a ``ValueError``.
    time_limit : float, optional
        The ``time_limit`` option (seconds); with one in ``options`` too, the smaller.
    threads : int, optional
        Shortcut for the ``threads`` option.
    """

    def __init__(self, *, a_start: Any, a_index: Any, a_value: Any, col_cost: Any, n_rows: int,
                 col_lower: Any = 0.0, col_upper: Any = _INF, row_lower: Any = -_INF, row_upper: Any = _INF,
                 integrality: Any = None, options: Mapping[str, Any] | None = None,
                 time_limit: float | None = None, threads: int | None = None):
        cost = np.ascontiguousarray(np.asarray(col_cost, dtype=np.float64))
        if cost.ndim != 1:
            raise ValueError("col_cost must be 1-D")
        n_cols = cost.shape[0]
        start = _as_int32(a_start, "a_start")
        if start.shape[0] == n_cols + 1:
            nnz = int(start[-1])
            start = start[:-1]
        elif start.shape[0] == n_cols:
            nnz = int(np.asarray(a_index).shape[0])
        else:
            raise ValueError(f"a_start must have length n_cols ({n_cols}) or n_cols + 1, got {start.shape[0]}")
        index = _as_int32(a_index, "a_index")
        value = np.ascontiguousarray(np.asarray(a_value, dtype=np.float64))
        if index.shape[0] < nnz or value.shape[0] < nnz:
            raise ValueError("a_index and a_value must hold at least a_start[-1] entries")
        if index.size and index[:nnz].max(initial=0) >= n_rows:
            raise ValueError("a_index has a row index >= n_rows")
        if not np.all(np.isfinite(value[:nnz])):
            raise ValueError("a_value has non-finite entries")
        self.n_cols = int(n_cols)
        self.n_rows = int(n_rows)
        self.is_mip = False
        # passModel reads n_cols integrality entries (an empty array is read out of bounds): always pass them.
        integ = np.zeros(n_cols, dtype=np.int32)
        if integrality is not None:
            integ = np.ascontiguousarray(np.asarray(integrality), dtype=np.int32)
            if integ.shape != (n_cols,):
                raise ValueError(f"integrality must have shape ({n_cols},)")
            if not np.isin(integ, (0, 1)).all():
                raise ValueError("integrality entries must be 0 (continuous) or 1 (integer)")
            self.is_mip = bool(integ.any())
        self._integer = integ.copy()

        self._runner = HighsRunner()  # holds no reference to the model: no cycle through HiGHS's callbacks
        self._h = _new_highs()
        opts = merge_options(options)
        # A time_limit of the options bounds every solve of this model: the time_limit argument and later
        # set_option calls (a fit's remaining budget) can only tighten it.
        self._options_time_limit = float(opts.get("time_limit", np.inf))
        if time_limit is not None:
            opts["time_limit"] = min(float(time_limit), self._options_time_limit)
        if threads is not None:
            opts["threads"] = int(threads)
        if self.is_mip and opts.get("solver") == "simplex":
            opts["solver"] = "choose"  # the simplex cannot solve a MILP; let HiGHS run branch and bound
        self.options = opts
        for key, val in opts.items():
            self._set_option(key, val)
        large = float(opts.get("large_matrix_value", _LARGE_MATRIX_VALUE))
        if nnz and np.abs(value[:nnz]).max() >= large:
            raise ValueError(
                f"a_value has entries of magnitude >= {large:g}, which HiGHS refuses (option large_matrix_value); "
                "the data behind the model is too large: rescale it (e.g. StandardScaler)")

        status = self._h.passModel(
            self.n_cols, self.n_rows, nnz, 1, 1, 0.0,  # colwise, minimise, offset 0
            cost,
            _as_f64(col_lower, n_cols, "col_lower"),
            _as_f64(col_upper, n_cols, "col_upper"),
            _as_f64(row_lower, n_rows, "row_lower"),
            _as_f64(row_upper, n_rows, "row_upper"),
            start, index[:nnz], value[:nnz], integ,
        )
        if status == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the model in passModel", "Load error")

    def _set_option(self, key: str, val: Any) -> None:
        val = _plain(val)
        try:
            status = self._h.setOptionValue(key, val)
        except Exception as exc:  # highspy raises on a type mismatch in some versions
            raise ValueError(f"solver_options: cannot set HiGHS option {key!r} to {val!r}: {exc}") from None
        if status != highspy.HighsStatus.kOk:
            raise ValueError(f"solver_options: HiGHS rejected option {key!r} = {val!r} (unknown name or bad value)")

    def change_costs(self, indices: Any, costs: Any, *, warm_start: bool = True) -> None:
        """Change some objective coefficients.

        With ``warm_start=True`` the next :meth:`solve` starts from the current basis (HiGHS keeps it);
        with ``False`` the solver state is cleared (``clearSolver``) and the next solve starts cold, without
        passing the model again. On paper 000's LPs the cold start was measured faster (see
        ``benchmarks/asv/bench_robust.py::NuGrid``): after a cost change the old basis is dual infeasible and the
        dual simplex needs more iterations from it than from the slack basis.
        """
        idx = _as_int32(indices, "indices")
        c = np.ascontiguousarray(np.asarray(costs, dtype=np.float64))
        if c.shape != idx.shape:
            raise ValueError("indices and costs must have the same length")
        if idx.size and idx.max() >= self.n_cols:
            raise ValueError("a cost index is >= n_cols")
        status = self._h.changeColsCost(int(idx.size), idx, c)
        if status == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected changeColsCost", "Model error")
        if not warm_start:
            self._h.clearSolver()

    def clear_solver(self) -> None:
        """Forget the basis: the next :meth:`solve` starts from the slack basis (the model is kept)."""
        self._h.clearSolver()

    def rebuild(self) -> None:
        """Pass the current model to a fresh HiGHS instance (same options): after many row additions and deletions
        HiGHS's internal state may fail a solve that the same LP passed anew solves."""
        lp = self._h.getLp()
        self._h = _new_highs()
        for key, val in self.options.items():
            self._set_option(key, val)
        if self._h.passModel(lp) == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the model in passModel", "Load error")

    def set_option(self, key: str, value: Any) -> None:
        """Set one HiGHS option between solves (e.g. the ``time_limit`` left of a fit's budget; never above the
        ``time_limit`` of the options the model was built with)."""
        if key == "time_limit":
            value = min(float(value), self._options_time_limit)
        self._set_option(key, value)
        self.options[key] = value

    def change_col_bounds(self, indices: Any, lower: Any, upper: Any) -> None:
        """New bounds ``lower <= x_j <= upper`` of the columns ``indices`` (scalars are broadcast)."""
        self._change_bounds("column", self.n_cols, self._h.changeColsBounds, indices, lower, upper)

    def change_row_bounds(self, indices: Any, lower: Any, upper: Any) -> None:
        """New bounds ``lower <= (A x)_i <= upper`` of the rows ``indices`` (scalars are broadcast)."""
        # highspy's stub (1.16) lacks changeRowsBounds, which the extension has (beside changeColsBounds)
        change = self._h.changeRowsBounds  # type: ignore[attr-defined]
        self._change_bounds("row", self.n_rows, change, indices, lower, upper)

    @staticmethod
    def _change_bounds(what: str, size: int, change: Any, indices: Any, lower: Any, upper: Any) -> None:
        idx = _as_int32(np.atleast_1d(indices), "indices")
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise ValueError(f"a {what} index is outside [0, {size})")
        lo, hi = _as_f64(lower, idx.size, "lower"), _as_f64(upper, idx.size, "upper")
        if change(int(idx.size), idx, lo, hi) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS rejected the new {what} bounds", "Model error")

    def add_rows(self, lower: Any, upper: Any, starts: Any, indices: Any, values: Any) -> None:
        """Append rows ``lower <= A_new x <= upper`` given row-wise (CSR: ``starts`` of length n_new, ``indices`` and
        ``values`` of their entries); the next :meth:`solve` starts from the current basis (the new rows basic)."""
        lo = np.atleast_1d(np.asarray(lower, dtype=np.float64))
        n_new = lo.shape[0]
        up = _as_f64(upper, n_new, "upper")
        lo = _as_f64(lo, n_new, "lower")
        start = _as_int32(starts, "starts")
        index = _as_int32(indices, "indices")
        value = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
        if start.shape != (n_new,) or index.shape != value.shape:
            raise ValueError("starts must hold one entry per new row, and indices and values the same count")
        if index.size and index.max() >= self.n_cols:
            raise ValueError("indices has a column index >= n_cols")
        if not np.all(np.isfinite(value)):
            raise ValueError("values has non-finite entries")
        status = self._h.addRows(n_new, lo, up, index.shape[0], start, index, value)
        if status == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the new rows (addRows)", "Load error")
        self.n_rows += n_new

    def delete_rows(self, indices: Any) -> None:
        """Remove the rows ``indices`` (the others keep their order); the next :meth:`solve` starts from the basis
        left."""
        idx = np.unique(_as_int32(indices, "indices"))
        if idx.size and idx[-1] >= self.n_rows:
            raise ValueError("indices has a row index >= n_rows")
        if idx.size == 0:
            return
        status = self._h.deleteRows(int(idx.size), idx)
        if status == highspy.HighsStatus.kError:
            raise SolverError("HiGHS could not delete the rows (deleteRows)", "Load error")
        self.n_rows -= int(idx.size)

    def change_integrality(self, indices: Any, integer: bool) -> None:
        """Make the columns ``indices`` integer (a MILP from then on) or continuous again."""
        idx = _as_int32(np.atleast_1d(indices), "indices")
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_cols):
            raise ValueError(f"a column index is outside [0, {self.n_cols})")
        flags = np.full(idx.size, 1 if integer else 0, dtype=np.uint8)
        if self._h.changeColsIntegrality(int(idx.size), idx, flags) == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the new integrality", "Model error")
        self._integer[idx] = flags
        self.is_mip = bool(self._integer.any())
        if self.is_mip and self.options.get("solver") == "simplex":
            self._set_option("solver", "choose")

    def change_coeff(self, row: int, col: int, value: float) -> None:
        """Set the matrix entry ``A[row, col]`` (created when it was zero)."""
        if not (0 <= row < self.n_rows and 0 <= col < self.n_cols):
            raise ValueError(f"entry ({row}, {col}) is outside the {self.n_rows} x {self.n_cols} matrix")
        if not np.isfinite(value):
            raise ValueError(f"a matrix entry must be finite, got {value!r}")
        if self._h.changeCoeff(int(row), int(col), float(value)) == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected changeCoeff", "Model error")

    def on_mip_events(self, *, improving: Any = None, interrupt: Any = None, bounds: Any = None) -> None:
        """Subscribe MIP callbacks for the next solves: ``improving(running_time, primal_bound)`` at each new
        incumbent, and ``interrupt(running_time, primal_bound) -> bool`` polled by branch and bound (True stops
        it; the solve then ends with status "Interrupted by user", and returns its incumbent); ``bounds(running_time,
        primal_bound, dual_bound)`` polled with it (a progress bar's: hundreds of calls a second, +-inf while a bound
        is unknown). A Ctrl-C is not such an interrupt: it raises ``KeyboardInterrupt`` from :meth:`solve`."""
        self._runner.subscribe(self._h)  # the interrupt poll first
        stopping = self._runner.deferral  # once a Ctrl-C asked the solve to stop, none of these is called
        if bounds is not None:
            def on_bounds(e: Any) -> None:
                if not stopping.stop:
                    bounds(e.data_out.running_time, e.data_out.mip_primal_bound, e.data_out.mip_dual_bound)

            self._h.cbMipInterrupt.subscribe(on_bounds)
        if improving is not None:
            def on_improving(e: Any) -> None:
                if not stopping.stop:
                    improving(e.data_out.running_time, e.data_out.mip_primal_bound)

            self._h.cbMipImprovingSolution.subscribe(on_improving)
        if interrupt is not None:
            def poll(e):
                if not stopping.stop and interrupt(e.data_out.running_time, e.data_out.mip_primal_bound):
                    e.interrupt()

            self._h.cbMipInterrupt.subscribe(poll)

    def set_start(self, values: Any, indices: Any = None) -> None:
        """A starting point: a MIP start for a MILP (HiGHS completes a partial one), ignored by the simplex for LPs.

        ``values`` is a full column vector, or the values of the columns ``indices``.
        """
        v = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
        if indices is None:
            if v.shape != (self.n_cols,):
                raise ValueError(f"values must have shape ({self.n_cols},) when indices is None")
            idx = np.arange(self.n_cols, dtype=np.int32)
        else:
            idx = _as_int32(indices, "indices")
            if idx.shape != v.shape:
                raise ValueError("indices and values must have the same length")
        status = self._h.setSolution(int(idx.size), idx, v)
        if status == highspy.HighsStatus.kError:
            raise ValueError("HiGHS rejected the starting solution")

    @property
    def _h(self) -> highspy.Highs:
        """The HiGHS instance, once an interrupted run still stopping on its helper thread has stopped."""
        self._runner.wait()
        return self._highs

    @_h.setter
    def _h(self, h: highspy.Highs) -> None:
        self._highs = h

    def _run(self) -> highspy.HighsStatus:
        """``Highs.run``, interruptible (module doc): here, or aside where HiGHS does not poll every stage."""
        aside = self.is_mip or self.options.get("presolve") != "off" or self.options.get("solver") == "pdlp"
        return self._runner.run(self._h, aside=aside)

    def solve(self, *, iterate_at_limit: bool = False) -> HighsResult:
        """Solve (warm-started when a basis from a previous solve exists) and map the status (module doc).

        ``iterate_at_limit``: at a limit (``_LIMIT_STATUSES``) without a primal feasible point, return HiGHS's
        current column values (``optimal`` False, no warning) instead of raising :class:`SolverError`: for a caller
        that makes any such point feasible itself (every (w, b) of an l1-SVM is, with its slacks set to the hinge)
        and warns with its own certified bound. A model with no values yet still raises."""
        h = self._h
        t0 = h.getRunTime()
        run_status = self._run()
        runtime = h.getRunTime() - t0
        ms = h.getModelStatus()
        status = h.modelStatusToString(ms)
        info = h.getInfo()
        # HiGHS resets its info counters at every run, so these are this solve's iterations.
        iterations = int(info.simplex_iteration_count) + int(info.ipm_iteration_count) + int(info.pdlp_iteration_count)
        feasible = int(info.primal_solution_status) == _PRIMAL_FEASIBLE
        if ms == _MS.kOptimal:
            optimal = True
        elif ms in _LIMIT_STATUSES and (feasible or iterate_at_limit):
            optimal = False
            if not iterate_at_limit:  # the caller warns with its own certified bound
                warn(
                    f"HiGHS stopped early ({status}); using its primal feasible incumbent. Raise the limit through "
                    "solver_options (e.g. {'time_limit': ...}) for an optimal solution.",
                    ConvergenceWarning)
        else:
            detail = ""
            if run_status == highspy.HighsStatus.kError:
                detail = " (HiGHS run returned an error)"
            raise SolverError(f"HiGHS could not solve the {'MILP' if self.is_mip else 'LP'}{detail}: {status}",
                              status)
        sol = h.getSolution()
        x = np.asarray(sol.col_value, dtype=np.float64)
        if x.shape[0] != self.n_cols or not np.all(np.isfinite(x)):
            raise SolverError(f"HiGHS returned no usable solution ({status})", status)
        dual_ok = bool(sol.dual_valid)
        return HighsResult(
            x=x,
            objective=float(info.objective_function_value),
            status=status,
            optimal=optimal,
            row_value=np.asarray(sol.row_value, dtype=np.float64),
            col_dual=np.asarray(sol.col_dual, dtype=np.float64) if dual_ok else np.zeros(0),
            row_dual=np.asarray(sol.row_dual, dtype=np.float64) if dual_ok else np.zeros(0),
            iterations=iterations,
            runtime=float(runtime),
            info={
                "mip_gap": float(info.mip_gap),
                "mip_dual_bound": float(info.mip_dual_bound),
                "max_primal_infeasibility": float(info.max_primal_infeasibility),
                "max_dual_infeasibility": float(info.max_dual_infeasibility),
                "simplex_iteration_count": int(info.simplex_iteration_count),
            },
        )


def solve_lp(**kwargs: Any) -> HighsResult:
    """Build a :class:`HighsModel` from the keyword arguments and solve it once."""
    return HighsModel(**kwargs).solve()
