"""The ``svmopt`` command (also ``python -m svmopt``).

``svmopt run`` is the README's main job: it loads a data set (bundled default, a named one, or a CSV of
yours), trains every svmopt model that has landed and scikit-learn's ``SVC`` on one stratified 75/25 split,
and prints test accuracy, fit time and model size. It then times the Gram matrix of every kernel in
svmopt's core beside scikit-learn's ``sklearn.metrics.pairwise`` on the same data, and checks that both
agree.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["main"]

DEFAULT_DATA = "wdbc"


class CLIError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


def load_table(data: str, target: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    """``(X, y, description)`` from a data set name or a CSV path (last column = label unless ``target``)."""
    from svmopt.datasets import DATASETS, load_dataset

    if data in DATASETS:
        X, y = load_dataset(data)
        return X, np.asarray(y), f"{data} (svmopt.datasets)"
    path = Path(data)
    if path.suffix.lower() not in (".csv", ".gz", ".txt") and not path.exists():
        raise CLIError(f"--data {data!r} is neither a known data set ({', '.join(sorted(DATASETS))}) nor a CSV file")
    if not path.is_file():
        raise CLIError(f"--data: no such file: {path}")
    import pandas as pd

    try:
        df = pd.read_csv(path)
    except Exception as exc:  # pandas raises many types for malformed files
        raise CLIError(f"--data: cannot read {path} as CSV: {exc}") from exc
    if df.shape[1] < 2:
        raise CLIError(f"--data: {path} has {df.shape[1]} column(s); need at least one feature and a label")
    if target is None:
        target = str(df.columns[-1])
    elif target not in df.columns:
        raise CLIError(f"--target {target!r} is not a column of {path}; columns: {', '.join(map(str, df.columns))}")
    y = df[target].to_numpy()
    feats = df.drop(columns=[target])
    bad = [str(c) for c in feats.columns if not pd.api.types.is_numeric_dtype(feats[c])]
    if bad:
        raise CLIError(
            f"--data: non-numeric feature column(s) {', '.join(bad)} in {path}; encode them as numbers first"
        )
    if feats.isna().any().any():
        n_bad = int(feats.isna().any(axis=1).sum())
        raise CLIError(f"--data: {n_bad} row(s) of {path} have missing values; remove or impute them first")
    return feats.to_numpy(dtype=np.float64), y, str(path)


def best_time(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best of ``repeat`` calls of ``fn`` as measured by ``clock`` (wall time by default)."""
    best = np.inf
    for _ in range(repeat):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def gram_timings(X: np.ndarray, repeat: int = 3, n_threads: int | None = None) -> list[dict]:
    """Time every kernel's Gram matrix in svmopt's core and in scikit-learn on the same data."""
    from sklearn.metrics import pairwise

    from svmopt.kernels import Kernel

    alpha = float(np.max(np.std(X, axis=0, ddof=1))) if X.shape[0] > 1 else 1.0
    alpha = alpha if alpha > 0 else 1.0
    cases = [
        ("linear", Kernel("linear"), lambda: pairwise.linear_kernel(X)),
        ("poly d=2", Kernel("poly", degree=2), lambda: pairwise.polynomial_kernel(X, degree=2, gamma=1.0, coef0=0.0)),
        (
            "inhom_poly d=3",
            Kernel("inhom_poly", degree=3, c=alpha),
            lambda: pairwise.polynomial_kernel(X, degree=3, gamma=1.0, coef0=alpha),
        ),
        ("rbf", Kernel("rbf", alpha=alpha), lambda: pairwise.rbf_kernel(X, gamma=1.0 / (2.0 * alpha**2))),
        (
            "sigmoid",
            Kernel("sigmoid", a=1.0 / X.shape[1], b=0.0),
            lambda: pairwise.sigmoid_kernel(X, gamma=1.0 / X.shape[1], coef0=0.0),
        ),
    ]
    rows = []
    for label, kernel, sk in cases:
        ours = kernel.gram(X, n_threads=n_threads)
        theirs = sk()
        scale = max(1.0, float(np.abs(theirs).max()))
        t_ours = best_time(lambda k=kernel: k.gram(X, n_threads=n_threads), repeat)
        t_sk = best_time(sk, repeat)
        rows.append(
            {
                "kernel": label,
                "svmopt_s": t_ours,
                "sklearn_s": t_sk,
                "speedup": t_sk / t_ours,
                "max_rel_diff": float(np.abs(ours - theirs).max() / scale),
            }
        )
    return rows


def _model_size(est) -> str:
    """Support vectors / prototypes / selected features of a fitted estimator (or its pipeline's last step)."""
    est = est[-1] if hasattr(est, "steps") else est
    for attr, unit in (
        ("support_", "support vectors"),
        ("prototypes_", "prototypes"),
        ("selected_features_", "selected features"),
    ):
        value = getattr(est, attr, None)
        if value is not None:
            return f"{len(value)} {unit}"
    return "-"


