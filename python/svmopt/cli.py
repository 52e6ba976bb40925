"""The ``svmopt`` command (also ``python -m svmopt``).

``svmopt run`` is the README's main job: it loads a data set (bundled default, a named one, or a CSV of
yours), trains every svmopt model that has landed and scikit-learn's ``SVC`` on one stratified 75/25 split
(or only the models named by ``--model``), and prints test accuracy, fit time and model size. It then times
the Gram matrix of every kernel in svmopt's core beside scikit-learn's ``sklearn.metrics.pairwise`` on the
same data, and checks that both agree.

The papers' reproduction protocols are not part of the installed package: they run from a checkout of the
repository (``python -m reproductions NAME``).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main"]

DEFAULT_DATA = "wdbc"


class CLIError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


def data_help() -> str:
    """One line naming the data sets this installation can load now, and how to get the others."""
    from svmopt.datasets import ENV_VAR, list_datasets

    here = list_datasets(loadable=True)
    missing = list_datasets(loadable=False)
    text = f"data sets this installation can load: {', '.join(here)}"
    if missing:
        text += (f"; {len(missing)} more of the papers' sets load once {ENV_VAR} names a folder holding them "
                 f"(`svmopt info` lists them)")
    return text


def sniff_delimiter(path: Path) -> str:
    """The field delimiter of a CSV file (``,``, ``;``, tab or ``|``), guessed from its first lines."""
    import csv
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rt", newline="", errors="replace") as fh:
            sample = fh.read(65536)
    except OSError as exc:
        raise CLIError(f"--data: cannot read {path}: {exc}") from exc
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:  # one column, or no consistent delimiter: let the column check below say so
        return ","


def read_csv(path: Path) -> Any:
    """The CSV file at ``path`` as a DataFrame, its delimiter guessed and its numbers read exactly."""
    import pandas as pd

    kwargs: dict[str, Any] = {"sep": sniff_delimiter(path)}
    if int(pd.__version__.split(".")[0]) < 3:  # pandas >= 3 reads floats exactly by default (and deprecates this)
        kwargs["float_precision"] = "round_trip"
    try:
        return pd.read_csv(path, **kwargs)
    except Exception as exc:  # pandas raises many types for malformed files
        raise CLIError(f"--data: cannot read {path} as CSV: {exc}") from exc


def load_table(data: str, target: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    """``(X, y, description)`` from a data set name or a CSV path (last column = label unless ``target``).

    Every problem with the data is a :class:`CLIError` raised here, before any model is fitted: an unknown name,
    a set this installation cannot find, an unreadable file, too few columns or rows, a missing ``--target``,
    non-numeric, missing or non-finite feature values.
    """
    from svmopt.datasets import DATASETS, load_dataset

    if data in DATASETS:
        try:
            X, y = load_dataset(data)
        except FileNotFoundError as exc:
            raise CLIError(f"--data {data}: {str(exc).replace('Pass data_home=<dir> or set', 'Set')}") from None
        return X, np.asarray(y), f"{data} (svmopt.datasets)"
    path = Path(data)
    if path.suffix.lower() not in (".csv", ".gz", ".txt", ".tsv") and not path.exists():
        raise CLIError(f"--data {data!r} is neither a data set name nor a CSV file; {data_help()}")
    if not path.is_file():
        raise CLIError(f"--data: no such file: {path}")
    df = read_csv(path)
    if df.shape[1] < 2:
        raise CLIError(f"--data: {path} has {df.shape[1]} column(s); need at least one feature and a label "
                       "(fields separated by ',', ';', tabs or '|', with a header line)")
    if df.shape[0] == 0:
        raise CLIError(f"--data: {path} has a header but no data rows")
    if target is None:
        target = str(df.columns[-1])
    elif target not in df.columns:
        raise CLIError(f"--target {target!r} is not a column of {path}; columns: {', '.join(map(str, df.columns))}")
    y = df[target].to_numpy()
    if df[target].isna().any():
        n_bad = int(df[target].isna().sum())
        raise CLIError(f"--data: {n_bad} row(s) of {path} have no label in column {target!r}; remove them first")
    feats = df.drop(columns=[target])
    bad = [str(c) for c in feats.columns if not pd_is_numeric(feats[c])]
    if bad:
        raise CLIError(
            f"--data: non-numeric feature column(s) {', '.join(bad)} in {path}; encode them as numbers first"
        )
    if feats.isna().any().any():
        n_bad = int(feats.isna().any(axis=1).sum())
        raise CLIError(f"--data: {n_bad} row(s) of {path} have missing values; remove or impute them first")
    X = feats.to_numpy(dtype=np.float64)
    finite = np.isfinite(X)
    if not finite.all():
        cols = [str(c) for c, ok in zip(feats.columns, finite.all(axis=0), strict=True) if not ok]
        n_bad = int((~finite.all(axis=1)).sum())
        raise CLIError(f"--data: {n_bad} row(s) of {path} hold an infinite value (column(s) {', '.join(cols)}); "
                       "remove or replace them first")
    return X, y, str(path)


def pd_is_numeric(column: Any) -> bool:
    """Whether a DataFrame column holds numbers (booleans count; datetimes and text do not)."""
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(column))


def best_time(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best of ``repeat`` calls of ``fn`` as measured by ``clock`` (wall time by default)."""
    best = np.inf
    for _ in range(repeat):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def per_call(fn: Callable[[], object], repeat: int, min_s: float = 0.1) -> float:
    """Seconds per call of ``fn``: the best of ``repeat`` runs of ``k`` calls, ``k`` chosen so a run lasts ``min_s``."""
    t0 = time.perf_counter()
    fn()
    k = max(1, int(min_s / max(time.perf_counter() - t0, 1e-9)))
    return best_time(lambda: [fn() for _ in range(k)], repeat) / k


