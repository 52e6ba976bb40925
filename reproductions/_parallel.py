"""Order-preserving parallel map for the protocols' many independent LP/MILP solves and fits.

It runs sequentially, on local processes (joblib's loky backend), or on a Dask cluster (joblib's dask backend) when
a ``dask.distributed.Client`` is active. Only the reproductions use it; the library parallelizes inside the C++ core
(OpenMP) and over dask chunks (:mod:`svmopt.fixed_size.dask_engine`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["active_client", "parallel_map"]


def active_client() -> Any | None:
    """Return the active ``dask.distributed.Client``, or ``None``.

    ``distributed`` is only consulted when the user already imported it (a client cannot exist otherwise), so this
    never imports dask. Inside a task running on a Dask worker it returns ``None``: nested maps run locally on the
    worker instead of submitting tasks back to the scheduler from inside a task.
    """
    if "distributed" not in sys.modules:
        return None
    distributed = sys.modules["distributed"]
    try:
        distributed.get_worker()
    except (ValueError, AttributeError):
        pass
    else:  # we are inside a task on a worker
        return None
    try:
        return distributed.default_client()
    except ValueError:
        return None


def _check_n_jobs(n_jobs: Any) -> int:
    if n_jobs is None:  # scikit-learn's convention: None means 1
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")
    return n_jobs


def parallel_map(func: Callable[[Any], Any], iterable: Iterable[Any], *, n_jobs: int | None = 1,
                 desc: str | None = None) -> list:
    """Apply ``func`` to every item of ``iterable`` and return the results in input order.

    Parameters
    ----------
    func : callable
        Function of one argument. For ``n_jobs != 1`` or a Dask cluster it must be picklable by cloudpickle
        (module-level functions, ``functools.partial`` of them, lambdas and closures all are).
    iterable : iterable
        The items; consumed once.
    n_jobs : int or None, default 1
        ``1`` (or None) runs sequentially in this process; ``k > 1`` uses ``k`` local worker processes (joblib's
        loky backend); ``-1`` uses all cores. Anything else raises ``ValueError``.
    desc : str or None, default None
        When given, a ``tqdm`` progress bar with this description counts finished items.

    Returns
    -------
    list
        ``[func(item) for item in iterable]``, in the same order.

    Notes
    -----
    When a ``dask.distributed.Client`` is active in the calling process, the map runs on that client's cluster
    through joblib's dask backend whatever ``n_jobs`` says (creating the client is the user's request to use the
    cluster; the number of Dask worker threads sets the parallelism). Inside a task already running on a Dask worker
    the cluster is not used again (no nested submission); ``n_jobs`` then applies locally.

    Exceptions raised by ``func`` propagate with their original type (the first failing item's exception; the
    remaining work is cancelled).
    """
    n_jobs = _check_n_jobs(n_jobs)
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}")
    items = list(iterable)
    client = active_client()
    if client is None and (n_jobs == 1 or len(items) <= 1):
        return _sequential(func, items, desc)

    import joblib

    if client is not None:
        with joblib.parallel_config(backend="dask"):
            parallel = joblib.Parallel(n_jobs=-1, return_as="generator")
            return _collect(parallel(joblib.delayed(func)(item) for item in items), len(items), desc)
    parallel = joblib.Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")
    return _collect(parallel(joblib.delayed(func)(item) for item in items), len(items), desc)


def _sequential(func: Callable[[Any], Any], items: list, desc: str | None) -> list:
    if desc is None:
        return [func(item) for item in items]
    from tqdm.auto import tqdm

    return [func(item) for item in tqdm(items, desc=desc, total=len(items))]


def _collect(results: Iterable[Any], total: int, desc: str | None) -> list:
    if desc is None:
        return list(results)
    from tqdm.auto import tqdm

    return list(tqdm(results, desc=desc, total=total))
