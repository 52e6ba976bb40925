"""Paper 003's core: the coupled swarms of eq. (7) (Section 3.2, Table 1), the single swarm and the counter-based
generator (cpp/include/svmopt/pso.hpp). Array policy: see :mod:`svmopt._core.kernels`."""

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from svmopt._core._enum import PybindEnum

class RandScope(PybindEnum):
    particle: ClassVar[RandScope]
    iteration: ClassVar[RandScope]
    __members__: ClassVar[dict[str, RandScope]]

class Sync(PybindEnum):
    jacobi: ClassVar[Sync]
    gauss_seidel: ClassVar[Sync]
    __members__: ClassVar[dict[str, Sync]]

class Boundary(PybindEnum):
    revert: ClassVar[Boundary]
    project: ClassVar[Boundary]
    __members__: ClassVar[dict[str, Boundary]]

class Fitness(PybindEnum):
    distance: ClassVar[Fitness]
    linear: ClassVar[Fitness]
    __members__: ClassVar[dict[str, Fitness]]

class SwarmTrace:
    @property
    def gbest(self) -> NDArray[np.float64]: ...
    @property
    def gbest_fitness(self) -> float: ...
    @property
    def fitness_history(self) -> NDArray[np.float64]:
        """(n_iter + 1,): the global best's fitness after j iterations."""
    @property
    def gbest_history(self) -> NDArray[np.float64]:
        """(n_iter + 1, n)."""
    @property
    def n_reverted(self) -> int: ...
    @property
    def n_iter(self) -> int:
        """Iterations run (max_iter unless time_limit stopped the run)."""
    @property
    def timed_out(self) -> bool:
        """Whether time_limit stopped the run before max_iter."""
    @property
    def positions(self) -> NDArray[np.float64] | None:
        """(n_iter + 1, n_particles, n) with record=True, else None; likewise velocities and pbests."""
    @property
    def velocities(self) -> NDArray[np.float64] | None: ...
    @property
    def pbests(self) -> NDArray[np.float64] | None: ...

class TwoSwarmResult:
    @property
    def x(self) -> NDArray[np.float64]: ...
    @property
    def y(self) -> NDArray[np.float64]: ...
    @property
    def distance(self) -> float: ...
    @property
    def distance_history(self) -> NDArray[np.float64]: ...
    @property
    def n_iter(self) -> int:
        """Iterations run (max_iter unless time_limit stopped the run)."""
    @property
    def timed_out(self) -> bool:
        """Whether time_limit stopped the run before max_iter."""
    @property
    def swarm1(self) -> SwarmTrace: ...
    @property
    def swarm2(self) -> SwarmTrace: ...

def two_swarm(
    mu1: NDArray[np.float64],
    P1: NDArray[np.float64],
    mu2: NDArray[np.float64],
    P2: NDArray[np.float64],
    n_particles: int = 10,
    max_iter: int = 200,
    w: float = 0.05,
    c1: float = 0.05,
    c2: float = 0.05,
    c3: float = 0.05,
    c4: float = 0.2,
    s_init: float = 0.1,
    seed: int = 0,
    rand_scope: RandScope = RandScope.particle,
    sync: Sync = Sync.jacobi,
    final_eval: bool = True,
    record: bool = False,
    n_threads: int = 0,
    boundary: Boundary = Boundary.revert,
    time_limit: float | None = None,
) -> TwoSwarmResult:
    """Two coupled swarms on the closest points of E(mu1, P1) and E(mu2, P2). ``time_limit`` (seconds >= 0, None:
    none) is checked between iterations: a run it stops after j iterations equals the run with max_iter = j."""

def single_swarm(
    mu: NDArray[np.float64],
    P: NDArray[np.float64],
    a: NDArray[np.float64],
    fitness: Fitness = Fitness.distance,
    n_particles: int = 10,
    max_iter: int = 50,
    w: float = 0.05,
    c1: float = 0.05,
    c2: float = 0.05,
    c3: float = 0.05,
    c4: float = 0.2,
    s_init: float = 1.0,
    seed: int = 0,
    rand_scope: RandScope = RandScope.particle,
    final_eval: bool = True,
    record: bool = False,
    n_threads: int = 0,
    boundary: Boundary = Boundary.revert,
    time_limit: float | None = None,
) -> SwarmTrace:
    """One swarm in E(mu, P) with a fixed target a: fitness ``distance`` = ||a - x|| (problem (6)) or ``linear`` =
    -a^T x (the LP (11)-(12))."""

def draws(
    seed: int, swarm: int, iteration: int, n_particles: int, n: int, rand_scope: RandScope = RandScope.particle
) -> NDArray[np.float64]:
    """The random numbers of every particle of a swarm in an iteration: rows [r1, r2, r3, r4 (n)]."""

def uniform(seed: int, swarm: int, particle: int, iteration: int, slot: int) -> float:
    """The counter-based U[0, 1) generator of the swarms."""

def particle_step(
    x: NDArray[np.float64],
    v: NDArray[np.float64],
    pb: NDArray[np.float64],
    gb: NDArray[np.float64],
    a: NDArray[np.float64],
    r1: float,
    r2: float,
    r3: float,
    r4: NDArray[np.float64],
    mu: NDArray[np.float64],
    P: NDArray[np.float64],
    w: float = 0.05,
    c1: float = 0.05,
    c2: float = 0.05,
    c3: float = 0.05,
    c4: float = 0.2,
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """One update (7) of one particle with the revert rule: (x_new, v_new, accepted)."""
