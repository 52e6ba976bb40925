"""The BLAS / LAPACK the fixed-size core's dense products and factorizations run on (cpp/include/svmopt/blas.hpp).
Chosen by :func:`svmopt._core.use_blas`, or on the first call that needs one (``SVMOPT_BLAS``)."""

def set_lp64(syrk: object, gemm: object, potrf: object = None, syevd: object = None) -> None:
    """Install Fortran dsyrk / dgemm / dpotrf / dsyevd given as the PyCapsules of ``scipy.linalg.cython_blas`` /
    ``cython_lapack`` (32-bit integers; each capsule's signature is checked)."""

def set_ilp64(syrk: int, gemm: int, potrf: int, syevd: int = 0) -> None:
    """Install the addresses of Fortran dsyrk / dgemm / dpotrf / dsyevd with 64-bit integer arguments (the caller
    vouches for the signatures; 0 leaves that routine on Eigen)."""

def clear() -> None:
    """Run on Eigen's kernels (a choice: no BLAS is looked for on first use after this)."""

def configured() -> bool:
    """Whether a choice was made (by the calls above, or on first use)."""

def available() -> bool:
    """Whether dsyrk and dgemm are installed."""

def potrf_available() -> bool: ...
def syevd_available() -> bool: ...
def interface() -> str:
    """``"lp64"``, ``"ilp64"``, or ``""`` when none is installed."""
