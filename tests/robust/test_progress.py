"""RobustSVC's ``verbose`` bar of the final fit: the interior point's and the cutting planes' iterations out of
``max_iter`` with the certified relative gap in the postfix, HiGHS's LPs counted by the nu path; nothing without
``verbose``. The bar is read as tqdm wrote it to stderr, and as recorded by a stand-in (tqdm redraws at most ten
times a second, so a fast solve shows few of its states)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from svmopt import RobustSVC
from svmopt.robust import solve as robust_solve
from tests.common.progress_bars import gaps, recorder, screens


def _data(n: int, classes: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    if classes == 2:
        y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    else:
        y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), np.quantile(X[:, 0], [1 / 3, 2 / 3]))
    return X, y


X, Y = _data(400)


def _recorded(monkeypatch) -> list:
    bars: list = []
    monkeypatch.setattr(robust_solve, "progress", recorder(bars))
    return bars


@pytest.mark.parametrize("solver", ["ipm", "cutting_plane"])
def test_the_final_fit_bar_shows_iterations_of_max_iter_and_the_gap(capsys, solver):
    clf = RobustSVC(nu=1.0, alpha=1.0, n_landmarks=20, solver=solver, max_iter=300, verbose=True).fit(X, Y)
    out, err = capsys.readouterr()
    bar = screens(err, "RobustSVC fit")
    assert bar, err
    assert all(re.search(r"\b\d+/300\b", s) for s in bar if "%" in s)  # the total is max_iter, not the problems
    shown = gaps(bar)
    assert shown and all(np.isfinite(shown)), bar
    assert any(re.search(r"nu=1 gap=\d\.\de[-+]\d\d", s) for s in bar)
    assert out == ""  # one candidate: no selection table
    assert clf.n_iter_[0] > 1
    RobustSVC(nu=1.0, alpha=1.0, n_landmarks=20, solver=solver, max_iter=300).fit(X, Y)
    assert capsys.readouterr() == ("", "")


def test_cutting_planes_count_their_passes_at_every_nu(monkeypatch):
    bars = _recorded(monkeypatch)
    tol = 1e-6
    clf = RobustSVC(nu=[0.1, 1.0], alpha=1.0, n_landmarks=20, solver="cutting_plane", selection="training_error",
                    max_iter=400, tol=tol, verbose=True).fit(X, Y)
    (bar,) = bars
    assert bar.desc == "RobustSVC fit" and bar.closed
    runs = [r for r in bar.runs if r]
    assert len(runs) == 2 and set(bar.totals) == {400}  # a run per nu, each out of max_iter
    for run, rec in zip(runs, clf.fit_path_[0], strict=True):
        assert run[-1][0] == rec["iterations"]  # every pass counted, once
        assert all(f"nu={rec['nu']:.3g} " in p for _, p in run)
        final = gaps([run[-1][1]])[0]
        assert final <= 1.05 * tol if rec["status"] == "Optimal" else final > tol
        assert gaps([run[0][1]])[0] > final  # the gap falls


def test_the_interior_point_counts_its_iterations(monkeypatch):
    bars = _recorded(monkeypatch)
    clf = RobustSVC(nu=1.0, alpha=1.0, n_landmarks=20, solver="ipm", tol=1e-6, verbose=True).fit(X, Y)
    (bar,) = bars
    (run,) = [r for r in bar.runs if r]
    counts = [n for n, _ in run]
    assert counts == sorted(counts) and 1 <= counts[-1] <= 1000 == bar.total
    assert counts[-1] < clf.n_iter_[0]  # iterations, not passes over the data (three an iteration)
    shown = gaps([p for _, p in run])
    assert shown[0] > 1e-3 and shown[-1] <= 1.05e-6


def test_highs_lps_count_the_nu_path_of_every_problem(monkeypatch):
    Xm, ym = _data(60, classes=3, seed=1)
    bars = _recorded(monkeypatch)
    clf = RobustSVC(nu=[0.1, 1.0, 10.0], alpha=1.0, n_landmarks=None, selection="training_error",
                    verbose=True).fit(Xm, ym)
    (bar,) = bars
    assert clf.model_ == "paper" and bar.totals == [3, 3, 3]  # one run per binary problem, over its 3 nu values
    for k, run in enumerate(bar.runs):
        assert [n for n, _ in run] == [1, 2, 3]
        assert all(p.startswith(f"problem {k + 1}/3 nu=") for _, p in run)
        assert gaps([p for _, p in run]) == [0.0] * 3  # HiGHS or the certified dense simplex: optimal
