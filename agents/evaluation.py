"""Play agents against each other on batches of any game and measure them (the engine of evaluate.py).

Seats rotate: in game j the agent listed at position i plays seat (i + j) mod n, so over n consecutive
games every agent sits in every seat once and no agent keeps the starting advantage. Game j is seeded
seed + j, and agents that draw random numbers draw them from streams of that game's seed (one per agent
entry), so a run depends on the seed alone: not on the batch size, nor on how games are split up.
"""
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from quando_env import rng
from quando_env.registry import game_class

from .base import Agent


@dataclass
class SeatStats:
    """Counts for one agent entry (or several pooled under one name)."""

    games: int = 0
    wins: int = 0
    rounds: int = 0
    round_points: int = 0
    knocks: int = 0
    knock_wins: int = 0
    totals: int = 0
    truncated: int = 0

    def add(self, other: "SeatStats") -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def summary(self) -> dict:
        lo, hi = wilson(self.wins, self.games)
        g = max(self.games, 1)
        return {
            "games": self.games,
            "win_rate": self.wins / g,
            "win_rate_ci95": [lo, hi],
            "mean_round_points": self.round_points / max(self.rounds, 1),
            "knock_rate": self.knocks / max(self.rounds, 1),
            "knock_success_rate": self.knock_wins / self.knocks if self.knocks else None,
            "knocks": self.knocks,
            "mean_rounds_per_game": self.rounds / g,
            "mean_final_total": self.totals / g,
            "truncated_games": self.truncated,
        }


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return float(max(0.0, c - h)), float(min(1.0, c + h))


@dataclass
class MatchResult:
    """Per-entry stats of a match (entry i = the agent given at position i) and each game's final totals."""

    names: list
    stats: list
    totals: np.ndarray = field(default=None)      # (games, n) final totals by entry, not by seat

    def pooled(self) -> dict:
        """{name: summary} with entries of the same name pooled."""
        out = {}
        for name, st in zip(self.names, self.stats):
            out.setdefault(name, SeatStats()).add(st)
        return {k: v.summary() for k, v in out.items()}


def play_match(agents: list, games: int, seed: int = 0, names: list | None = None, batch_size: int = 256,
               progress: bool = True, desc: str = "games", game: str = "quando", **config) -> MatchResult:
    """Play `games` games of `game` with agents[i] at entry i (len(agents) = num_players); seats rotate per game.

    config: the game's options (num_players defaults to len(agents)).
    """
    n = len(agents)
    config.setdefault("num_players", n)
    if config["num_players"] != n:
        raise ValueError(f"{n} agents for {config['num_players']} players: give one agent per seat")
    for a in agents:
        if not isinstance(a, Agent) and not hasattr(a, "act"):
            raise TypeError(f"{a!r} is not an agent: it needs act(obs, masks)")
    names = list(names) if names is not None else [getattr(a, "name", type(a).__name__) for a in agents]
    stats = [SeatStats() for _ in range(n)]
    all_totals = np.zeros((games, n), np.int64)
    bar = tqdm(total=games, desc=desc, disable=not progress, unit="game", leave=False)
    for start in range(0, games, batch_size):
        b = min(batch_size, games - start)
        rot = (start + np.arange(b)) % n                  # entry i plays seat (i + rot) % n
        _play_batch(game_class(game), agents, b, seed + start, rot, stats, all_totals[start:start + b], bar, config)
    bar.close()
    return MatchResult(names, stats, all_totals)


def _play_batch(cls, agents, b, seed, rot, stats, totals_out, bar, config):
    n = len(agents)
    vg = cls(b, seed=seed, autoreset=False, **config)
    rows = np.arange(b)
    entry_of_seat = (np.arange(n)[None, :] - rot[:, None]) % n   # (b, n): entry playing each seat
    streams = np.stack([rng.streams(seed + np.arange(b), rng.SALT_AGENT + i) for i in range(n)], axis=1)
    knocker = np.full(b, -1, np.int64)
    done = np.zeros(b, bool)
    actions = np.zeros(b, np.int64)
    while not done.all():
        cur = vg.current_player
        live = cur >= 0
        obs = vg.observe()
        masks = vg.legal_action_mask
        entry = np.where(live, entry_of_seat[rows, np.maximum(cur, 0)], -1)
        actions[:] = -1
        for i in range(n):
            idx = np.flatnonzero(entry == i)
            if idx.size:
                own = streams[idx, i]
                actions[idx] = agents[i].act(obs[idx], masks[idx], streams=own)
                streams[idx, i] = own
        knocked_now = live & (actions == vg.knock_action) if vg.knock_action is not None else live & False
        knocker[knocked_now] = cur[knocked_now]
        vg.step(actions)
        ended = np.flatnonzero(vg.round_over & live)
        if ended.size:
            pts = vg.round_points[ended]
            for j, g in enumerate(ended):
                for seat in range(n):
                    st = stats[entry_of_seat[g, seat]]
                    st.rounds += 1
                    st.round_points += int(pts[j, seat])
                k = knocker[g]
                if k >= 0:          # a knock succeeded when the knocker scored the fewest points of the round
                    st = stats[entry_of_seat[g, k]]
                    st.knocks += 1
                    st.knock_wins += int(pts[j, k] == pts[j].min())
            knocker[ended] = -1
        finished = np.flatnonzero(live & (vg.game_over | vg.truncated))
        if finished.size:
            tot = vg.totals[finished]
            won = vg.winners(finished)
            for j, g in enumerate(finished):
                for seat in range(n):
                    st = stats[entry_of_seat[g, seat]]
                    st.games += 1
                    st.wins += int(won[j, seat])
                    st.totals += int(tot[j, seat])
                    st.truncated += int(vg.truncated[g])
                    totals_out[g, entry_of_seat[g, seat]] = tot[j, seat]
            done[finished] = True
            bar.update(finished.size)


def format_table(summary: dict, title: str = "") -> str:
    """A plain-text table of pooled summaries."""
    w = max([22] + [len(k) + 2 for k in summary])
    head = f"{'agent':<{w}}{'games':>7}{'win rate':>10}{'95% CI':>17}{'pts/round':>11}{'knock rate':>12}" \
           f"{'knock ok':>10}{'rounds/game':>13}"
    lines = ([title] if title else []) + [head, "-" * len(head)]
    for name, s in summary.items():
        ks = s["knock_success_rate"]
        lo, hi = s["win_rate_ci95"]
        lines.append(f"{name:<{w}}{s['games']:>7}{s['win_rate']:>10.3f}{f'[{lo:.3f}, {hi:.3f}]':>17}"
                     f"{s['mean_round_points']:>11.2f}{s['knock_rate']:>12.3f}"
                     f"{('-' if ks is None else f'{ks:.3f}'):>10}{s['mean_rounds_per_game']:>13.2f}")
    return "\n".join(lines)