def core_line() -> str:
    """The core's build: Eigen, the instruction-set variant loaded, its SIMD sets, OpenMP and threads."""
    from svmopt import _core

    return (f"core: Eigen {_core.eigen_version}, {_core.isa} variant ({_core.simd_instruction_sets()}), "
            f"OpenMP {'on' if _core.openmp_enabled() else 'off'}, {_core.max_threads()} thread(s)")


def gram_timings(
    X: np.ndarray, repeat: int = 3, n_threads: int | None = None, progress: bool = False, desc: str = "Gram"
) -> list[dict]:
    """Time every kernel's Gram matrix in svmopt's core and in scikit-learn on the same data.

    Each timing is the best of ``repeat`` runs of as many calls as last 0.1 s (:func:`per_call`), so that a
    millisecond-sized matrix is not timed by one cold call. ``progress`` shows a bar on stderr.
    """
    from sklearn.metrics import pairwise
    from tqdm.auto import tqdm

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
    for label, kernel, sk in tqdm(cases, desc=f"timing Gram ({desc})", unit="kernel", disable=not progress,
                                  leave=False, file=sys.stderr):
        ours = kernel.gram(X, n_threads=n_threads)
        theirs = sk()
        scale = max(1.0, float(np.abs(theirs).max()))
        t_ours = per_call(functools.partial(kernel.gram, X, n_threads=n_threads), repeat)
        t_sk = per_call(sk, repeat)
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


def model_size(est) -> str:
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
    coef = getattr(est, "coef_", None)
    if coef is not None:
        n = 1 if np.ndim(coef) == 1 else np.shape(coef)[0]
        return f"{n} hyperplane{'s' if n > 1 else ''}"
    return "-"


BINARY_ONLY = frozenset({"RampLossSVC"})
"""Models of :func:`model_zoo` that take two classes only (``run`` skips them on multiclass data)."""


