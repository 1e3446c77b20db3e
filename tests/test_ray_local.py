"""init_ray("local") keeps a local Ray on loopback, even when ray was imported before (the ray_local fixture
imports it first), so tests and local runs never listen on the machine's network address."""
import pytest

pytestmark = pytest.mark.xdist_group("ray")


def test_local_ray_listens_on_loopback_only(ray_local):
    assert ray_local.get_runtime_context().gcs_address.startswith("127.0.0.1:")
    nodes = ray_local.nodes()
    assert nodes and {node["NodeManagerAddress"] for node in nodes} == {"127.0.0.1"}
