"""A game's numba kernels as one record (`Kernels`), each kernel over a whole batch of state records: what a
quando_env.core.Game subclass declares as its `kernels` (and `parallel_kernels`), checked when the class is defined."""
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Kernels:
    """A game's numba kernels, each over a whole batch of state records.

    Required: `step(states, games, actions, cfg, rewards, flags, masks)` (one decision in each listed game;
    returns the first game whose step raised F_ERROR, or -1), `masks(states, cfg, masks)`,
    `observe(states, players, cfg, out)` (players[i] < 0: the player to move, seat 0 once over),
    `state(states, cfg, out)`, `infos(states, cfg, out)` (out[g, k, p]: per seat the values of `info_keys`).
    Optional (None): `play_random(states, games, auto, cfg, rewards, flags, masks, action_streams)` (step's
    random play fused), `check(states, cfg)` -> (g, problem): the first record g the kernels cannot safely run
    on and the index of its first problem in the game's `state_problems` (SHARED_PROBLEM when
    shared_fields_ok fails), or (-1, -1); `action_features(states, games, cfg, out)` (with action_feature_parts).
    """

    step: object
    masks: object
    observe: object
    state: object
    infos: object
    play_random: object = None
    check: object = None
    action_features: object = None

    @classmethod
    def of(cls, kernels, owner: str, what: str = "kernels", base=None):
        """`kernels` (a Kernels, or a namespace or dict of kernels by name) as a Kernels, what it lacks taken from
        `base` if given; TypeError naming `owner`'s missing or unknown kernels."""
        given = kernels if isinstance(kernels, dict) else vars(kernels)
        if base is not None:
            given = {**vars(base), **{k: v for k, v in given.items() if v is not None}}
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(given) - set(names))
        missing = [f.name for f in fields(cls) if f.default is not None and given.get(f.name) is None]
        if unknown or missing:
            raise TypeError(f"{owner}.{what} " + "; ".join(
                ([f"lacks the required kernel(s) {missing}"] if missing else [])
                + ([f"has unknown kernel(s) {unknown}"] if unknown else []))
                + f" (a game's kernels: {names}; see quando_env.kernels.Kernels)")
        return cls(**given)

    def present(self) -> dict:
        """The kernels given, by name."""
        return {k: v for k, v in vars(self).items() if v is not None}
