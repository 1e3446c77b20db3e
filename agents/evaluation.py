"""Play agents against each other on batches of any game and measure them (the engine of evaluate.py).

Seats rotate: in game j the agent listed at position i plays seat (i + j) mod n, so over n consecutive
games every agent sits in every seat once and no agent keeps the starting advantage. Game j is seeded
seed + j, and agents that draw random numbers draw them from streams of that game's seed (one per agent
entry), so a run depends on the seed alone: not on the batch size, nor on how games are split up.

Who won and who came next is the game's own: its winners() first, then the other seats by final total in the
direction the game declares (Game.higher_total_wins: Help!'s highest total wins, Quando's and Cabo's lowest), so
win rates, league ratings and knock success mean the same in every game.

A match is cut into batches (split_games) that play_batch plays one at a time: play_match plays them here one
after another, or hands them to a runner (agents.ray_tasks.RayRunner: Ray tasks on every CPU of a cluster),
and adds up their results whatever order they come back in. Ctrl-C raises Interrupted, a KeyboardInterrupt
carrying the results of the batches that had come back.
"""
from dataclasses import dataclass, field
from functools import partial

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


def places(won: np.ndarray, totals: np.ndarray, higher_total_wins: bool) -> np.ndarray:
    """(k, n) place of each seat in each of k finished games, 0 best: how many seats beat it. A winner (won,
    the game's winners()) beats every non-winner; otherwise the better final total in the game's direction
    wins, and equal totals share a place."""
    key = -totals if higher_total_wins else totals
    same = won[:, :, None] == won[:, None, :]
    beats = (won[:, :, None] & ~won[:, None, :]) | (same & (key[:, :, None] < key[:, None, :]))   # [g, a, b]: a beats b
    return beats.sum(axis=1)


