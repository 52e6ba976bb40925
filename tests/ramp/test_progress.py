"""RampLossSVC's ``verbose`` bars: the exact MILP's share of its gap closed (or the seconds of ``max_time``) with the
incumbent, bound and gap; CCCP's steps of each start out of its cap with the objective and its decrease; DAKS's
buckets of each phase-2 pass with the incumbent. ``verbose=2`` adds the step-by-step log on stdout; without
``verbose`` nothing is printed. Bars are read as tqdm wrote them to stderr and as recorded by a stand-in (tqdm
redraws at most ten times a second, so a fast solve shows few of its states)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt.ramp import cccp as cccp_module
from svmopt.ramp import daks as daks_module
from svmopt.ramp import solve as solve_module
from svmopt.ramp.solve import MilpProgress
from tests.common.progress_bars import recorder, screens


def _data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0, 1, 0)


X, Y = _data(40, 5, 0)  # the exact MILP in about a second, with several incumbents and bounds
XD, YD = _data(30, 12, 1)  # DAKS: two phase-2 passes, with buckets


def _postfix_values(postfix: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-+.\deinf]+)", postfix)}


# ------------------------------------------------------------------------------------------- the exact MILP
def test_the_milp_bar_shows_the_gap_closed_with_incumbent_bound_and_gap(capsys):
    RampLossSVC(C=1.0, budget=3, method="exact", random_state=0, verbose=True).fit(X, Y)
    out, err = capsys.readouterr()
    bar = screens(err, "RampLossSVC MILP (% of the gap closed)")
    assert bar and all(re.search(r"\b\d+/100\b", s) for s in bar if "%|" in s), err
    assert any(re.search(r"incumbent=[\d.]+ bound=[-\d.]+ gap=\d\.\de[-+]\d\d", s) for s in bar)
    assert "[exact] status optimal" in out and "[Algorithm 1]" not in out  # the outcome, not the log
    RampLossSVC(C=1.0, budget=3, method="exact", random_state=0).fit(X, Y)
    assert capsys.readouterr() == ("", "")
    RampLossSVC(C=1.0, budget=3, method="exact", random_state=0, verbose=2).fit(X, Y)
    assert "[Algorithm 1] iteration 1:" in capsys.readouterr().out


def test_the_milp_bar_counts_the_seconds_of_max_time(capsys):
    RampLossSVC(C=1.0, budget=3, method="exact", random_state=0, max_time=30, verbose=True).fit(X, Y)
    bar = screens(capsys.readouterr().err, "RampLossSVC MILP (s of max_time)")
    totals = {int(m.group(1)) for s in bar for m in [re.search(r"\b\d+/(\d+)\b", s)] if m}
    assert len(totals) == 1 and 1 <= totals.pop() <= 30  # what Algorithm 1 left of the 30 s
    assert any("incumbent=" in s for s in bar)


def test_the_milp_bar_follows_highs_bounds(monkeypatch):
    bars: list = []
    monkeypatch.setattr(solve_module, "progress", recorder(bars))
    clf = RampLossSVC(C=1.0, budget=3, method="exact", random_state=0, verbose=True).fit(X, Y)
    (bar,) = bars
    assert bar.total == 100 and bar.closed
    (run,) = bar.runs
    counts = [n for n, _ in run]
    assert counts == sorted(counts) and 0 <= counts[0] and counts[-1] <= 100
    last = _postfix_values(run[-1][1])
    slack = 1e-5 * clf.objective_  # the postfix's 6 digits
    assert last["bound"] <= clf.objective_ + slack <= last["incumbent"] + 2 * slack  # polishing never makes it worse
    for _, p in run:  # the postfix's gap is its incumbent's and bound's
        v = _postfix_values(p)
        if math.isfinite(v["bound"]):
            assert math.isclose(v["gap"], (v["incumbent"] - v["bound"]) / abs(v["incumbent"]), rel_tol=0.06,
                                abs_tol=2e-5)  # 6 digits of each bound


def test_milp_progress_is_the_share_of_the_first_gap_closed(monkeypatch):
    bars: list = []
    monkeypatch.setattr(solve_module, "progress", recorder(bars))
    p = MilpProgress(True, None)
    for t, inc, bound in [(0.0, math.inf, -math.inf), (0.1, 10.0, 0.0), (0.2, 8.0, 2.0), (0.3, 8.0, 1.0),
                          (0.4, 5.0, 5.0)]:
        p(t, inc, bound)
    (bar,) = bars
    assert [n for n, _ in bar.runs[0]] == [0, 0, 40, 40, 100]  # never back, even when a bound is worse
    assert bar.runs[0][2][1] == "incumbent=8 bound=2 gap=7.5e-01"
    p = MilpProgress(True, 2.5)  # with a time limit: its seconds
    for t in (0.2, 1.7, 9.0):
        p(t, 4.0, 1.0 + t)
    assert bars[1].total == 3 and [n for n, _ in bars[1].runs[0]] == [0, 1, 3]
    quiet = MilpProgress(False, None)
    quiet(0.1, 1.0, 0.0)
    assert len(bars) == 2


# ------------------------------------------------------------------------------------------- CCCP
def test_the_cccp_bar_counts_the_steps_of_each_start(monkeypatch, capsys):
    bars: list = []
    monkeypatch.setattr(cccp_module, "progress", recorder(bars))
    clf = RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0, verbose=True).fit(X, Y)
    (bar,) = bars
    assert set(bar.totals) == {50} and bar.closed  # each start out of the step cap
    assert bar.runs[0] == []  # the (FS-SVM) start: no step yet
    runs = bar.runs[1:]
    assert len(runs) == 3 == len(clf.cccp_["objectives"])
    for k, (run, objectives) in enumerate(zip(runs, clf.cccp_["objectives"], strict=True)):
        assert [n for n, _ in run] == list(range(1, len(objectives)))  # one tick per step taken
        for (_, p), before, after in zip(run, objectives, objectives[1:], strict=False):
            assert p.startswith(f"start {k + 1}/3 objective=")
            v = _postfix_values(p)
            assert math.isclose(v["objective"], after, rel_tol=1e-5)
            assert math.isclose(v["improvement"], before - after, rel_tol=0.05, abs_tol=1e-12)
    assert capsys.readouterr().out == ""


def test_cccp_shows_a_bar_on_stderr_and_logs_only_at_verbose_2(capsys):
    RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0, verbose=True).fit(X, Y)
    out, err = capsys.readouterr()
    bar = screens(err, "RampLossSVC CCCP")
    assert out == "" and any("start 1/3 objective=" in s for s in bar)
    assert all(re.search(r"\b\d+/50\b", s) for s in bar if "%|" in s)
    RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0, verbose=2).fit(X, Y)
    out = capsys.readouterr().out
    assert "[CCCP] (FS-SVM) start" in out and "[CCCP] step 1:" in out


# ------------------------------------------------------------------------------------------- DAKS
def test_the_daks_bar_walks_the_buckets_of_each_pass(monkeypatch, capsys):
    bars: list = []
    monkeypatch.setattr(daks_module, "progress", recorder(bars))
    clf = RampLossSVC(C=1.0, budget=2, method="heuristic", random_state=0, verbose=True).fit(XD, YD)
    (bar,) = bars
    assert bar.closed and len(bar.runs) == 1 + clf.daks_["n_phase2"]  # phase 1, then a run per phase-2 pass
    assert bar.runs[0] == []
    walked = 0
    for total, run in zip(bar.totals[1:], bar.runs[1:], strict=True):
        assert total is not None and 1 <= total <= XD.shape[1]  # the features outside K0, handed out in buckets
        counts = [n for n, _ in run]
        assert counts == sorted(counts) and all(1 <= n <= total for n in counts)
        assert all(re.fullmatch(r"pass \d+ bucket \d+: \|K\|=\d+ UB=[\d.]+ LB_zh=[\d.]+", p) for _, p in run)
        walked += len(run)
    assert walked >= 1  # this instance has phase-3 buckets
    ubs = [_postfix_values(p)["UB"] for run in bar.runs[1:] for _, p in run]
    assert ubs == sorted(ubs, reverse=True) and math.isclose(ubs[-1], clf.daks_["ub_history"][-1], rel_tol=1e-5)
    out = capsys.readouterr().out
    assert out.startswith("[DAKS] stop (") and out.count("\n") == 1  # verbose=True: the outcome only


def test_daks_shows_a_bar_on_stderr_and_logs_only_at_verbose_2(capsys):
    RampLossSVC(C=1.0, budget=2, method="heuristic", random_state=0, verbose=True).fit(XD, YD)
    out, err = capsys.readouterr()
    assert any("UB=" in s for s in screens(err, "RampLossSVC DAKS"))
    assert "[DAKS] phase 2" not in out and "[Algorithm 1]" not in out
    RampLossSVC(C=1.0, budget=2, method="heuristic", random_state=0).fit(XD, YD)
    assert capsys.readouterr() == ("", "")
    RampLossSVC(C=1.0, budget=2, method="heuristic", random_state=0, verbose=2).fit(XD, YD)
    out = capsys.readouterr().out
    assert "[Algorithm 1]" in out and "[DAKS] phase 2 pass 1" in out and "  phase 3 it 0" in out


# ------------------------------------------------------------------------------------------- L1SVC, FeatureBudgetSVC
@pytest.mark.parametrize("make", [lambda v, s: L1SVC(C=1.0, solver=s, verbose=v),
                                  lambda v, s: FeatureBudgetSVC(C=1.0, budget=2, solver=s, random_state=0, verbose=v)],
                         ids=["L1SVC", "FeatureBudgetSVC"])
@pytest.mark.parametrize("solver", ["lp", "cutting_plane"])
def test_comparison_models_show_a_fit_bar_only_when_verbose(capsys, make, solver):
    clf = make(True, solver).fit(X, Y)
    out, err = capsys.readouterr()
    name = type(clf).__name__
    assert out == "" and any(f"{solver}: optimal, objective" in s for s in screens(err, f"{name} fit"))
    quiet = make(False, solver).fit(X, Y)
    assert capsys.readouterr() == ("", "")
    np.testing.assert_array_equal(quiet.coef_, clf.coef_)
