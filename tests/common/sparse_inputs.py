"""Sparse inputs of the families' sparse tests: the four scipy formats, and a dense X as one of them with explicit
zeros stored (one in an empty column), so that a reader of the stored values must not count them as data."""

import numpy as np
import scipy.sparse as sp

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array]


def with_explicit_zeros(X: np.ndarray, fmt, empty_col: int = 3):
    """``fmt`` (CSR or CSC, matrix or array) of X with two explicit zeros stored, in rows 0 and 1 of ``empty_col``."""
    S = sp.coo_matrix(X)
    rows = np.concatenate([S.row, [0, 1]])
    cols = np.concatenate([S.col, [empty_col, empty_col]])
    vals = np.concatenate([S.data, [0.0, 0.0]])
    out = fmt(sp.coo_matrix((vals, (rows, cols)), shape=X.shape).asformat("csr" if "csr" in fmt.__name__ else "csc"))
    assert out.nnz > np.count_nonzero(X)
    return out