@dataclass
class MatchResult:
    """Per-entry stats of a match (entry i = the agent given at position i), each game's final totals and each
    game's places (see places: 0 for its winners)."""

    names: list
    stats: list
    totals: np.ndarray = field(default=None)      # (games, n) final totals by entry, not by seat
    places: np.ndarray = field(default=None)      # (games, n) places by entry, 0 best

    def pooled(self) -> dict:
        """{name: summary} with entries of the same name pooled."""
        out = {}
        for name, st in zip(self.names, self.stats):
            out.setdefault(name, SeatStats()).add(st)
        return {k: v.summary() for k, v in out.items()}


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a match (or league): `result` holds what finished before it, the games of the batches
    that had come back (a MatchResult, or a league's result dict), for a caller to report as partial."""

    def __init__(self, result):
        super().__init__()
        self.result = result


@dataclass(frozen=True)
class Batch:
    """Games start .. start + size - 1 of a match: game j is seeded seed + j and rotates the seats by j."""

    start: int
    size: int


@dataclass
class BatchResult:
    """What one batch adds to its match: per-entry stats and its games' final totals and places by entry."""

    batch: Batch
    stats: list
    totals: np.ndarray      # (batch.size, n)
    places: np.ndarray      # (batch.size, n)


def split_games(games: int, batch_size: int, min_batches: int = 1) -> list[Batch]:
    """Games 0 .. games - 1 cut into consecutive batches of at most batch_size games, at least min_batches of
    them where there are that many games (a runner asks for one per CPU), their sizes within one of each other."""
    if batch_size < 1 or min_batches < 1 or games < 0:
        raise ValueError(f"games={games}, batch_size={batch_size}, min_batches={min_batches}: batch_size and "
                         "min_batches must be at least 1, games at least 0")
    k = min(games, max(-(-games // batch_size), min_batches))
    edges = [games * i // k for i in range(k + 1)] if k else [0]
    return [Batch(a, b - a) for a, b in zip(edges, edges[1:])]


def build_agents(makers) -> list:
    """[make() for make in makers]: with functools.partial, a picklable recipe of a lineup that a runner's
    tasks build their agents from."""
    return [make() for make in makers]


def play_match(agents, games: int, seed: int = 0, names: list | None = None, batch_size: int = 256,
               progress: bool = True, desc: str = "games", game: str = "quando", runner=None,
               **config) -> MatchResult:
    """Play `games` games of `game` with agents[i] at entry i (len(agents) = num_players); seats rotate per game.

    agents: the agents, or a picklable function building them (e.g. partial(build_agents, makers)): a runner
    then builds them inside each task rather than receiving copies. runner: where the batches run (None: here,
    one after another; agents.ray_tasks.RayRunner: as Ray tasks): an object with `num_cpus` (the batches are
    at least that many) and `map(play, batches, on_games)`, yielding play(batch) for every batch in any order
    and calling on_games(k) as k games finish. config: the game's options (num_players defaults to
    len(agents)).
    """
    built = agents() if callable(agents) else list(agents)
    n = len(built)
    config.setdefault("num_players", n)
    if config["num_players"] != n:
        raise ValueError(f"{n} agents for {config['num_players']} players: give one agent per seat")
    for a in built:
        if not isinstance(a, Agent) and not hasattr(a, "act"):
            raise TypeError(f"{a!r} is not an agent: it needs act(obs, masks)")
    names = list(names) if names is not None else [getattr(a, "name", type(a).__name__) for a in built]
    stats = [SeatStats() for _ in range(n)]
    all_totals = np.zeros((games, n), np.int64)
    all_places = np.zeros((games, n), np.int64)
    batches = split_games(games, batch_size, runner.num_cpus if runner else 1)
    bar = tqdm(total=games, desc=desc, disable=not progress, unit="game", leave=False)
    if runner is None:
        done = (play_batch(built, b, seed, game, config, on_games=bar.update) for b in batches)
    else:
        done = runner.map(partial(play_batch, agents, seed=seed, game=game, config=config), batches, bar.update)
    got = np.zeros(games, bool)
    try:
        for r in done:
            for total, part in zip(stats, r.stats):
                total.add(part)
            rows = slice(r.batch.start, r.batch.start + r.batch.size)
            all_totals[rows], all_places[rows], got[rows] = r.totals, r.places, True
    except KeyboardInterrupt:
        raise Interrupted(MatchResult(names, stats, all_totals[got], all_places[got])) from None
    finally:
        bar.close()
    return MatchResult(names, stats, all_totals, all_places)


def play_batch(agents, batch: Batch, seed: int, game: str, config: dict, on_games=None) -> BatchResult:
    """Play one batch of a match (what a runner's task runs); agents: the agents or a function building them.
    on_games(k) is called as k games finish."""
    agents = agents() if callable(agents) else agents
    n = len(agents)
    b = batch.size
    stats = [SeatStats() for _ in range(n)]
    totals_out = np.zeros((b, n), np.int64)
    places_out = np.zeros((b, n), np.int64)
    seed = seed + batch.start
    rot = (batch.start + np.arange(b)) % n                  # entry i plays seat (i + rot) % n
    vg = game_class(game)(b, seed=seed, autoreset=False, **config)
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
                if k >= 0:          # a knock succeeded when the knocker had the round's best points
                    st = stats[entry_of_seat[g, k]]
                    st.knocks += 1
                    st.knock_wins += int(pts[j, k] == (pts[j].max() if vg.higher_total_wins else pts[j].min()))
            knocker[ended] = -1
        finished = np.flatnonzero(live & (vg.game_over | vg.truncated))
        if finished.size:
            tot = vg.totals[finished]
            won = vg.winners(finished)
            place = places(won, tot, vg.higher_total_wins)
            for j, g in enumerate(finished):
                for seat in range(n):
                    st = stats[entry_of_seat[g, seat]]
                    st.games += 1
                    st.wins += int(won[j, seat])
                    st.totals += int(tot[j, seat])
                    st.truncated += int(vg.truncated[g])
                    totals_out[g, entry_of_seat[g, seat]] = tot[j, seat]
                    places_out[g, entry_of_seat[g, seat]] = place[j, seat]
            done[finished] = True
            if on_games is not None:
                on_games(finished.size)
    return BatchResult(batch, stats, totals_out, places_out)


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
