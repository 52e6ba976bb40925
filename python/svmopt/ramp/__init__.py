"""Models, big-M computation (Algorithm 1) and Dynamic Adaptive Kernel Search (Algorithm 2) of paper 001.

Modules: ``ramp_loss`` (RampLossSVC and the ramp-loss objective), ``estimators`` (the shared linear-classifier base,
L1SVC, FeatureBudgetSVC), ``selection`` (RampLossSVC's ``C="auto"``), ``model`` (objective, solutions, (SVM-l1) LP,
model matrix), ``bounds`` (Algorithm 1), ``solve`` (MILP solves), ``daks`` (Algorithm 2), ``cccp`` (the
concave-convex procedure at scale), ``feature_selection`` (the paper's comparison pipelines).

Baldomero-Naranjo, Martinez-Merino, Rodriguez-Chia, "A robust SVM-based approach with feature selection and
outliers detection for classification problems". Everything here works on labels ``y`` in {-1, +1} (float) and a
dense float64 ``X``; the estimators (:mod:`svmopt.ramp.ramp_loss`, :mod:`svmopt.ramp.estimators`) do the validation
and label coding.

Column layout of every (RL-FS-M) model built here (``m`` = number of feature columns, ``n`` = points)::

    [ wp (m) | wm (m) | b | xi (n) | z (n) | v (m) ]

Row layout::

    (13) n rows   y_i (sum_k (wp_k - wm_k) x_ik + b) + xi_i + M_i z_i >= 1
    (15) n rows   xi_i + 2 z_i <= 2
    (10) m rows   wp_k - u v_k <= 0
    (11) m rows   wm_k - l v_k <= 0          (u = l, as in the paper: UB, then UB_w)
    (6)  1 row    sum_k v_k <= B
    (21) m rows   wp_k + wm_k <= UB_w
    (18)/(24) 1   sum (wp + wm) + C sum xi + 2C sum z <= UB   (objective cut-off)
    (25)/(26) 1   sum_{k in cover} v_k >= 1

Matrices are assembled once per model with vectorised numpy (COO -> CSC through scipy) and handed to HiGHS in one
``passModel`` call through :class:`svmopt._shared.highs.HighsModel`; the bounding LPs of Algorithm 1 reuse one model
and only change costs, bounds and single z coefficients (Gauss-Seidel update of M_i).
"""

from svmopt.ramp.estimators import L1SVC, FeatureBudgetSVC
from svmopt.ramp.feature_selection import fisher_score, make_fisher_svm, make_rfe_svm, n_selected_features, rfe_step
from svmopt.ramp.ramp_loss import RampLossSVC, ramp_loss_objective

__all__ = ["L1SVC", "FeatureBudgetSVC", "RampLossSVC", "fisher_score", "make_fisher_svm", "make_rfe_svm",
           "n_selected_features", "ramp_loss_objective", "rfe_step"]
