"""RobustSVC (paper 000: Maggioni & Spinelli): the kernel L1-SVM as an LP, shifted surfaces, the misclassification
line search and the robust counterpart under l1/l2/l-inf uncertainty; the paper's holdout protocol.

Modules: ``estimator`` (the scikit-learn estimator), ``data`` (its training data checked: arrays and Dask arrays),
``plan`` (its parameters resolved for a fit: candidates, model, solver, landmarks), ``select`` (cross-validated
selection of width, rho and nu), ``solve`` (the final fit of every binary problem), ``fit`` (one binary problem,
paper LP or reduced model), ``model`` (robust terms and threshold intervals), ``ipm`` (the reduced model's interior
point), ``reduced`` (its cutting planes and direct LP), ``protocol`` (Sec. 4's holdout splits).
"""

from svmopt.robust.estimator import RobustSVC
from svmopt.robust.protocol import holdout_test_counts, majority_class_error, split_seed, stratified_holdout_indices

__all__ = ["RobustSVC", "holdout_test_counts", "majority_class_error", "split_seed", "stratified_holdout_indices"]