def model_zoo(
    seed: int, n_samples: int | None = None, n_features: int | None = None, n_jobs: int | None = None
) -> list[tuple[str, str, object]]:
    """``(name, label, unfitted estimator)`` for scikit-learn's SVC and every svmopt model in this version.

    ``name`` is what ``svmopt run --model`` accepts; ``label`` says the configuration. ``n_samples`` (training
    rows) and ``n_features`` size the models that need it; ``n_jobs`` caps the threads of those that take it.
    Each svmopt model runs in the configuration its paper reports on comparable data, kept small enough for
    ``run`` to finish in well under a minute:

    * RobustSVC: min-max scaling, inhomogeneous quadratic kernel, the nu grid (paper 000, Table 3, Breast
      Cancer Diagnostic) selected by the training count (Pseudocode 1), the paper's model over every training
      point; deterministic and robust (p = inf, rho = 1e-3, the middle of the paper's rho grid 1e-7 ... 1e-1:
      at its top, 1e-1, the uncertainty set swallows the margin on most small sets, Section 5's Tables 9-14).
    * RampLossSVC: z-scored inputs (paper 001, Section 4), C = 1, the Kernel Search heuristic with a budget of
      10 features (all features when there are at most 10) and a 10 s time limit.
    * FixedSizeLSSVC: m = min(200, training rows) prototypes, tuned by CSA + simplex (paper 002).
    * EllipsoidPSOClassifier: the paper's swarm settings (paper 003, Table 1) and ellipsoids (Section 4.2).
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, StandardScaler
    from sklearn.svm import SVC

    import svmopt

    zoo: list[tuple[str, str, object]] = [
        ("SVC", "sklearn SVC (rbf, standardized)", make_pipeline(StandardScaler(), SVC()))
    ]
    if hasattr(svmopt, "RobustSVC"):
        zoo.append((
            "RobustSVC",
            "RobustSVC (inhom. quadratic, min-max, nu grid)",
            make_pipeline(MinMaxScaler(), svmopt.RobustSVC(kernel="inhom_poly", degree=2, nu="grid",
                                                           selection="training_error", n_landmarks=None)),
        ))
        zoo.append((
            "RobustSVC-robust",
            "RobustSVC robust (p=inf, rho=1e-3)",
            make_pipeline(MinMaxScaler(), svmopt.RobustSVC(kernel="inhom_poly", degree=2, nu="grid", p=np.inf,
                                                           rho=1e-3, selection="training_error",
                                                           n_landmarks=None)),
        ))
    if hasattr(svmopt, "RampLossSVC"):
        budget = 10 if n_features is None or n_features > 10 else None
        params = svmopt.RampLossSVC().get_params()
        kwargs: dict[str, Any] = {"C": 1.0, "budget": budget, "method": "heuristic", "max_time": 10.0}
        if "random_state" in params:
            kwargs["random_state"] = seed
        zoo.append((
            "RampLossSVC",
            f"RampLossSVC (heuristic, budget {budget or 'none'}, 10 s, standardized)",
            make_pipeline(StandardScaler(), svmopt.RampLossSVC(**kwargs)),
        ))
    if hasattr(svmopt, "FixedSizeLSSVC"):
        m = 200 if n_samples is None else max(2, min(200, n_samples))
        zoo.append((
            "FixedSizeLSSVC",
            f"FixedSizeLSSVC (m={m}, CSA + simplex tuning)",
            svmopt.FixedSizeLSSVC(n_prototypes=m, random_state=seed, n_jobs=n_jobs),
        ))
    if hasattr(svmopt, "EllipsoidPSOClassifier"):
        zoo.append((
            "EllipsoidPSOClassifier",
            "EllipsoidPSOClassifier (paper settings, standardized)",
            make_pipeline(StandardScaler(), svmopt.EllipsoidPSOClassifier(random_state=seed, ratio=1.0,
                                                                           shrinkage=0.0)),
        ))
    return zoo


def model_names() -> list[str]:
    """The names ``svmopt run --model`` accepts in this version (the models :func:`model_zoo` trains)."""
    return [name for name, _, _ in model_zoo(0)]


def select_models(requested: Sequence[str] | None) -> list[str] | None:
    """Canonical model names for ``--model`` values (case-insensitive); CLIError naming the choices otherwise."""
    if not requested:
        return None
    known = {name.lower(): name for name in model_names()}
    unknown = [r for r in requested if r.lower() not in known]
    if unknown:
        raise CLIError(
            f"--model: unknown model(s) {', '.join(map(repr, unknown))}; choose from {', '.join(known.values())}"
        )
    return list(dict.fromkeys(known[r.lower()] for r in requested))


def model_table(
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    models: Sequence[str] | None = None,
    progress: bool = True,
    n_jobs: int | None = None,
) -> list[dict]:
    """Fit the models of :func:`model_zoo` (all, or those named) on a stratified 75/25 split.

    Returns one row per model: name, label, test accuracy, fit time and size. Binary-only models are skipped
    on multiclass data (row marked ``skipped``); a model that raises is reported as ``failed`` so that it
    cannot hide the others' results. Nothing is printed mid-table: each row's ``notes`` holds the warnings its fit
    raised and a failure's message (:func:`print_notes` prints them below the table), and a ``ConvergenceWarning``
    (e.g. a MILP stopped at its time limit with a usable solution) is also marked in the size column.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from tqdm.auto import tqdm

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
    n_classes = len(np.unique(y))
    zoo = model_zoo(seed, n_samples=Xtr.shape[0], n_features=X.shape[1], n_jobs=n_jobs)
    zoo = [z for z in zoo if not models or z[0] in models]
    rows = []
    bar = tqdm(zoo, desc="fitting", unit="model", disable=not progress, leave=False, file=sys.stderr)
    for name, label, est in bar:
        bar.set_postfix_str(name)
        if name in BINARY_ONLY and n_classes > 2:
            rows.append({"name": name, "model": label, "accuracy": float("nan"), "fit_s": float("nan"),
                         "size": f"skipped: binary only, data has {n_classes} classes"})
            continue
        t0 = time.perf_counter()
        notes: list[str] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                est.fit(Xtr, ytr)
        except Exception as exc:  # one model's failure must not hide the others' results
            rows.append({"name": name, "model": label, "accuracy": float("nan"), "fit_s": time.perf_counter() - t0,
                         "size": "failed (see below)", "notes": [f"failed: {type(exc).__name__}: {exc}"]})
            continue
        fit_s = time.perf_counter() - t0
        size = model_size(est)
        for w in caught:  # a time limit is expected for the MILP heuristics: say so in the row, the rest below it
            text = str(w.message)
            if issubclass(w.category, ConvergenceWarning):
                limited = getattr(est[-1] if hasattr(est, "steps") else est, "max_time_reached_", False) is True \
                    or any(k in text for k in ("max_time", "time_limit", "time limit"))
                mark = " (time limit)" if limited else " (not converged)"
                if not size.endswith(mark):
                    size += mark
            note = f"{w.category.__name__}: {text}"
            if note not in notes:
                notes.append(note)
        rows.append({"name": name, "model": label, "accuracy": float(est.score(Xte, yte)), "fit_s": fit_s,
                     "size": size, "notes": notes})
    bar.close()
    return rows


