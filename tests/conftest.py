"""Shared pytest configuration: deterministic hypothesis profile for CI."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,  # fixed example sequence: CI is deterministic
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("SVMOPT_HYPOTHESIS_PROFILE", "ci"))
