"""Each game in the tools RL researchers already use: RLlib on Ray, OpenSpiel, Tianshou, TorchRL.

Every module here imports its library when it is imported itself, and `import quando_env` imports none of
them: install the extra you need (`pip install -c constraints.txt -e ".[rllib]"`, `openspiel`, `tianshou`,
`torchrl`; `dev` has them all). Everything is written once over the PettingZoo env or the game contract,
so it covers every game of `quando_env.game_names()`.
"""
import os
import socket

from ..checks import need, shown

CONNECT_TIMEOUT = 10.0      # seconds init_ray waits for a cluster's address to accept a connection


def ray_on_loopback() -> None:
    """Make the Ray this process starts (a local Ray, or the nodes of a test cluster) listen on loopback only.

    Ray binds a local instance to the machine's network address unless told it is a one-machine Ray (the
    switch it uses on Windows and macOS). Its workers read the switch from the environment; this process read
    it when it first imported ray, which may have been before this call."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = False


def init_ray(address: str | None = "local", num_cpus: int | None = None, timeout: float = CONNECT_TIMEOUT,
             **kwargs):
    """Connect to Ray: `"local"` (or None) starts a Ray on this machine, listening on loopback only, with
    `num_cpus` CPUs (default: all); any other address joins that cluster (`ray start --head` prints it).
    Returns what `ray.init` returns; if Ray is up in this process already, its runtime context.

    ConnectionError naming the address when no cluster answers there: an address where nothing accepts a
    connection within `timeout` seconds is refused at once (Ray itself would retry it for minutes)."""
    local = address in (None, "local")
    need(local or isinstance(address, str), f"address={shown(address)}", "local, None, or a Ray address")
    need(isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0,
         f"timeout={shown(timeout)}", "a number of seconds > 0")
    if local:
        ray_on_loopback()
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context()
    options = {"include_dashboard": False, "log_to_driver": False, **kwargs}
    if local:
        return ray.init(num_cpus=num_cpus, **options)
    try:
        _answers(address, timeout)
        return ray.init(address=address, **options)
    except (ConnectionError, ray.exceptions.RayError) as e:
        raise ConnectionError(f"no Ray cluster answered at {address}: {e}") from None


def _answers(address: str, timeout: float) -> None:
    """ConnectionError unless the host:port Ray would connect to for `address` accepts a TCP connection
    within `timeout` seconds (ray://HOST:PORT: that port; auto: the cluster Ray finds on this machine)."""
    from ray._common.network_utils import parse_address
    from ray._private import services

    if address.startswith("ray://"):
        target = address.removeprefix("ray://")
    else:
        target = services.canonicalize_bootstrap_address(address)   # what ray.init connects to (auto: found)
    parsed = parse_address(target or "")
    if parsed is None:
        raise ConnectionError(f"{target!r} is no HOST:PORT address")
    host, port = parsed
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as e:
        raise ConnectionError(f"nothing accepted a connection at {host}:{port} ({e}; waited at most {timeout:g} s): "
                              "start a cluster with `ray start --head` and give the address it prints") from None