def print_notes(rows: list[dict], out) -> None:
    """The warnings and failures of :func:`model_table`'s fits, one line each, attributed to their model."""
    lines = [f"  {r['model']}: {note}" for r in rows for note in r.get("notes", ())]
    if lines:
        print("\nNotes (warnings and errors raised by the fits above):", file=out)
        print("\n".join(lines), file=out)


def print_table(rows: list[dict], columns: Sequence[tuple[str, str, str]], out) -> None:
    cells = [[fmt.format(r[key]) for key, _, fmt in columns] for r in rows]
    heads = [h for _, h, _ in columns]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    head = "  ".join(h.rjust(w) if i and fmt != "{}" else h.ljust(w)
                     for i, (h, w, (_, _, fmt)) in enumerate(zip(heads, widths, columns, strict=True)))
    print(head.rstrip(), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for c in cells:
        padded = (
            v.rjust(w) if i and fmt != "{}" else v.ljust(w)
            for i, (v, w, (_, _, fmt)) in enumerate(zip(c, widths, columns, strict=True))
        )
        print("  ".join(padded).rstrip(), file=out)


def cmd_info(args: argparse.Namespace, out=None) -> int:
    """``svmopt info``: the version, the core's build, and the data sets this installation can load."""
    from importlib.metadata import version

    from svmopt.datasets import DATASETS, ENV_VAR, list_datasets

    out = sys.stdout if out is None else out
    import os

    print(f"svmopt {version('svmopt')}", file=out)
    print(core_line(), file=out)
    root = os.environ.get(ENV_VAR)
    print(f"{ENV_VAR}: {root if root else 'not set'}", file=out)
    print(f"\ndata sets this installation can load ({'bundled' if not root else 'bundled, or from ' + ENV_VAR}):",
          file=out)
    for name in list_datasets(loadable=True):
        info = DATASETS[name]
        print(f"  {name:<24} {info.n_samples:>7} x {info.n_features:<6} {info.task}"
              f"{'' if info.bundled else ' (' + ENV_VAR + ')'}", file=out)
    missing = list_datasets(loadable=False, include_unavailable=True)
    if missing:
        print(f"\nnot found ({len(missing)}): {', '.join(missing)}", file=out)
        print(f"  set {ENV_VAR} to a folder holding <name>/<file> (files may be gzipped); "
              "`python -c \"import svmopt.datasets as d; print(d.DATASETS['NAME'].description)\"` says what each "
              "needs (mfeat and covertype: no public copy is known; supply the raw UCI files).", file=out)
    return 0


def cmd_run(args: argparse.Namespace, out=None) -> int:
    out = sys.stdout if out is None else out

    models = select_models(args.model)
    X, y, what = load_table(args.data, args.target)
    classes = np.unique(y)
    if len(classes) < 2:
        raise CLIError(f"--data: the label column has {len(classes)} class(es); need at least 2")
    if models and len(classes) > 2:
        binary = [m for m in models if m in BINARY_ONLY]
        if binary:
            raise CLIError(f"--model {', '.join(binary)}: binary classifiers only, and {what} has {len(classes)} "
                           "classes; pick a two-class data set or another model")
    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < 2:
        raise CLIError(f"--data: the smallest class has {counts.min()} sample(s); a stratified split needs at least 2")
    std = X.std(0)
    Xs = (X - X.mean(0)) / np.where(std > 0, std, 1.0)
    print(f"data: {what}: {X.shape[0]} samples x {X.shape[1]} features, {len(classes)} classes", file=out)
    print(core_line(), file=out)
    print(f"\nModels, stratified 75/25 split (seed {args.seed}):", file=out)
    mcols = [("model", "model", "{}"), ("accuracy", "test accuracy", "{:.4f}"), ("fit_s", "fit [s]", "{:.2f}"),
             ("size", "model size", "{}")]
    rows = model_table(X, y, args.seed, models=models, progress=not args.no_progress, n_jobs=args.jobs)
    print_table(rows, mcols, out)
    print_notes(rows, out)
    if args.no_gram:
        return 0
    sizes = [("data", Xs)]
    if args.size and args.size > X.shape[0]:
        rng = np.random.default_rng(args.seed)
        idx = rng.integers(0, X.shape[0], size=args.size)
        sizes.append((f"resampled to {args.size} rows", Xs[idx] + 1e-3 * rng.standard_normal((args.size, X.shape[1]))))
    cols = [
        ("kernel", "kernel", "{}"),
        ("svmopt_s", "svmopt [s]", "{:.5f}"),
        ("sklearn_s", "sklearn [s]", "{:.5f}"),
        ("speedup", "speed-up", "{:.1f}x"),
        ("max_rel_diff", "max rel diff", "{:.1e}"),
    ]
    print(f"\nGram matrices K(X, X), svmopt's core beside sklearn.metrics.pairwise (standardized X; best of "
          f"{args.repeat} runs of >= 0.1 s each):", file=out)
    for label, Z in sizes:
        print(f"\n{label}, {Z.shape[0]} x {Z.shape[1]}, K is {Z.shape[0]} x {Z.shape[0]}:", file=out)
        print_table(gram_timings(Z, repeat=args.repeat, n_threads=args.jobs, progress=not args.no_progress,
                                 desc=label), cols, out)
    print("\nspeed-up: sklearn's time / svmopt's (above 1: svmopt is faster); "
          "max rel diff: max |K_svmopt - K_sklearn| / max(1, max |K_sklearn|).", file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="svmopt", description="Optimization-model SVMs over a C++ core.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run svmopt on a data set and print the results table")
    run.add_argument("--data", default=DEFAULT_DATA, help=f"bundled data set name or CSV path (default {DEFAULT_DATA})")
    run.add_argument("--target", default=None, help="label column of a CSV (default: the last column)")
    run.add_argument("--model", action="append", default=None, metavar="NAME",
                     help=f"train only this model (repeatable; {', '.join(model_names())})")
    run.add_argument("--size", type=int, default=4000, help="also time on the data resampled to this many rows")
    run.add_argument("--repeat", type=int, default=3, help="timing repetitions (best is reported)")
    run.add_argument("--jobs", type=int, default=None, help="threads for the core and the models (default: all cores)")
    run.add_argument("--seed", type=int, default=0, help="random seed")
    run.add_argument("--no-gram", action="store_true", help="skip the Gram-matrix timings")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(func=cmd_run)
    info = sub.add_parser("info", help="print the version, the core's build and the data sets this install can load")
    info.set_defaults(func=cmd_info)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run" and args.jobs is not None and args.jobs < 1:
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
