"""The prototype vectors of the fixed-size LS-SVM (paper 002, Sections 4-5; Algorithm 5 steps 2-3): entropy
bandwidths, then ``m`` rows maximizing the quadratic Rényi entropy (12), or ``m`` rows drawn uniformly, or the
prototypes the user gave.

:func:`select` chooses among candidate rows (:func:`candidate_rows`, gathered from a source by :func:`gather_rows`)
and returns a :class:`PrototypeSet`, which sets the selection's fitted attributes; :func:`given` is the set of
prototypes that were not selected (given, or none for the linear kernel's explicit features).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils.validation import check_array

from svmopt._shared.bandwidth import entropy_bandwidths
from svmopt._shared.config import warn
from svmopt._shared.prototypes import random_prototypes, select_prototypes
from svmopt._shared.validation import real_array
from svmopt.fixed_size.dask_engine import DaskSource
from svmopt.fixed_size.sources import Source, dense_rows

#: ``n_prototypes="auto"``: m = 500, at most the candidate rows (without the warning an explicit larger m gets).
AUTO_PROTOTYPES = 500


@dataclass
class PrototypeSet:
    """The prototype vectors of a fit and how they were chosen (what the fitted attributes record)."""

    PV: np.ndarray | None  # (m, d) on the standardized scale; None for the linear kernel's explicit features
    indices: np.ndarray | None = None  # their rows among the rows given (None: not selected from the rows)
    bandwidths: np.ndarray | None = None  # the entropy bandwidths h_j (None without an entropy search)
    log_offdiag: float | None = None
    n_proposals: int = 0
    n_fallbacks: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"bandwidth": 0.0, "prototypes": 0.0})

    def set_attributes(self, est, mode: str) -> None:
        """The selection's fitted attributes of ``est`` (``kernel_mode_`` included)."""
        est.entropy_bandwidths_ = self.bandwidths
        est.prototype_indices_ = self.indices
        est.entropy_log_offdiag_ = self.log_offdiag
        est.n_pv_proposals_ = self.n_proposals
        est.n_bandwidth_fallbacks_ = self.n_fallbacks
        est.prototypes_ = self.PV
        est.n_prototypes_ = 0 if self.PV is None else self.PV.shape[0]
        est.kernel_mode_ = mode


def check_prototypes_mode(mode: str, prototypes) -> None:
    """The linear kernel takes no prototypes."""
    if mode == "linear" and prototypes is not None:
        raise ValueError("prototypes: the linear kernel uses the inputs as features and takes no prototypes; "
                         "leave prototypes=None")


def given_prototypes(prototypes, d: int) -> np.ndarray:
    """The ``prototypes`` parameter as a float64 (m, d) array, checked."""
    PV = check_array(real_array(prototypes, "prototypes"), dtype=np.float64, input_name="prototypes",
                     ensure_min_samples=0)
    if PV.shape[0] == 0:
        raise ValueError(f"prototypes is empty (shape {PV.shape}): give at least one prototype vector (a row of "
                         "d values), or prototypes=None to have them selected")
    if PV.shape[1] != d:
        raise ValueError(f"prototypes has {PV.shape[1]} columns but X has {d} features")
    return np.ascontiguousarray(PV)


def given(PV: np.ndarray | None) -> PrototypeSet:
    """Prototypes that are not selected (given, or None for the linear kernel's explicit features): the documented
    "none" values of the selection's attributes."""
    return PrototypeSet(PV)


def candidate_rows(n: int, max_candidates: int, rng: np.random.Generator) -> np.ndarray:
    """The candidate rows of the selection among n: all of them, or ``max_candidates`` drawn uniformly (sorted)."""
    return np.arange(n) if n <= max_candidates else np.sort(rng.choice(n, max_candidates, replace=False))


def select(Xc: np.ndarray, labels, rng: np.random.Generator, n: int, n_prototypes: int | str,
           method: str) -> PrototypeSet:
    """The prototype vectors among the candidate rows ``Xc`` (steps 2-3) of n rows in all; ``indices``: their rows
    in ``Xc`` (sorted). ``labels``: the classes to stratify by (None: none); ``method``: "entropy" or "random"."""
    t1 = time.perf_counter()
    d = Xc.shape[1]
    entropy = method == "entropy"
    h, n_fallbacks = (entropy_bandwidths(Xc) if Xc.shape[0] >= 2 else (np.ones(d), d)) if entropy else (None, 0)
    seconds = {"bandwidth": time.perf_counter() - t1}
    t2 = time.perf_counter()
    asked = AUTO_PROTOTYPES if n_prototypes == "auto" else int(n_prototypes)
    m = min(asked, Xc.shape[0])
    if m < asked and n > 1 and n_prototypes != "auto":
        warn(f"n_prototypes={n_prototypes} exceeds the {Xc.shape[0]} candidate rows; using m={m}", UserWarning)
    if entropy:
        sel = select_prototypes(Xc, m, labels=labels, bandwidths=h, random_state=int(rng.integers(2**62)))
        idx = np.sort(sel["idx"])
        out = PrototypeSet(None, idx, h, sel["log_offdiag"], sel["n_proposals"], n_fallbacks, seconds)
    else:
        idx = random_prototypes(Xc.shape[0], m, labels, rng)
        out = PrototypeSet(None, idx, seconds=seconds)
    seconds["prototypes"] = time.perf_counter() - t2
    out.PV = np.ascontiguousarray(Xc[idx])
    return out


def gather_rows(src: Source | DaskSource, rows: np.ndarray, n_features: int) -> np.ndarray:
    """The standardized rows ``rows`` (sorted indices into X's rows) of a source, as one C-ordered array."""
    if isinstance(src, DaskSource):
        return src.gather(rows)
    if src.in_memory is not None and rows.size == src.in_memory.shape[0]:
        X = np.asarray(src.in_memory, dtype=np.float64)
        return np.ascontiguousarray((X - src.mean) / src.scale) if src.mean is not None else np.ascontiguousarray(X)
    if src.sparse:  # the rows alone densified (a sample, the candidates), not a pass over every block
        X = dense_rows(src.array[rows], "the sampled rows of the sparse X (rows x n_features)")
        return np.ascontiguousarray((X - src.mean) / src.scale) if src.mean is not None else X
    out, r0, j = [], 0, 0
    for xb, _ in src.blocks():
        nb = xb.shape[0]
        k = np.searchsorted(rows, r0 + nb, side="left")
        if k > j:
            out.append(xb[rows[j:k] - r0])
        j, r0 = k, r0 + nb
    return np.ascontiguousarray(np.concatenate(out)) if out else np.zeros((0, n_features))
