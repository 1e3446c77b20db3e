"""The one agent interface: `act(obs, mask)` for one observation or a batch of them, for any game.

An agent sees only the observation of the seat it plays and the legal action mask. Subclasses implement
`act_batch(obs (B, d), masks (B, num_actions)) -> (B,) int64`; `act` accepts either one observation
(returns an int) or a batch (returns an array).

Agents that score moves from the game's legal-move features (`uses_action_features = True`) take `features`
(B, num_actions, F), the game's `action_features` for the rows' players: a caller that steps the games passes
them (cheap); otherwise the agent derives them from the observations itself (`features_of`).

Agents that draw random numbers (`uses_streams = True`) take `streams`, one quando_env.rng stream per row,
advanced in place: the evaluation gives every game and seat its own stream derived from the game's seed,
so a game plays the same whatever batch it is in. Without streams they use their own generator.
"""
import numpy as np


class Agent:
    """Base class: batched and single-observation `act`, with shape checks."""

    name = "agent"
    game = None          # the name of the game the agent plays (None: any); agents of another game are refused
    num_actions = None   # the game's action count, where the agent knows it (then masks are checked)
    uses_streams = False
    uses_action_features = False

    def act(self, obs, mask, streams=None, features=None):
        obs = np.asarray(obs, np.float32)
        mask = np.asarray(mask).astype(bool)
        single = obs.ndim == 1
        if single:
            obs, mask = obs[None], mask[None]
        width = self.num_actions or (mask.shape[-1] if mask.ndim else 0)
        if obs.ndim != 2 or mask.shape != (obs.shape[0], width):
            raise ValueError(f"act takes obs (B, d) and masks (B, {self.num_actions or 'num_actions'}) (or one "
                             f"of each); got {obs.shape} and {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("every action mask needs at least one legal action")
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        extra = {}          # what this agent takes besides observations and masks
        if self.uses_action_features:
            if features is None:
                features = self.features_of(obs)
            features = np.asarray(features, np.float32)
            if features.ndim == 2 and single:
                features = features[None]
            if features.shape[:2] != mask.shape:
                raise ValueError(f"act takes features (B, {mask.shape[1]}, F) with the masks; got {features.shape}")
            extra["features"] = features
        if streams is not None and self.uses_streams:
            if streams.shape != (obs.shape[0],) or streams.dtype != np.uint64:
                raise ValueError(f"streams must be {obs.shape[0]} uint64 stream states, got {streams.shape} "
                                 f"{streams.dtype}")
            extra["streams"] = streams
        out = np.asarray(self.act_batch(obs, mask, **extra), np.int64)
        return int(out[0]) if single else out

    __call__ = act

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def features_of(self, obs: np.ndarray) -> np.ndarray:
        """The move features of the players these observations belong to (agents that use them say how)."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"

    @staticmethod
    def wrap(x) -> "Agent":
        """x itself when it is an Agent, else this interface over its act(obs, mask) of one decision or its
        act_batch(obs, masks) (docs/agents.md): what a plug-in agent's name builds."""
        return x if isinstance(x, Agent) else WrappedAgent(x)


class WrappedAgent(Agent):
    """The Agent interface over an object of the plug-in contract: its act_batch when it has one, else its act
    row by row. Its name and game are the object's."""

    def __init__(self, inner):
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)
        self.game = getattr(inner, "game", None)

    def act_batch(self, obs, masks):
        """The inner agent's actions, checked: one integer per row, each legal in its row (a plug-in's mistake
        is named here, not found later as an illegal move of some game)."""
        batched = callable(getattr(self.inner, "act_batch", None))
        actions = np.asarray(self.inner.act_batch(obs, masks) if batched else
                             [self.inner.act(o, m) for o, m in zip(obs, masks)])
        def what():     # built only when refusing
            return f"agent {self.name}: " + (f"act_batch(obs, masks) on {len(masks)} decisions" if batched else
                                             "act(obs, mask)")
        if actions.shape != (len(masks),) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"{what()} must give " + (f"{len(masks)} integer actions, got shape {actions.shape} "
                             f"dtype {actions.dtype}" if batched else f"an integer action, got {actions.dtype}"))
        bad = np.flatnonzero((actions < 0) | (actions >= masks.shape[1]))
        bad = bad if bad.size else np.flatnonzero(~masks[np.arange(len(masks)), actions])
        if bad.size:
            row = int(bad[0])
            raise ValueError(f"{what()} gave action {int(actions[row])}" + (f" in row {row}" if batched else "") +
                             f", which is not legal there; legal: {np.flatnonzero(masks[row]).tolist()}")
        return actions.astype(np.int64)

    def __repr__(self):
        return f"WrappedAgent({self.inner!r})"


def player_counter(obs_dim, counts):
    """players_from_obs_dim of one game: the player count whose observation has length d (each count of
    `counts` has its own length, obs_dim(n))."""
    table = {obs_dim(n): n for n in counts}

    def players_from_obs_dim(d: int) -> int:
        if d not in table:
            raise ValueError(f"an observation of length {d} belongs to no player count: lengths are "
                             f"{sorted(table)} for {min(counts)}..{max(counts)} players")
        return table[d]
    return players_from_obs_dim


class ParamAgent(Agent):
    """An agent tuned by named parameters: `defaults` (name -> value) overridden by keyword; `prm` holds
    them in order as float64, for numba kernels."""

    defaults: dict = {}

    def __init__(self, num_players: int | None = None, **params):
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise ValueError(f"unknown {self.name} parameter(s) {sorted(unknown)}; they are {sorted(self.defaults)}")
        self.params = {**self.defaults, **params}
        self.prm = np.array([self.params[k] for k in self.defaults], np.float64)
        self.num_players = num_players

    def __repr__(self):
        return f"{type(self).__name__}({self.params})"


class KernelAgent(ParamAgent):
    """A ParamAgent deciding in one numba kernel over its observations:
    kernel(obs, masks, section_starts, n, prm, greedy, out), with the game's `players_of(obs_dim)` and
    `starts_of(n)` (its observation's section starts); `greedy` picks the kernel's simpler player."""

    greedy = False
    kernel = players_of = starts_of = None
    values_kernel = None     # values_kernel(obs, masks, starts, n, prm, out, vals): actions and their ratings

    def act_batch(self, obs, masks):
        n = self.num_players or self.players_of(obs.shape[1])
        out = np.empty(obs.shape[0], np.int64)
        self.kernel(np.ascontiguousarray(obs, np.float32), np.ascontiguousarray(masks, np.bool_),
                    self.starts_of(n), n, self.prm, self.greedy, out)
        return out

    def action_values(self, obs, masks) -> tuple[np.ndarray, np.ndarray]:
        """(actions, (B, num_actions) ratings of the legal actions, lower is better; inf for the illegal
        ones): what the rollout search ranks its candidates by. The greedy player rates its choice 0 and
        every other legal action 1."""
        obs = np.ascontiguousarray(obs, np.float32)
        masks = np.ascontiguousarray(masks, np.bool_)
        n = self.num_players or self.players_of(obs.shape[1])
        out = np.empty(obs.shape[0], np.int64)
        vals = np.full((obs.shape[0], self.num_actions), np.inf)
        if self.greedy:
            self.kernel(obs, masks, self.starts_of(n), n, self.prm, True, out)
            vals[masks] = 1.0
            vals[np.arange(obs.shape[0]), out] = 0.0
        else:
            self.values_kernel(obs, masks, self.starts_of(n), n, self.prm, out, vals)
        return out, vals
