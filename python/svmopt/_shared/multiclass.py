"""One-vs-one decision scores shared by the multi-class estimators: the vote of each pair's binary model plus its
squashed summed margins, so that the argmax is the majority vote and the margins break its ties (the fixed-size
LS-SVM's one-vs-one coding, paper 002 Sec. 4, and the ellipsoids' pairs, paper 003 Sec. 4.3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ovo_scores(F: np.ndarray, pairs: Sequence[tuple[int, int]], n_classes: int,
               margins: np.ndarray | None = None) -> np.ndarray:
    """Scores (n, n_classes) of the pairwise decision values ``F`` (n, len(pairs)): model k of the pair ``(a, b)``
    votes for ``a`` iff ``F[:, k] >= 0`` (else for ``b``) and adds ``margins[:, k]`` (``F`` when None) to ``a``'s
    summed margin and subtracts it from ``b``'s; the score is ``votes + margin / (3 (|margin| + 1))``, the second
    term below 1/3 in magnitude, so that it only orders classes of equal votes."""
    margins = F if margins is None else margins
    n = F.shape[0]
    votes = np.zeros((n, n_classes))
    margin = np.zeros((n, n_classes))
    for k, (a, b) in enumerate(pairs):
        pos = F[:, k] >= 0
        votes[:, a] += pos
        votes[:, b] += ~pos
        margin[:, a] += margins[:, k]
        margin[:, b] -= margins[:, k]
    return votes + margin / (3.0 * (np.abs(margin) + 1.0))
