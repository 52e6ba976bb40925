"""EllipsoidPSOClassifier (paper 003: Kumar & Ramakrishnan): class ellipsoids, their closest points by two coupled
particle swarms (or an exact solver), the separating hyperplane through the midpoint.

Modules: ``estimator`` (the scikit-learn estimator and its selection), ``geometry`` (ellipsoids, projections, the
exact closest points and certificates), ``swarms`` (the coupled and single swarms over the core).
"""

from svmopt.ellipsoid.estimator import EllipsoidPSOClassifier
from svmopt.ellipsoid.geometry import ClosestPoints, ellipsoid_closest_points
from svmopt.ellipsoid.swarms import pso_closest_points

__all__ = ["ClosestPoints", "EllipsoidPSOClassifier", "ellipsoid_closest_points", "pso_closest_points"]
