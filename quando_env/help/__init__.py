"""Help! (Kim Vandenbroucke): the rules engine, cards and actions, observation, config and text views.
Everything of this game lives in this folder; quando_env.help_v0 is its PettingZoo-style front."""
from .cards import ACTION_NAMES, NUM_ACTIONS, action_name
from .config import Config
from .game import VectorGame

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "Config", "VectorGame", "action_name"]
