"""svmopt: optimization-model support vector machines over a C++ core.

Four papers, one library:

* :class:`RobustSVC` -- robust nonlinear L1-SVM as an LP (Maggioni & Spinelli).
* :class:`RampLossSVC` -- ramp-loss SVM with a feature budget as a MILP (Baldomero-Naranjo et al.).
* :class:`FixedSizeLSSVC` / :class:`FixedSizeLSSVR` -- optimized fixed-size LS-SVM (De Brabanter et al.).
* :class:`EllipsoidPSOClassifier` -- class ellipsoids and coupled particle swarms (Kumar & Ramakrishnan).

The shared pieces live here from the start: :class:`Kernel` (the kernel description every model uses),
:mod:`svmopt.datasets` (bundled and on-disk benchmark data) and the error types.
"""

from importlib.metadata import version as _version

from svmopt import _core
from svmopt._shared.config import get_memory_budget, set_memory_budget
from svmopt.ellipsoid import EllipsoidPSOClassifier, pso_closest_points
from svmopt.exceptions import MemoryBudgetError, SolverError
from svmopt.fixed_size import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.kernels import KERNEL_NAMES, Kernel
from svmopt.ramp import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt.robust import RobustSVC

__version__ = _version("svmopt")  # the one version string is pyproject.toml's

__all__ = [
    "KERNEL_NAMES",
    "L1SVC",
    "EllipsoidPSOClassifier",
    "FeatureBudgetSVC",
    "FixedSizeLSSVC",
    "FixedSizeLSSVR",
    "Kernel",
    "MemoryBudgetError",
    "RampLossSVC",
    "RobustSVC",
    "SolverError",
    "__version__",
    "_core",
    "get_memory_budget",
    "pso_closest_points",
    "set_memory_budget",
]