def model_zoo(seed: int) -> list[tuple[str, object]]:
    """(label, unfitted estimator) for scikit-learn's SVC and every svmopt model available in this version.

    Each svmopt model runs in the configuration its paper reports best on comparable data: RobustSVC with
    min-max scaling, the inhomogeneous quadratic kernel and the nu grid (paper 000, Table 3, Breast Cancer
    Diagnostic).
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, StandardScaler
    from sklearn.svm import SVC

    import svmopt

    zoo: list[tuple[str, object]] = [("sklearn SVC (rbf, standardized)", make_pipeline(StandardScaler(), SVC()))]
    if hasattr(svmopt, "RobustSVC"):
        zoo.append((
            "RobustSVC (inhom. quadratic, min-max, nu grid)",
            make_pipeline(MinMaxScaler(), svmopt.RobustSVC(kernel="inhom_poly", degree=2, nu="grid")),
        ))
        zoo.append((
            "RobustSVC robust p=inf, rho=0.1",
            make_pipeline(MinMaxScaler(), svmopt.RobustSVC(kernel="inhom_poly", degree=2, nu="grid", p=np.inf,
                                                           rho=0.1)),
        ))
    for name in ("RampLossSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier"):
        cls = getattr(svmopt, name, None)
        if cls is None:
            continue
        params = cls().get_params()
        kwargs = {"random_state": seed} if "random_state" in params else {}
        if "time_limit" in params:
            kwargs["time_limit"] = 20.0
        zoo.append((f"{name} (defaults, standardized)", make_pipeline(StandardScaler(), cls(**kwargs))))
    return zoo


def model_table(X: np.ndarray, y: np.ndarray, seed: int) -> list[dict]:
    """Fit every model of :func:`model_zoo` on a stratified 75/25 split; accuracy, fit time, size."""
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
    rows = []
    for label, est in model_zoo(seed):
        t0 = time.perf_counter()
        try:
            est.fit(Xtr, ytr)
        except Exception as exc:  # one model's failure must not hide the others' results
            rows.append({"model": label, "accuracy": float("nan"), "fit_s": time.perf_counter() - t0,
                         "size": f"failed: {type(exc).__name__}: {exc}"[:60]})
            continue
        fit_s = time.perf_counter() - t0
        rows.append({"model": label, "accuracy": float(est.score(Xte, yte)), "fit_s": fit_s,
                     "size": _model_size(est)})
    return rows


def _print_table(rows: list[dict], columns: Sequence[tuple[str, str, str]], out) -> None:
    cells = [[fmt.format(r[key]) for key, _, fmt in columns] for r in rows]
    heads = [h for _, h, _ in columns]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for c in cells:
        padded = (
            v.rjust(w) if i and fmt != "{}" else v.ljust(w)
            for i, (v, w, (_, _, fmt)) in enumerate(zip(c, widths, columns, strict=True))
        )
        print("  ".join(padded), file=out)


def cmd_run(args: argparse.Namespace, out=None) -> int:
    from svmopt import _core

    out = sys.stdout if out is None else out

    X, y, what = load_table(args.data, args.target)
    Xs = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    classes = np.unique(y)
    print(f"data: {what}: {X.shape[0]} samples x {X.shape[1]} features, {len(classes)} classes", file=out)
    print(
        f"core: Eigen {_core.eigen_version} ({_core.simd_instruction_sets()}), "
        f"OpenMP {'on' if _core.openmp_enabled() else 'off'}, {_core.max_threads()} thread(s)",
        file=out,
    )
    if len(classes) < 2:
        raise CLIError(f"--data: the label column has {len(classes)} class(es); need at least 2")
    print(f"\nModels, stratified 75/25 split (seed {args.seed}):", file=out)
    mcols = [("model", "model", "{}"), ("accuracy", "test accuracy", "{:.4f}"), ("fit_s", "fit [s]", "{:.2f}"),
             ("size", "model size", "{}")]
    _print_table(model_table(X, y, args.seed), mcols, out)
    if args.no_gram:
        return 0
    sizes = [("data", Xs)]
    if args.size and args.size > X.shape[0]:
        rng = np.random.default_rng(args.seed)
        idx = rng.integers(0, X.shape[0], size=args.size)
        sizes.append((f"resampled to m={args.size}", Xs[idx] + 1e-3 * rng.standard_normal((args.size, X.shape[1]))))
    cols = [
        ("kernel", "kernel", "{}"),
        ("svmopt_s", "svmopt [s]", "{:.4f}"),
        ("sklearn_s", "sklearn [s]", "{:.4f}"),
        ("speedup", "speed-up", "{:.1f}x"),
        ("max_rel_diff", "max rel diff", "{:.1e}"),
    ]
    for label, Z in sizes:
        print(f"\nGram matrix K(X, X), {label} ({Z.shape[0]} x {Z.shape[0]}), best of {args.repeat}:", file=out)
        _print_table(gram_timings(Z, repeat=args.repeat, n_threads=args.jobs), cols, out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="svmopt", description="Optimization-model SVMs over a C++ core.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run svmopt on a data set and print the results table")
    run.add_argument("--data", default=DEFAULT_DATA, help=f"bundled data set name or CSV path (default {DEFAULT_DATA})")
    run.add_argument("--target", default=None, help="label column of a CSV (default: the last column)")
    run.add_argument("--size", type=int, default=4000, help="also time on the data resampled to this many rows")
    run.add_argument("--repeat", type=int, default=3, help="timing repetitions (best is reported)")
    run.add_argument("--jobs", type=int, default=None, help="threads for the core (default: all cores)")
    run.add_argument("--seed", type=int, default=0, help="random seed")
    run.add_argument("--no-gram", action="store_true", help="skip the Gram-matrix timings")
    run.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        parser.error("--jobs must be >= 1")
    if getattr(args, "repeat", 1) < 1:
        parser.error("--repeat must be >= 1")
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"svmopt: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
