"""The decision rules of :class:`svmopt.EllipsoidPSOClassifier` (the paper does not say how it combines its binary
hyperplanes, Section 4.2): from the scores ``z_k = coef_[k] . x + intercept_[k]`` of the binary models to the
decision function and the predicted classes.

* two classes: ``-z`` (scikit-learn's convention: positive means ``classes_[1]``); ``z >= 0`` is the pair's first
  class, ``classes_[0]``, so ``classes_[1]`` is predicted iff ``-z > 0``;
* one-vs-one: majority vote (``z_k >= 0`` votes for the pair's first class), ties broken by the sum of normalized
  margins scaled into (-1/3, 1/3), then by the smaller class index (the first largest score);
* one-vs-rest: the normalized margins, the first largest one.

Model k's normalized margin is ``z_k max_j ||w_j|| / ||w_k||`` (:func:`relative_norms`): a distance in units of
``1 / max_j ||w_j||``, independent of the scale of X.
"""

from __future__ import annotations

import numpy as np

from svmopt._shared.multiclass import ovo_scores
from svmopt.ellipsoid.projection import relative_norms


def decision_values(Z: np.ndarray, coef: np.ndarray, pairs: list[tuple[int, int]], n_classes: int,
                    multiclass: str) -> np.ndarray:
    """The decision function from the binary scores ``Z`` (n_samples, n_models): (n_samples,) for two classes,
    else (n_samples, n_classes) whose first largest entry per row is the predicted class."""
    if n_classes == 2:
        return -Z[:, 0]
    Zn = Z / relative_norms(coef)
    if multiclass == "ovr":
        return Zn
    return ovo_scores(Z, pairs, n_classes, margins=Zn)


def predicted_classes(D: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The labels of the decision values ``D`` of :func:`decision_values`: ``classes[1]`` iff ``D > 0`` for two
    classes, the first largest entry per row otherwise."""
    if classes.size == 2:
        return classes[(D > 0).astype(int)]
    return classes[np.argmax(D, axis=1)]
