"""A game's options, each declared once as a `setting` of its config (an `Options` dataclass): its default, its check
and range (every option converted to a plain Python int, bool or str and range-checked before any arithmetic, by
`option`), and where the numba kernels and the JAX rules read it. `make_config` builds a config from keyword options.
The options every game shares (episode, reward, max_steps) and the bounds that keep options inside the state records'
int32 counters live here too.
"""
from dataclasses import Field, asdict, field, fields

import numpy as np

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


def setting(default, check, *args, kernel: tuple | None = None):
    """One option of a game's config, declared once as its dataclass field: its `default`; its `check` (checks.as_int,
    as_bool, as_choice) with the check's arguments, any of them a function of the config where a bound or text depends
    on an option declared before it (checked already); a None default stands for the rule's default and passes
    unchecked; and where the numba kernels read it: `kernel=(index, name)` for the value itself at that index of the
    kernels' vector (the engine's C_* constant), or `(index, name, value)` for `value(config)` there instead (a derived
    value: a choice as a bool, a default seat). `name` is what a JAX engine's rules call that value."""
    return field(default=default, metadata={"check": (check, args), "kernel": kernel})


def episode_setting(index: int):
    """The `episode` option every game has ("game" by default, or "round"), read by the kernels as round_episode."""
    return setting("game", as_choice, EPISODES, kernel=(index, "round_episode", lambda c: c.episode == "round"))


def reward_setting(index: int):
    """The `reward` option every game has ("points" by default, or "win"), read by the kernels as win_reward."""
    return setting("points", as_choice, REWARDS, kernel=(index, "win_reward", lambda c: c.reward == "win"))


def max_steps_setting(default: int, index: int):
    """The `max_steps` option every game has: decisions per episode before it is truncated."""
    return setting(default, as_int, 1, MAX_STEPS, kernel=(index, "max_steps"))


class Options:
    """The base of a config dataclass whose fields are `setting`s: it checks every option in field order (`option`)
    and writes the kernels' vector from the declarations. A subclass sets `kernel_size` (the options' slots: the
    engine's CFG_SIZE), `autoreset_slot` and `observation_starts(num_players)` (the observation's section starts,
    which follow the options in the vector). An option declared without a setting, or a slot no setting declares or
    two do, is a TypeError when the class is defined."""

    kernel_size: int = 0
    autoreset_slot: int = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        plain = [name for name in vars(cls).get("__annotations__", {})
                 if not (isinstance(vars(cls).get(name), Field) and "check" in vars(cls)[name].metadata)]
        if plain:
            raise TypeError(f"config {cls.__name__} declares option(s) {plain} without setting(...)")
        declared = {**getattr(cls, "__dataclass_fields__", {}),     # a base config's, then the class's own
                    **{name: v for name, v in vars(cls).items() if isinstance(v, Field)}}
        slots = sorted([f.metadata["kernel"][0] for f in declared.values() if f.metadata.get("kernel")]
                       + [cls.autoreset_slot])
        if slots != list(range(cls.kernel_size)):
            raise TypeError(f"config {cls.__name__}'s settings and autoreset_slot declare the kernel slots {slots}, "
                            f"not each of 0..{cls.kernel_size - 1} once")

    def __post_init__(self):
        for f in fields(self):
            check, args = f.metadata["check"]
            if not (f.default is None and getattr(self, f.name) is None):
                option(self, f.name, check, *(a(self) if callable(a) else a for a in args))

    def to_dict(self) -> dict:
        """The options as keyword arguments (what a game record stores)."""
        return asdict(self)

    def kernel_values(self) -> list[tuple[int, str, object]]:
        """(index, name, value) of what the kernels read of each declared option."""
        return [(k[0], k[1], k[2](self) if len(k) > 2 else getattr(self, f.name))
                for f in fields(self) if (k := f.metadata["kernel"])]

    def kernel_reads(self) -> dict:
        """What the kernels read of each declared option, by its kernel name (what a JAX engine's rules hold)."""
        return {name: value for _, name, value in self.kernel_values()}

    def kernel_vector(self, autoreset: bool) -> np.ndarray:
        """The int64 vector the numba kernels read: each option at its declared index, autoreset at autoreset_slot,
        then the observation's section starts."""
        v = np.zeros(self.kernel_size, np.int64)
        for index, _, value in self.kernel_values():
            v[index] = value
        v[self.autoreset_slot] = autoreset
        return np.concatenate([v, self.observation_starts(self.num_players)])
