import os
import sys

# tests/ holds the plain-Python reference implementations, imported by name; examples/ the tiny game (tiny_game).
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

# Under pytest-xdist every worker is a process of its own: one thread each (numba, and torch through
# OpenMP) keeps `pytest -n 2` at two busy cores. Tests that compare thread counts raise it themselves.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numba

    numba.set_num_threads(1)


import pytest  # noqa: E402


def start_local_ray():
    from quando_env.integrations import init_ray

    init_ray("local", num_cpus=2)


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray (2 CPUs, loopback only) for the whole test session. Tests that use it are marked
    `@pytest.mark.xdist_group("ray")` so they run in one worker (pyproject's addopts: --dist loadgroup)."""
    import ray

    start_local_ray()
    yield ray
    ray.shutdown()


@pytest.fixture
def ray_two_nodes():
    """A Ray cluster of two nodes on this machine (loopback only, 1 CPU each), the driver connected to it.
    A process holds one Ray: the session's local Ray (ray_local) is shut down first and started again after,
    so tests using this run in the same xdist group ("ray") and never beside the shared one."""
    import ray
    from ray.cluster_utils import Cluster

    from quando_env.integrations import init_ray, ray_on_loopback

    was_up = ray.is_initialized()
    ray.shutdown()
    ray_on_loopback()
    node = {"num_cpus": 1, "node_ip_address": "127.0.0.1"}
    cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    try:
        cluster.add_node(**node)
        init_ray(cluster.address)
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
        if was_up:
            start_local_ray()
