"""FixedSizeLSSVC / FixedSizeLSSVR against the pipeline a scikit-learn user would pick instead, and against the flop
floor of this machine, at fixed hyperparameters. A plain script (not an asv suite); it produces the figures of
``docs/performance.md#against-scikit-learn-and-the-flop-floor``:

    python -m benchmarks.studies.peers_fixed_size --rows 1000000 --m 500 1000 2000

Every fit runs in its own child process (its peak RSS, VmHWM, is its own). The data are those of
``scale_fixed_size.py`` (standard normal features, ``--d`` columns, labels ``sign(sin(2 x0) + x1 x2 + 0.3 noise)``;
regression targets ``sin(2 x0) + x1 x2 + 0.3 noise``), written once to a float64 file; the test set is 100,000
further rows of the same law.

Contenders, all with sigma^2 = ``--sigma2`` and gamma = ``--gamma`` (ridge alpha = 1 / gamma), inputs standardized:

* ``svmopt``          -- FixedSizeLSSVC/-SVR, ``statistics="auto"`` (the kernel block's C^T C where the kept spectrum
                         allows, which it does here), features never kept (``feature_memory=1``, no CV score);
* ``svmopt-features`` -- the same with ``statistics="features"`` (the paper's Algorithm 3: C P, then Phi^T Phi);
* ``svmopt-random``   -- the same with ``prototype_selection="random"`` (m rows drawn uniformly, as Nystroem draws
                         its components) instead of the paper's Renyi-entropy search;
* ``sklearn``         -- ``StandardScaler`` + ``Nystroem(n_components=m, gamma=1/sigma^2)`` + ``RidgeClassifier`` /
                         ``Ridge`` (``alpha=1/gamma``), in memory (its n x m features must fit: rows above
                         ``--sklearn-max-cells`` n m are skipped and reported as such).

Tuned end to end (``--contenders svmopt-tuned svmopt-tuned-features sklearn-tuned``):

* ``svmopt-tuned``          -- the paper's search (``gamma_search="csa"``, the default below 5·10⁴ rows): gamma
                               and sigma^2 by CSA + simplex (90 + 70 evaluations) on the fast 10-fold CV over all
                               rows;
* ``svmopt-tuned-features`` -- the same on the features' statistics, to measure what the kernel block saves;
* ``svmopt-path``           -- ``gamma_search="path"``: CSA + simplex over log sigma^2 alone (``--path-csa`` +
                               ``--path-simplex`` evaluations, each one pass, plus one prediction pass where the
                               features are not kept), gamma the best of the 31 values of ``GAMMA_PATH`` at each:
                               ``(path_csa + path_simplex) * 31`` (gamma, sigma^2) evaluations;
* ``sklearn-tuned``         -- ``Nystroem`` + ``RidgeClassifierCV`` / ``RidgeCV`` over ``--tune-widths`` kernel
                               widths x ``--tune-alphas`` ridge values (the same 160 evaluations by default), each
                               width's features formed once and the ridge path scored by efficient leave-one-out.

The floor is the one operation every exact method here needs: the symmetric rank-n update of order m (n m^2 flops),
timed as scipy's ``dsyrk`` on a (``--floor-rows`` x m) array on the same BLAS and scaled to n rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

from benchmarks.studies.scale_fixed_size import make_data
from benchmarks.studies.util import fit_timed, git_head, peak_rss_mib, run_child

N_TEST = 100_000


def latent(X: np.ndarray, seed: int) -> np.ndarray:
    """The synthetic set's latent function with fresh noise, ``sin(2 x0) + x1 x2 + 0.3 noise``."""
    rng = np.random.default_rng(seed)
    return np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(X.shape[0])


def regression_targets(path: str, n: int, d: int, block: int = 250_000) -> np.ndarray:
    """Real targets of the training rows (the labels' latent function, fresh noise), block by block."""
    X = np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))
    return np.concatenate([latent(np.asarray(X[s:s + block]), 7 + s) for s in range(0, n, block)])


