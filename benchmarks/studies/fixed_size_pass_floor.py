"""FixedSizeLSSVC/-SVR's pass over the data against the dsyrk floor, interleaved round by round.

Each round measures, one after the other in one process: the floor (SciPy's dsyrk of order m on a 100,000 x m array,
best of 3, scaled to n rows: the n m^2 flops no implementation of the fixed-size LS-SVM can skip), then the classifier's
and the regressor's ``tuning_and_fit`` phase (the streaming pass with the eigendecomposition and the solve) at fixed
(gamma, sigma^2) and fixed prototypes (chosen once, on the first 100,000 rows, outside the timing). Data as in
``benchmarks/studies/peers_fixed_size.py``: n x 20 standard normal features, labels sign(sin 2x0 + x1 x2 + 0.3 e) (the
regression target is the latent value), sigma^2 = 20, gamma = 10. On a shared machine the dsyrk rate moves between
rounds; the ratios are taken within each round::

    python -m benchmarks.studies.fixed_size_pass_floor --rows 1000000 --rounds 5

Results: ``--out-name`` (``fixed_size_pass_floor.json``) in ``--out-dir`` (every round, and the median, min and max
of each ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.studies.peers_fixed_size import floor_seconds
from benchmarks.studies.util import RESULTS, command_line, git_head


def run(n: int, m: int, rounds: int, seed: int = 0) -> dict[str, Any]:
    from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 20))
    latent = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(n)
    tasks = {"classifier": (FixedSizeLSSVC, np.sign(latent)), "regressor": (FixedSizeLSSVR, latent)}
    k = min(n, 100_000)
    protos = {name: Est(n_prototypes=m, sigma2=20.0, gamma=10.0, random_state=seed).fit(X[:k], y[:k]).prototypes_
              for name, (Est, y) in tasks.items()}
    out: list[dict[str, Any]] = []
    for _ in range(rounds):
        fl = floor_seconds(n, m, 100_000)  # the peers benchmark's floor: dsyrk over 100,000 rows, best of 3
        floor = n * m * m / (fl["dsyrk_gflops"] * 1e9)  # from the rate: its floor_s is rounded to 10 ms
        rec: dict[str, Any] = {**fl, "floor_s": floor}
        for name, (Est, y) in tasks.items():
            est = Est(prototypes=protos[name], sigma2=20.0, gamma=10.0, random_state=seed)
            c = time.process_time()
            est.fit(X, y)
            rec[name] = {"pass_s": est.timings_["tuning_and_fit"], "fit_cpu_s": time.process_time() - c,
                         "pass_over_floor": est.timings_["tuning_and_fit"] / floor}
        out.append(rec)
        print(json.dumps(rec), flush=True)
    summary = {name: {stat: float(fn([r[name]["pass_over_floor"] for r in out]))
                      for stat, fn in (("median", np.median), ("min", np.min), ("max", np.max))}
               for name in tasks}
    return {"n": n, "m": m, "rounds": out, "summary": summary}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--m", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--out-name", default="fixed_size_pass_floor.json")
    args = ap.parse_args(argv)
    import svmopt

    res = run(args.rows, args.m, args.rounds)
    res["meta"] = {"command": command_line(__spec__.name, argv),
                   "svmopt": f"{svmopt.__version__} at {Path(svmopt.__file__).parent}", "git HEAD": git_head(),
                   "python / numpy": f"{platform.python_version()} / {np.__version__}",
                   "machine": platform.machine(), "cpu_count": os.cpu_count()}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / args.out_name).write_text(json.dumps(res, indent=1))
    for name, s in res["summary"].items():
        print(f"{name}: pass / floor median {s['median']:.2f} (min {s['min']:.2f}, max {s['max']:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
