"""What a fitted RobustSVC says about a degenerate model: the cause named when a binary problem's LP (23) gives every
training point one class (u = 0, or a threshold beyond the scores)."""

from __future__ import annotations

from typing import Any

import numpy as np

from svmopt._shared.config import warn
from svmopt._shared.validation import shown
from svmopt.robust.fit import BinaryFit


def warn_degenerate(est: Any, fits: list[BinaryFit], problems: list[Any], deltas: list[np.ndarray],
                    absmax: float) -> None:
    """A ``UserWarning`` naming the cause when a binary problem's model of the fitted RobustSVC ``est`` gives every
    training point one class
    (``absmax``: the largest |x| of the training data, named when the kernel's values scale with it)."""
    for fit, label, delta in zip(fits, problems, deltas, strict=True):
        side = fit.scores - fit.b > 0
        if side.all() == side.any():  # one class for every training point
            which = "" if len(problems) == 1 else f" (problem {label!r} vs rest)"
            if not np.any(fit.u != 0.0):
                if np.any(delta > 0):  # a robust term that is not zero
                    cause = (f"the uncertainty set swallows the margin: with p={shown(est.p)} the robust term "
                             f"delta_i * sum_j r_j |u_j| outweighs every gain of u != 0; lower rho (now "
                             f"{shown(est.rho_)}) or eta, or raise nu (now {fit.nu:g})")
                elif est.kernel_.name != "rbf":  # the kernel values, and so the LP's coefficients, scale with X
                    cause = (f"the {est.kernel_.name} kernel's values depend on the scale of X, whose entries "
                             f"are at most {absmax:.3g} in magnitude, and at that scale nu={fit.nu:g} makes the "
                             "slacks cheaper than any coefficient; rescale X (e.g. StandardScaler) or raise nu")
                else:
                    cause = (f"nu={fit.nu:g} makes the slacks cheaper than any coefficient; raise nu (or widen "
                             "the grid)")
                what = "the LP's solution is u = 0 (no support vectors)"
            else:
                what = "the surface has support but the threshold b puts every training point on one side"
                cause = "the training count was lowest with a constant prediction; check the kernel width alpha"
            other = est.classes_[0] if len(problems) == 1 else "rest"
            warn(f"RobustSVC: the fitted model predicts {shown(label if side.all() else other)} for every training "
                 f"point{which}: {what}; {cause}", UserWarning)
