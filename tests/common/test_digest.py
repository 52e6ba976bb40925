"""Behaviour pinned across refactorings: every estimator's digest equals the committed one (see digest_cases)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.common.digest_cases import CASES, DIGEST, ROUND, digest_of, stack

EXPECTED = json.loads(DIGEST.read_text())
STACK = EXPECTED.pop("_stack")
#: On the numerical stack that wrote the digest every value must agree to ROUND; on another one (the dependency
#: floor in CI) the iterative solvers of SciPy and HiGHS may stop at other roundings, so the values agree to 1e-6.
TOLERANCE = ROUND if stack() == STACK else 1e-6


def test_every_case_is_committed():
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_digest_unchanged(name):
    got, want = digest_of(name), EXPECTED[name]
    assert sorted(got) == sorted(want), f"{name}: the fitted attributes changed"
    for key, values in want.items():
        a, b = np.asarray(got[key], dtype=float), np.asarray(values, dtype=float)
        assert a.shape == b.shape, f"{name}.{key}: shape {a.shape} != {b.shape}"
        tol = 2 * TOLERANCE * np.maximum(1.0, np.abs(b))
        bad = ~((np.abs(a - b) <= tol) | (np.isnan(a) & np.isnan(b)) | (a == b))
        assert not bad.any(), f"{name}.{key}: {int(bad.sum())} values moved, e.g. {a[bad][:3]} != {b[bad][:3]}"
