"""quando_env: the card game Quando as a vectorized engine with PettingZoo and Gymnasium environments.

Importing it registers the Gymnasium id "Quando-v0" (gymnasium.make / gymnasium.make_vec).
"""
from .aec import env, raw_env
from .cards import ACTION_NAMES, NUM_ACTIONS, action_name
from .config import Config
from .training_envs import make_vec_env, register_envs
from .vector import VectorGame

register_envs()

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "Config", "VectorGame", "action_name", "env", "make_vec_env", "raw_env"]
