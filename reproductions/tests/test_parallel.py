"""reproductions._parallel.parallel_map: order, errors, progress, and the Dask cluster path."""

from __future__ import annotations

import pytest

from reproductions._parallel import active_client, parallel_map


# Task functions are made by factories: worker processes cannot import this test module, and closures (and
# classes defined inside functions) are shipped by value by cloudpickle, keeping their identity in this process.
def _square_fn():
    def square(x):
        return x * x

    return square


def _fail_fn():
    class Boom(LookupError):
        def __init__(self, message, status=None):
            super().__init__(message)
            self.status = status

    def fail_on_three(x):
        if x == 3:
            raise Boom(f"item {x}", status="Infeasible")
        return x

    return fail_on_three, Boom


def _where_fn():
    def where(x):
        """The address of the Dask worker running this task (raises ValueError outside a worker)."""
        import distributed

        return x, distributed.get_worker().address

    return where


def _nested_fn():
    def nested(x):
        """On a worker: no client is 'active' for parallel_map, so the inner map runs locally."""
        from reproductions._parallel import active_client, parallel_map

        return active_client() is None, parallel_map(lambda z: z + x, range(3))

    return nested


@pytest.mark.parametrize("n_jobs", [1, None, 2])
def test_parallel_map_preserves_order(n_jobs):
    assert active_client() is None
    assert parallel_map(_square_fn(), range(7), n_jobs=n_jobs) == [x * x for x in range(7)]
    assert parallel_map(_square_fn(), [], n_jobs=n_jobs) == []
    assert parallel_map(lambda x: -x, iter([3, 1, 2]), n_jobs=n_jobs) == [-3, -1, -2]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_parallel_map_propagates_exception_type(n_jobs):
    func, boom = _fail_fn()
    with pytest.raises(boom, match="item 3") as info:
        parallel_map(func, range(6), n_jobs=n_jobs)
    assert info.value.status == "Infeasible"


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_parallel_map_rejects_bad_n_jobs(bad):
    with pytest.raises(ValueError, match="n_jobs"):
        parallel_map(_square_fn(), range(3), n_jobs=bad)


def test_parallel_map_progress_bar(capsys):
    assert parallel_map(_square_fn(), range(4), desc="squares") == [0, 1, 4, 9]
    assert "squares" in capsys.readouterr().err
    parallel_map(_square_fn(), range(4))
    assert "squares" not in capsys.readouterr().err



def test_parallel_map_runs_on_cluster_workers(dask_client):
    assert active_client() is dask_client
    workers = set(dask_client.scheduler_info()["workers"])
    out = parallel_map(_where_fn(), range(8), n_jobs=1, desc="cluster")
    assert [x for x, _ in out] == list(range(8))
    assert {addr for _, addr in out} <= workers
    func, boom = _fail_fn()
    with pytest.raises(boom, match="item 3") as info:
        parallel_map(func, range(6))
    assert info.value.status == "Infeasible"
    assert parallel_map(_nested_fn(), [10, 20]) == [(True, [10, 11, 12]), (True, [20, 21, 22])]