def held_out_rows(d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The synthetic test set: X, labels, regression targets."""
    X = np.random.default_rng(12345).standard_normal((N_TEST, d))
    f = latent(X, 54321)
    return X, np.where(f >= 0, 1, -1), f


def floor_seconds(n: int, m: int, rows: int) -> dict:
    """Seconds of a dsyrk of order m over n rows on the installed BLAS (best of 3 over ``rows`` rows, scaled)."""
    from scipy.linalg.blas import dsyrk

    A = np.asfortranarray(np.random.default_rng(0).standard_normal((rows, m)))
    best = (np.inf, np.inf)
    for _ in range(3):
        w0, c0 = time.perf_counter(), time.process_time()
        dsyrk(1.0, A, trans=1, lower=1)
        best = min(best, (time.perf_counter() - w0, time.process_time() - c0))
    rate = rows * m * m / best[0]
    # 3 significant digits: at small m (the tests' 20 columns) the rate is well below 0.1 GFLOP/s
    return {"dsyrk_gflops": float(f"{rate / 1e9:.3g}"), "floor_s": round(n * m * m / rate, 2),
            "floor_cpu_s": round(best[1] * n / rows, 2)}


class _TunedPipeline:
    """Nystroem + RidgeClassifierCV / RidgeCV tuned as a scikit-learn user would: for every kernel width of the grid,
    the features once and the ridge path by efficient leave-one-out, the best (width, alpha) by that score, then
    refit with it. (One fit per width: GridSearchCV would refit the features per split.)"""

    def __init__(self, m, head, alphas, widths):
        self.m, self.head, self.alphas, self.widths = m, head, alphas, widths

    def fit(self, X, y):
        from sklearn.kernel_approximation import Nystroem
        from sklearn.preprocessing import StandardScaler

        self.scaler = StandardScaler().fit(X)
        Xs = self.scaler.transform(X)
        best = (-np.inf, None, None)
        for g in self.widths:
            nys = Nystroem(gamma=g, n_components=self.m, random_state=0).fit(Xs)
            F = nys.transform(Xs)
            r = self.head(alphas=self.alphas).fit(F, y)
            if r.best_score_ > best[0]:
                best = (r.best_score_, g, r.alpha_)
            del F
        _, self.best_width, self.best_alpha = best
        self.nys = Nystroem(gamma=self.best_width, n_components=self.m, random_state=0).fit(Xs)
        base = self.head.__name__.replace("CV", "")
        from sklearn import linear_model

        self.model = getattr(linear_model, base)(alpha=self.best_alpha).fit(self.nys.transform(Xs), y)
        return self

    def predict(self, X):
        return self.model.predict(self.nys.transform(self.scaler.transform(X)))


def child(args) -> dict:
    n, d, m = args.child_rows, args.d, args.m[0]
    path = os.path.join(args.workdir, f"scale_{n}x{d}.f64")
    task = args.task
    Xmm = np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))
    if task == "classification":
        y = np.array(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)))
    else:
        y = regression_targets(path, n, d)
    Xt, yt_cls, yt_reg = held_out_rows(d)
    if args.source == "numpy" or args.contender.startswith("sklearn"):
        X = np.array(Xmm)
    elif args.source == "memmap":
        X = Xmm
    else:
        from scale_fixed_size import dask_from_file

        X = dask_from_file(path, n, d, args.chunk)
    client = cluster = None
    if args.source == "dask" and args.dask_workers > 0:
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.dask_workers, processes=True, threads_per_worker=1, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
    if args.contender == "sklearn-tuned":
        from sklearn.linear_model import RidgeClassifierCV, RidgeCV

        # the widths searched as sigma^2 = d e^u, u on a grid over [-3, 3] (the region svmopt's CSA starts in), and
        # for each the ridge path over --tune-alphas values by scikit-learn's efficient leave-one-out
        est = _TunedPipeline(m, RidgeClassifierCV if task == "classification" else RidgeCV,
                             np.logspace(-4, 3, args.tune_alphas),
                             1.0 / (d * np.exp(np.linspace(-3.0, 3.0, args.tune_widths))))
    elif args.contender == "sklearn":
        from sklearn.kernel_approximation import Nystroem
        from sklearn.linear_model import Ridge, RidgeClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        head = RidgeClassifier if task == "classification" else Ridge
        est = make_pipeline(StandardScaler(), Nystroem(gamma=1.0 / args.sigma2, n_components=m, random_state=0),
                            head(alpha=1.0 / args.gamma))
    else:
        from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

        Est = FixedSizeLSSVC if task == "classification" else FixedSizeLSSVR
        if args.contender.startswith("svmopt-tuned"):  # the paper's CSA + simplex, 160 fast 10-fold CV evaluations
            est = Est(n_prototypes=m, random_state=0, gamma_search="csa",
                      statistics="features" if args.contender.endswith("features") else "auto")
        elif args.contender == "svmopt-path":  # sigma^2 by CSA + simplex, gamma on the path at every sigma^2
            est = Est(n_prototypes=m, random_state=0, gamma_search="path", n_csa=args.path_csa,
                      n_simplex=args.path_simplex)
        else:
            est = Est(n_prototypes=m, gamma=args.gamma, sigma2=args.sigma2, random_state=0, feature_memory=1,
                      statistics="features" if args.contender == "svmopt-features" else "auto",
                      prototype_selection="random" if args.contender == "svmopt-random" else "entropy")
    wall, cpu, _ = fit_timed(est, X, y)
    out = {"task": task, "contender": args.contender, "rows": n, "d": d, "m": m, "source": args.source,
           "fit_s": round(wall, 2), "fit_cpu_s": round(cpu, 2),
           "peak_rss_mib": round(peak_rss_mib(), 1), "input_mib": round(n * d * 8 / 2**20, 1)}
    pred = est.predict(Xt)
    if task == "classification":
        out["test_accuracy"] = round(float(np.mean(pred == yt_cls)), 4)
    else:
        out["test_mse"] = round(float(np.mean((pred - yt_reg) ** 2)), 4)
    if args.contender.startswith("svmopt"):
        out["timings"] = {k: round(v, 2) for k, v in est.timings_.items()}
        out["statistics"] = est.problems_[0]["statistics"]
        out["n_evals"] = int(est.problems_[0]["n_evals"])
        out["n_passes"] = int(est.problems_[0]["n_passes"])
        out["gamma"], out["sigma2"] = float(est.problems_[0]["gamma"]), float(est.problems_[0]["sigma2"])
    elif args.contender == "sklearn-tuned":
        out["n_evals"] = len(est.widths) * len(est.alphas)
        out["gamma"], out["sigma2"] = 1.0 / est.best_alpha, 1.0 / est.best_width
    if client is not None:
        client.close()
        cluster.close()
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    p.add_argument("--m", type=int, nargs="+", default=[500])
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--tasks", nargs="+", default=["classification", "regression"])
    p.add_argument("--contenders", nargs="+", default=["svmopt", "svmopt-features", "sklearn"])
    p.add_argument("--sources", nargs="+", default=["numpy"], choices=["numpy", "memmap", "dask"])
    p.add_argument("--gamma", type=float, default=10.0)
    p.add_argument("--sigma2", type=float, default=20.0)
    p.add_argument("--chunk", type=int, default=250_000, help="dask chunk rows")
    p.add_argument("--dask-workers", type=int, default=2)
    p.add_argument("--sklearn-max-cells", type=float, default=5e8, help="largest n m the in-memory peer is run at")
    p.add_argument("--floor-rows", type=int, default=100_000)
    p.add_argument("--tune-widths", type=int, default=16, help="sklearn-tuned: kernel widths on the grid")
    p.add_argument("--tune-alphas", type=int, default=10, help="sklearn-tuned: ridge alphas per width")
    p.add_argument("--path-csa", type=int, default=20, help="svmopt-path: CSA evaluations (sigma^2 values)")
    p.add_argument("--path-simplex", type=int, default=10, help="svmopt-path: simplex evaluations")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "svmopt_scale"))
    p.add_argument("--out", default=None, help="JSON file for the results (default: print only)")
    p.add_argument("--child-rows", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--task", default=None, help=argparse.SUPPRESS)
    p.add_argument("--contender", default=None, help=argparse.SUPPRESS)
    p.add_argument("--source", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child_rows is not None:
        print(json.dumps(child(args)))
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    results = {"commit": git_head(), "cpus": os.cpu_count(), "gamma": args.gamma, "sigma2": args.sigma2,
               "floor": {}, "runs": []}
    for n in args.rows:
        make_data(os.path.join(args.workdir, f"scale_{n}x{args.d}.f64"), n, args.d)
        for m in args.m:
            results["floor"][f"{n}x{m}"] = floor_seconds(n, m, args.floor_rows)
            print("floor", n, m, results["floor"][f"{n}x{m}"], flush=True)
            for task in args.tasks:
                for contender in args.contenders:
                    for source in (args.sources if not contender.startswith("sklearn") else ["numpy"]):
                        if contender.startswith("sklearn") and n * m > args.sklearn_max_cells:
                            results["runs"].append({"task": task, "contender": contender, "rows": n, "m": m,
                                                    "skipped": f"n m = {n * m:.1e} features above the in-memory "
                                                               f"limit {args.sklearn_max_cells:.0e}"})
                            continue
                        cmd = ["--child-rows", str(n), "--m", str(m), "--d", str(args.d), "--task", task,
                               "--contender", contender, "--source", source, "--gamma", str(args.gamma),
                               "--sigma2", str(args.sigma2), "--chunk", str(args.chunk),
                               "--dask-workers", str(args.dask_workers), "--workdir", args.workdir,
                               "--tune-widths", str(args.tune_widths), "--tune-alphas", str(args.tune_alphas),
                               "--path-csa", str(args.path_csa), "--path-simplex", str(args.path_simplex)]
                        r = run_child(__spec__.name, cmd, capture_output=True, text=True, check=False)
                        if r.returncode != 0:
                            res = {"task": task, "contender": contender, "rows": n, "m": m, "source": source,
                                   "failed": r.stderr.strip().splitlines()[-1:] or ["?"]}
                        else:
                            res = json.loads(r.stdout.strip().splitlines()[-1])
                        results["runs"].append(res)
                        print(json.dumps(res), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
