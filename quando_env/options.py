"""A game's options: its config dataclass checks each in `__post_init__` with `option` (converted to a plain Python
int, bool or str and range-checked before any arithmetic), and `make_config` builds one from keyword options. The
options every game shares (episode, reward, max_steps) and the bounds that keep options inside the state records'
int32 counters live here too.
"""
from dataclasses import fields

from .checks import as_choice, as_int

EPISODES = ("game", "round")
REWARDS = ("points", "win")
EPISODE_OPTIONS = ("episode", "reward", "max_steps")   # every game's; they shape an episode, not the rules of play
# Bounds that keep every option's arithmetic inside the state records' int32 counters and totals.
MAX_STEPS = 10**9         # max_steps and other decision or turn limits
MAX_TARGET = 10**9        # a target total (a round adds far less than 2**31 - MAX_TARGET)


def make_config(config_class, **kwargs):
    """A validated config from keyword options, with a clear error for an unknown option."""
    allowed = {f.name for f in fields(config_class)}
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; the options are {sorted(allowed)}")
    return config_class(**kwargs)


def option(cfg, name: str, check, *args):
    """Option `name` of a frozen config converted by `check` (checks.as_int, as_bool, as_choice: it raises a
    ValueError naming the option) and stored back as a plain Python value, which is returned. A config's
    `__post_init__` converts every option this way before any arithmetic, so a numpy integer never wraps
    around in its own narrow dtype and a record's options are JSON-ready."""
    value = check(getattr(cfg, name), name, *args)
    object.__setattr__(cfg, name, value)
    return value


def check_episode_options(cfg) -> None:
    """The options every game shares: episode, reward, max_steps."""
    option(cfg, "episode", as_choice, EPISODES)
    option(cfg, "reward", as_choice, REWARDS)
    option(cfg, "max_steps", as_int, 1, MAX_STEPS)
