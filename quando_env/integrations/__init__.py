"""Each game in the tools RL researchers already use: RLlib on Ray, OpenSpiel, Tianshou, TorchRL.

Every module here imports its library when it is imported itself, and `import quando_env` imports none of
them: install the extra you need (`pip install -c constraints.txt -e ".[rllib]"`, `openspiel`, `tianshou`,
`torchrl`; `dev` has them all). Everything is written once over the PettingZoo env or the game contract,
so it covers every game of `quando_env.game_names()`.
"""
import os


def init_ray(address: str | None = "local", num_cpus: int | None = None, **kwargs):
    """Connect to Ray: `"local"` (or None) starts a Ray on this machine, listening on loopback only, with
    `num_cpus` CPUs (default: all); any other address joins that cluster (`ray start --head` prints it).
    Returns what `ray.init` returns."""
    local = address in (None, "local")
    if local:
        # Ray binds a local instance to the machine's network address unless told it is a one-machine
        # Ray (the switch it uses on Windows and macOS). Its workers read the switch from the environment;
        # this process read it when it first imported ray, which may have been before this call.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context()
    if local:
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
    options = {"include_dashboard": False, "log_to_driver": False, **kwargs}
    if local:
        return ray.init(num_cpus=num_cpus, **options)
    return ray.init(address=address, **options)
