import os
import sys

# tests/ holds the plain-Python reference implementations, imported by name.
sys.path.insert(0, os.path.dirname(__file__))

# Under pytest-xdist every worker is a process of its own: one thread each (numba, and torch through
# OpenMP) keeps `pytest -n 2` at two busy cores. Tests that compare thread counts raise it themselves.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numba

    numba.set_num_threads(1)


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray (2 CPUs, loopback only) for the whole test session. Tests that use it are marked
    `@pytest.mark.xdist_group("ray")` so they run in one worker (pyproject's addopts: --dist loadgroup)."""
    import ray

    from quando_env.integrations import init_ray

    init_ray("local", num_cpus=2)
    yield ray
    ray.shutdown()
