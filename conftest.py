"""Fixtures shared by the library's tests (tests/) and the protocols' tests (reproductions/tests/)."""

from __future__ import annotations

import pytest

MIN_PNG_BYTES = 5_000


def _assert_png(path, min_bytes: int = MIN_PNG_BYTES) -> None:
    """The file exists, is a PNG of some size, and is not blank (pixel variance clearly above zero)."""
    from matplotlib.image import imread

    assert path.exists(), path
    assert path.stat().st_size > min_bytes, (path, path.stat().st_size)
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    img = imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    assert float(img[..., :3].var()) > 1e-3, "the image is (nearly) blank"


@pytest.fixture
def assert_png():
    """``assert_png(path)``: a written figure is a real, non-blank PNG (needs matplotlib)."""
    pytest.importorskip("matplotlib")
    return _assert_png


@pytest.fixture(scope="module")
def dask_client():
    """A local two-process Dask cluster (skips when dask.distributed is not installed)."""
    pytest.importorskip("dask.distributed", reason="dask.distributed is an optional dependency")
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                           dashboard_address=None)
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
