"""Single-machine limits of FixedSizeLSSVC (paper 002): rows, wall time and peak memory, from a memmap, a dask
array or an in-memory array of synthetic data. A plain script (not an asv suite); it produces the figures of
``docs/scale.md``:

    python -m benchmarks.studies.scale_fixed_size --rows 100000 1000000 5000000 --sources memmap dask

Each (rows, source) fit runs in its own child process, so that its peak resident set size (``ru_maxrss``) is
its own. The data are standard normal features (``--d`` columns, written once per row count to a float64 file
in ``--workdir``) and labels ``sign(sin(2 x0) + x1 x2 + 0.3 noise)``. Hyperparameters are fixed (``--gamma``,
``--sigma2``): one fit is then the standardization passes, the bandwidths and prototypes on at most
``max_candidates`` rows, and one streaming pass accumulating Phi^T Phi and Phi^T y (eq. (20)) before the ridge
solve (7). ``feature_memory`` is set to 1 byte so that the features are never kept (the O(block m + m^2) path the
memory claim is about); the classifier then skips the informational CV score.

Sources: ``memmap`` (``np.memmap``, read block by block), ``dask`` (a dask array whose chunks read row ranges of
the same file; the threaded scheduler, or a ``LocalCluster`` with ``--dask-workers`` processes), ``numpy``
(the whole array loaded first, for comparison).

``--out FILE`` writes every fit's record and the run's provenance (command, commit, date, load average) as one JSON
file (``benchmarks/results/scale_fixed_size.json`` holds the table of ``docs/scale.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numpy as np

from benchmarks.studies.util import command_line, git_head, peak_rss_mib, rss_mib, run_child, uncommitted


def make_data(path: str, n: int, d: int, seed: int = 0, block: int = 250_000) -> None:
    """Write X (n x d float64) to ``path`` and y to ``path + '.y'``, block by block (deterministic)."""
    if os.path.exists(path) and os.path.getsize(path) == n * d * 8 and os.path.exists(path + ".y"):
        return
    X = np.memmap(path, dtype=np.float64, mode="w+", shape=(n, d))
    y = np.memmap(path + ".y", dtype=np.int8, mode="w+", shape=(n,))
    rng = np.random.default_rng(seed)
    for s in range(0, n, block):
        xb = rng.standard_normal((min(block, n - s), d))
        X[s:s + xb.shape[0]] = xb
        f = np.sin(2 * xb[:, 0]) + xb[:, 1] * xb[:, 2] + 0.3 * rng.standard_normal(xb.shape[0])
        y[s:s + xb.shape[0]] = np.where(f >= 0, 1, -1)
    X.flush()
    y.flush()
    del X, y


def _read_rows(path: str, d: int, start: int, stop: int) -> np.ndarray:
    X = np.memmap(path, dtype=np.float64, mode="r", shape=(stop, d))
    return np.array(X[start:stop])


def dask_from_file(path: str, n: int, d: int, chunk: int):
    """A dask array whose chunks read their row ranges of the file (the same pattern works on shared storage
    of a multi-machine cluster; a memmap passed to ``da.from_array`` would be pickled whole into the graph)."""
    import dask.array as da
    from dask import delayed

    parts = [da.from_delayed(delayed(_read_rows, pure=True)(path, d, s, min(s + chunk, n)),
                             shape=(min(s + chunk, n) - s, d), dtype=np.float64) for s in range(0, n, chunk)]
    return da.concatenate(parts, axis=0)


def child(args) -> dict:
    from svmopt import FixedSizeLSSVC

    n, d = args.child_rows, args.d
    path = os.path.join(args.workdir, f"scale_{n}x{d}.f64")
    y = np.array(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)))
    client = cluster = None
    if args.source == "memmap":
        X = np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))
    elif args.source == "numpy":
        X = np.array(np.memmap(path, dtype=np.float64, mode="r", shape=(n, d)))
    else:
        X = dask_from_file(path, n, d, args.chunk)
        if args.dask_workers > 0:
            from dask.distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=args.dask_workers, processes=True, threads_per_worker=1,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
    rss_before = rss_mib()
    load_before = os.getloadavg()[0]
    est = FixedSizeLSSVC(n_prototypes=args.m, gamma=args.gamma, sigma2=args.sigma2, cv=args.cv,
                         block_size=args.block, random_state=0, feature_memory=1,
                         max_candidates=args.max_candidates)
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    est.fit(X, y)
    wall = time.perf_counter() - t
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    Xt = np.array(np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))[:20_000])
    acc = float(np.mean(est.predict(Xt) == y[:20_000]))
    out = {"rows": n, "d": d, "m": est.n_prototypes_, "source": args.source, "block": args.block,
           "chunk": args.chunk if args.source == "dask" else None, "dask_workers": args.dask_workers,
           "fit_s": round(wall, 2), "fit_cpu_s_this_process": round(cpu, 2),
           "timings": {k: round(v, 2) for k, v in est.timings_.items()},
           "rss_before_fit_mib": round(rss_before, 1), "peak_rss_mib": round(peak_rss_mib(), 1),
           "train_acc_first_20000": round(acc, 4), "load_average_1min_before_fit": round(load_before, 2)}
    if client is not None:
        out["worker_peak_rss_mib"] = sorted(round(v / 1024.0, 1) for v in client.run(
            lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss).values())
        client.close()
        cluster.close()
    m, v = est.n_prototypes_, args.cv
    b = args.chunk if args.source == "dask" else args.block
    p = m + 1
    core_rows = min(max((48 << 20) // (8 * (m + 2 * p + 1)), 256), 16384)  # the core's feature chunk
    # The claim: besides the input, O(block d + chunk m + m^2) floats per pass (the core never holds n x m
    # features), plus the prototype search on at most max_candidates rows, plus O(n) labels/targets/folds.
    out["model_mib"] = {
        "input_block_x3": round(3 * b * d * 8 / 2**20, 1),  # raw, float64 and standardized copies
        "core_feature_chunk": round(core_rows * (m + 2 * p + 1) * 8 / 2**20, 1),
        "fold_sums": round(2 * v * p * p * 8 / 2**20, 1),
        "candidates": round(min(n, args.max_candidates) * d * 8 / 2**20, 1),
        "per_row_vectors": round(n * (1 + 8 + 8 + 8 + 4) / 2**20, 1),  # y, codes, targets, copies, folds
        "full_features_never_built": round(n * p * 8 / 2**20, 1),
    }
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--sources", nargs="+", default=["memmap", "dask"], choices=["memmap", "dask", "numpy"])
    p.add_argument("--d", type=int, default=10, help="features (default 10)")
    p.add_argument("--m", type=int, default=200, help="n_prototypes (default 200)")
    p.add_argument("--gamma", type=float, default=10.0)
    p.add_argument("--sigma2", type=float, default=10.0)
    p.add_argument("--cv", type=int, default=10)
    p.add_argument("--block", type=int, default=65536, help="block_size of the memmap/numpy stream")
    p.add_argument("--chunk", type=int, default=250_000, help="rows per dask chunk")
    p.add_argument("--dask-workers", type=int, default=0,
                   help="0: dask's threaded scheduler in the same process; k: a LocalCluster of k processes")
    p.add_argument("--max-candidates", type=int, default=200_000)
    p.add_argument("--workdir", default=os.environ.get("SVMOPT_SCALE_DIR", tempfile.gettempdir()),
                   help="where the synthetic data files go (env SVMOPT_SCALE_DIR)")
    p.add_argument("--keep-data", action="store_true", help="keep the data files afterwards")
    p.add_argument("--json", help="append the result lines to this file")
    p.add_argument("--out", help="write every record and the run's provenance to this JSON file")
    p.add_argument("--child-rows", type=int, help=argparse.SUPPRESS)
    p.add_argument("--source", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child_rows is not None:
        print(json.dumps(child(args)), flush=True)
        return 0

    print(f"# {os.cpu_count()} cores, python {sys.version.split()[0]}, numpy {np.__version__}", flush=True)
    t_start, load_start = time.perf_counter(), os.getloadavg()[0]
    results = []
    for n in args.rows:
        path = os.path.join(args.workdir, f"scale_{n}x{args.d}.f64")
        t = time.perf_counter()
        make_data(path, n, args.d)
        print(f"# data {n} x {args.d}: {os.path.getsize(path) / 2**20:.0f} MiB file ({time.perf_counter() - t:.1f} s)",
              flush=True)
        for source in args.sources:
            cmd = ["--child-rows", str(n), "--source", source]
            for k in ("d", "m", "gamma", "sigma2", "cv", "block", "chunk", "dask_workers", "max_candidates",
                      "workdir"):
                cmd += [f"--{k.replace('_', '-')}", str(getattr(args, k))]
            r = run_child(__spec__.name, cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"# {n} rows, {source}: failed\n{r.stderr[-2000:]}", flush=True)
                continue
            line = r.stdout.strip().splitlines()[-1]
            results.append(json.loads(line))
            print(line, flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(line + "\n")
        if not args.keep_data:
            for f in (path, path + ".y"):
                if os.path.exists(f):
                    os.remove(f)
    if args.out:
        meta = {"command": command_line(__spec__.name, argv), "git HEAD": git_head(),
                "uncommitted changes": uncommitted(), "date": time.strftime("%Y-%m-%d"),
                "cpus": os.cpu_count(), "python / numpy": f"{sys.version.split()[0]} / {np.__version__}",
                **{v: os.environ.get(v, "unset") for v in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")},
                "load average (1 min) before / after": [round(load_start, 2), round(os.getloadavg()[0], 2)],
                "total run time": f"{time.perf_counter() - t_start:.1f} s"}
        with open(args.out, "w") as f:
            f.write(json.dumps({"meta": meta, "runs": results}, indent=1) + "\n")
    if results:
        print("\n| rows | source | fit wall (s) | fit CPU (s) | peak RSS (MiB) | RSS before fit (MiB) | train acc |")
        print("|---|---|---|---|---|---|---|")
        for r in results:
            print(f"| {r['rows']:,} | {r['source']} | {r['fit_s']} | {r['fit_cpu_s_this_process']} | "
                  f"{r['peak_rss_mib']} | {r['rss_before_fit_mib']} | {r['train_acc_first_20000']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
