"""quando_env: the card game Quando as a vectorized engine with PettingZoo and Gymnasium environments."""
from .cards import ACTION_NAMES, NUM_ACTIONS, action_name
from .config import Config
from .vector import VectorGame

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "Config", "VectorGame", "action_name"]
from .aec import env, raw_env

__all__ += ["env", "raw_env"]
from .training_envs import make_vec_env, register_envs

register_envs()
__all__ += ["make_vec_env"]
