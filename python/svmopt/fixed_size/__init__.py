"""FixedSizeLSSVC / FixedSizeLSSVR (paper 002: De Brabanter et al.): Nyström features on Rényi-entropy prototypes,
blockwise normal equations for million-row data, fast v-fold CV, coupled simulated annealing + simplex tuning.

Modules: ``estimators`` (the estimator pair), ``base`` (their shared parameters, ``fit`` and predictor),
``selection`` (the prototype vectors), ``search`` (each problem's tuning and final fit), ``stream`` (the sums of
``partial_fit``), ``cv_engine`` (the fast v-fold CV and its caches), ``tuning`` (CSA, simplex, the gamma path),
``nystrom`` (the feature maps and the fold models' predictions), ``dask_engine`` (the sums over Dask chunks),
``sources`` (arrays, memmaps and block streams as row sources), ``calibrated`` (what ``probability=True`` needs of a
fit, and its folds' parameters).
"""

from svmopt.fixed_size.estimators import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.fixed_size.tuning import csa, csa_simplex, nelder_mead

__all__ = ["FixedSizeLSSVC", "FixedSizeLSSVR", "csa", "csa_simplex", "nelder_mead"]
