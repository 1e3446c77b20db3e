"""Entry points of the training environments: each game's Gymnasium id ("Quando-v0", ...: single env and
vector entry point) and make_vec_env, the SB3 VecEnv (stable-baselines3 is imported only when it is called)."""
import gymnasium

from ..extras import needs
from ..registry import game_names, gym_id, register_pettingzoo


def register_envs() -> None:
    """Register every game's Gymnasium id and PettingZoo id (done when quando_env is imported).

    The ids default to illegal_action="random", as Gymnasium's API has it (every action of the action space is
    accepted, and Gymnasium's check_env steps an action drawn before a new deal): an illegal action is replaced by a
    random legal one and flagged in info["illegal_action"]; illegal_action="raise" refuses it (GameEnv's default).
    """
    register_pettingzoo()
    for name in game_names():
        if gym_id(name) not in gymnasium.registry:
            gymnasium.register(id=gym_id(name), entry_point="quando_env.adapters.gym_env:GameEnv",
                               vector_entry_point="quando_env.adapters.gym_vector_env:GameVectorEnv",
                               kwargs={"game": name, "illegal_action": "random"})


def make_vec_env(num_envs: int = 1, opponents="random", seat="random", seed: int | None = None,
                 illegal_action: str = "raise", game="quando", action_features: bool = False, **rules):
    """An SB3 VecEnv of `num_envs` games in one batched engine (see sb3_vec_env.GameVecEnv). opponents: "random",
    another agent name of the command lines ("heuristic", "my_agents.py:MyAgent", ...), agent objects, or a
    pool of these (see opponents.py). action_features: True makes the observations a dict of "observation" and
    "action_features" (each env's legal-move features, VectorGame.action_features).

    With a seed, env i's first reset plays the game the single env reset with seed + i plays; later episodes
    go on with each game's own random streams. `MaskablePPO("MlpPolicy", make_vec_env(...))` trains as is.
    """
    with needs("train", "make_vec_env (an SB3 VecEnv)"):
        from .sb3_vec_env import GameVecEnv

    venv = GameVecEnv(num_envs, opponents=opponents, seat=seat, illegal_action=illegal_action, game=game,
                      action_features=action_features, **rules)
    if seed is not None:
        venv.seed(seed)
    return venv
