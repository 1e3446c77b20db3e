"""quando_env: the card games Quando (and its companions) as vectorized engines with PettingZoo and
Gymnasium environments.

`quando_env.env()`, `raw_env`, `VectorGame`, `make_vec_env` and the action table are Quando's (as in
`quando_env.quando_v0`); `make(name, **config)` builds any game's AEC env and `game_names()` lists them.
Importing the package registers every game's Gymnasium id ("Quando-v0", ...) and chooses how numba's threads
live beside torch's (quando_env.threads, docs/speed.md), whatever was imported first.
"""
__version__ = "0.1.0"

from .threads import choose_layer

THREADING = choose_layer()

from .adapters import record
from .adapters.training_envs import make_vec_env, register_envs
from .quando import ACTION_NAMES, NUM_ACTIONS, Config, action_name
from .quando_v0 import VectorGame, env, raw_env
from .registry import game_names, make

register_envs()

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "Config", "VectorGame", "action_name", "env", "game_names", "make",
           "make_vec_env", "raw_env", "record"]
