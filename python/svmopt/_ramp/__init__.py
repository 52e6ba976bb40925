"""Models, big-M computation (Algorithm 1) and Dynamic Adaptive Kernel Search (Algorithm 2) of paper 001.

Modules: :mod:`.model` (objective, solutions, (SVM-l1) LP, model matrix), :mod:`.bounds` (Algorithm 1),
:mod:`.solve` (MILP solves) and :mod:`.daks` (Algorithm 2); this package re-exports their names.

Baldomero-Naranjo, Martinez-Merino, Rodriguez-Chia, "A robust SVM-based approach with feature selection and
outliers detection for classification problems". Everything here works on labels ``y`` in {-1, +1} (float) and a
dense float64 ``X``; the estimators in :mod:`svmopt.ramp_svc` do the validation and label coding.

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
``passModel`` call through :class:`svmopt.highs.HighsModel`; the bounding LPs of Algorithm 1 reuse one model and only
change costs, bounds and single z coefficients (Gauss-Seidel update of M_i).
"""

from svmopt._ramp.bounds import (  # noqa: F401
    _DOMINATED_M,
    BigM,
    _BoundingLP,
    _fix_dominated,
    _tighten,
    algorithm1,
)
from svmopt._ramp.daks import (  # noqa: F401
    _DAKS,
    _ZH_TOL,
    DAKSParams,
    DAKSResult,
    cover_features,
    daks,
    grow_size,
    kernel_update,
    next_bucket,
    reduced_cost_order,
    zh_initial,
    zh_phase2_update,
    zh_table1_update,
)
from svmopt._ramp.model import (  # noqa: F401
    _ZERO_M,
    INF,
    LP_OPTIONS,
    MIP_OPTIONS,
    W_TOL,
    RLSolution,
    _Built,
    _Layout,
    build_rlfs,
    class_diameters,
    hinge_objective,
    initial_solution,
    ramp,
    rlfs_objective,
    solve_svm_l1,
    solve_svm_l1_within,
)
from svmopt._ramp.solve import (  # noqa: F401
    MilpResult,
    MipOutcome,
    _decode,
    polish,
    run_mip,
    should_interrupt,
    solve_fs_svm,
    solve_rlfs_mip,
)
from svmopt.highs import merge_options  # noqa: F401
