"""FixedSizeLSSVC / FixedSizeLSSVR (paper 002: De Brabanter et al.): Nyström features on Rényi-entropy prototypes,
blockwise normal equations for million-row data, fast v-fold CV, coupled simulated annealing + simplex tuning.

Modules: ``estimators`` (the estimator pair), ``tuning`` (CSA, simplex, the gamma path), ``dask_engine`` (the sums
over Dask chunks), ``sources`` (arrays, memmaps and block streams as row sources).
"""

from svmopt.fixed_size.estimators import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.fixed_size.tuning import csa, csa_simplex, nelder_mead

__all__ = ["FixedSizeLSSVC", "FixedSizeLSSVR", "csa", "csa_simplex", "nelder_mead"]
