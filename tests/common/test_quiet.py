"""A library call prints nothing: no HiGHS banner, no solver log, no progress, on stdout or stderr, at the level of
the file descriptors (HiGHS writes from C++, past sys.stdout). Warnings name the user's line, not the library's."""

from __future__ import annotations

import subprocess
import sys
import textwrap

FITS = textwrap.dedent("""
    import numpy as np
    import svmopt
    from svmopt.datasets import load_dataset

    X, y = load_dataset("wdbc")
    X = (X - X.mean(0)) / X.std(0)
    svmopt.L1SVC().fit(X[:120], y[:120])
    svmopt.FeatureBudgetSVC(budget=3).fit(X[:80], y[:80])
    svmopt.RampLossSVC(budget=3, method="exact", max_time=30).fit(X[:60], y[:60])
    svmopt.RobustSVC(kernel="linear", p=2, rho=1e-3).fit(X[:80], y[:80])
    svmopt.FixedSizeLSSVC(n_prototypes=20, n_csa=5, n_simplex=5, random_state=0).fit(X, y)
    svmopt.EllipsoidPSOClassifier(random_state=0).fit(X, y)
    w = np.arange(1, 81) % 3
    svmopt.RobustSVC(kernel="linear", class_weight="balanced").fit(X[:80], y[:80], sample_weight=w)
    svmopt.L1SVC(class_weight={"M": 2.0}).fit(X[:80], y[:80], sample_weight=w)
""")


def test_fits_print_nothing():
    r = subprocess.run([sys.executable, "-c", FITS], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert r.stderr == ""


def test_warnings_point_at_the_callers_line():
    code = textwrap.dedent("""
        import warnings
        import numpy as np
        import svmopt

        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        y = np.repeat([0, 1], 20)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            svmopt.FixedSizeLSSVC(n_prototypes=80, gamma=1.0, sigma2=1.0).fit(X, y)  # the user's line
        print([(x.filename, x.lineno) for x in w if "n_prototypes" in str(x.message)])
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    line = 1 + next(i for i, ln in enumerate(code.split("\n")) if "the user's line" in ln)
    assert r.stdout.strip() == f"[('<string>', {line})]"


def test_verbose_shows_progress_bars_on_stderr_only():
    code = textwrap.dedent("""
        import numpy as np
        import svmopt

        rng = np.random.default_rng(0)
        X = rng.normal(size=(120, 3))
        y = (X[:, 0] > 0).astype(int)
        svmopt.RobustSVC(kernel="rbf", verbose=True).fit(X, y)
        svmopt.RampLossSVC(C="auto", budget=2, method="cccp", verbose=True, random_state=0).fit(X, y)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "RobustSVC cross-validation" in r.stderr and "RampLossSVC C selection" in r.stderr
    assert "held-out error" in r.stdout  # the selection's table, printed only when asked
