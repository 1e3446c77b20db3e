"""Entry points of the training environments: the Gymnasium id "Quando-v0" (single env and vector entry
point) and make_vec_env, the SB3 VecEnv (stable-baselines3 is imported only when it is called)."""
import gymnasium

ENV_ID = "Quando-v0"


def register_envs() -> None:
    """Register Quando-v0 with Gymnasium (done when quando_env is imported)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="quando_env.gym_env:QuandoEnv",
                           vector_entry_point="quando_env.gym_vector_env:QuandoVectorEnv")


def make_vec_env(num_envs: int = 1, opponents="random", seat="random", seed: int | None = None,
                 illegal_action: str = "raise", **rules):
    """An SB3 VecEnv of `num_envs` Quando-v0 games in one batched engine (see sb3_vec_env.QuandoVecEnv).

    With a seed, env i's first reset plays the game Quando-v0 reset with seed + i plays; later episodes
    go on with each game's own random streams. `MaskablePPO("MlpPolicy", make_vec_env(...))` trains as is.
    """
    from .sb3_vec_env import QuandoVecEnv

    venv = QuandoVecEnv(num_envs, opponents=opponents, seat=seat, illegal_action=illegal_action, **rules)
    if seed is not None:
        venv.seed(seed)
    return venv
