"""EllipsoidPSOClassifier (paper 003: Kumar & Ramakrishnan): class ellipsoids, their closest points by two coupled
particle swarms (or an exact solver), the separating hyperplane through the midpoint.

Modules: ``estimator`` (the scikit-learn estimator), ``binary`` (the model of one binary problem: working space,
class ellipsoids, closest points, hyperplane), ``decision`` (the decision function and the multiclass vote),
``selection`` (its per-problem choice of the radius ratio and the whitening shrinkage, and the folds it counts errors
on), ``projection`` (the whitening and the 2-D projection of Section 4.3.5), ``geometry`` (ellipsoids, projections
onto them, the exact closest points and certificates), ``swarms`` (the coupled and single swarms over the core).
"""

from svmopt.ellipsoid.estimator import EllipsoidPSOClassifier
from svmopt.ellipsoid.geometry import ClosestPoints, ellipsoid_closest_points
from svmopt.ellipsoid.swarms import pso_closest_points

__all__ = ["ClosestPoints", "EllipsoidPSOClassifier", "ellipsoid_closest_points", "pso_closest_points"]
