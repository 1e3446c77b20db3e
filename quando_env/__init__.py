"""quando_env: the card games Quando (and its companions) as vectorized engines with PettingZoo and
Gymnasium environments.

`quando_env.env()`, `raw_env`, `VectorGame`, `make_vec_env` and the action table are Quando's (as in
`quando_env.quando_v0`); `make(name, **config)` builds any game's AEC env and `game_names()` lists them.
Importing the package registers every game's Gymnasium id ("Quando-v0", ...), and sets OMP_WAIT_POLICY=PASSIVE
unless it is set already (docs/speed.md): numba's threads and torch both run on OpenMP, whose idle threads
otherwise spin between parallel kernels and starve torch and other processes (a learner ran 8x slower). It acts
only on an OpenMP runtime not loaded yet: import quando_env before torch, or set the variable yourself.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .adapters import record
from .adapters.training_envs import make_vec_env, register_envs
from .quando import ACTION_NAMES, NUM_ACTIONS, Config, action_name
from .quando_v0 import VectorGame, env, raw_env
from .registry import game_names, make

register_envs()

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "Config", "VectorGame", "action_name", "env", "game_names", "make",
           "make_vec_env", "raw_env", "record"]
