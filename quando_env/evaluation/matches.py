"""Play agents against each other on batches of any game and measure them (the engine of evaluate.py).

Seats rotate: with k agents for n seats (k <= n), in game j seat s is played by agent (s - j) mod k. With one
agent per seat (k = n) agent i plays seat (i + j) mod n: over n consecutive games every agent sits in every seat
once and no agent keeps the starting advantage. With fewer agents than seats some agents play two (or more) seats
of a game, and which ones rotates: over any k consecutive games every agent plays the same number of seat-games
and sits in every seat equally often, whatever its place in the list. An agent's counts are per seat-game (a game
in which it plays two seats counts twice). Game j is seeded seed + j, and agents that draw random numbers draw
them from streams of that game's seed (one per seat entry), so a run depends on the seed alone: not on the batch
size, nor on how games are split up. A stream belongs to the entry (s - j) mod n rather than to the agent, so
lineups that repeat agents in a cycle (k dividing n) play what their spelled-out list of n agents plays.

Who won and who came next is the game's own: its winners() first, then the other seats by final total in the
direction the game declares (Game.higher_total_wins: Help!'s highest total wins, Quando's and Cabo's lowest), so
win rates, league ratings and knock success mean the same in every game. Summaries hold only what means
something for the game: knock counts only for a game with a knock (Game.knock_action).

A match is cut into batches (split_games) that play_batch plays one at a time: play_match plays them here one
after another, or hands them to a runner (evaluation.ray_tasks.RayRunner: Ray tasks on every CPU of a cluster),
and adds up their results whatever order they come back in. Ctrl-C raises Interrupted, a KeyboardInterrupt
carrying the results of the batches that had come back; an agent that raises, AgentFailed carrying them.
"""
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from tqdm.auto import tqdm

from quando_env import rng
from quando_env.checks import as_int, check_plays
from quando_env.registry import game_class

from quando_env.agents.base import Agent

MAX_GAMES = 10_000_000        # games of a match (or per lineup): the per-game results held take 16 bytes a seat


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

    def summary(self, knocks: bool = True) -> dict:
        """The counts as rates; knocks: the game has a knock (Game.knock_action), else its keys are left out."""
        lo, hi = wilson(self.wins, self.games)
        g = max(self.games, 1)
        out = {
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
        return out if knocks else {k: v for k, v in out.items() if k not in KNOCK_KEYS}


KNOCK_KEYS = ("knock_rate", "knock_success_rate", "knocks")


def has_knock(game) -> bool:
    """The game (a name or class) has a knock action, so knock counts mean something."""
    return game_class(game).knock_action is not None


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
    """Per-agent stats of a match (agent i = the agent given at position i), and per game each agent's place
    (see places: 0 for its winners; an agent with several seats: its best seat's) and that seat's final total."""

    names: list
    stats: list
    totals: np.ndarray = field(default=None)      # (games, k) final totals by agent, not by seat
    places: np.ndarray = field(default=None)      # (games, k) places by agent, 0 best
    game: object = field(kw_only=True)    # the game's name or class (required)
    actions: list = None        # per game its actions (play_match(keep_actions=True)); None for a game not played

    def pooled(self) -> dict:
        """{name: summary} with agents of the same name pooled."""
        out = {}
        for name, st in zip(self.names, self.stats):
            out.setdefault(name, SeatStats()).add(st)
        return {k: v.summary(has_knock(self.game)) for k, v in out.items()}


class AgentFailed(Exception):
    """An agent raised during a match (or league): `result` holds what finished before it, as for Interrupted,
    and `error` the agent's exception (also the __cause__)."""

    def __init__(self, result, error: BaseException):
        super().__init__(f"{type(error).__name__}: {error}")
        self.result, self.error = result, error


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
    """What one batch adds to its match: per-agent stats and its games' final totals and places by agent."""

    batch: Batch
    stats: list
    totals: np.ndarray      # (batch.size, k)
    places: np.ndarray      # (batch.size, k)
    actions: list = None    # per game its actions, when kept


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
               progress: bool = True, desc: str = "games", *, game: str, runner=None,
               keep_actions: bool = False, **config) -> MatchResult:
    """Play `games` games of `game` between the k agents (k <= num_players); seats rotate per game (in game j seat
    s is played by agent (s - j) mod k: see the module's docstring).

    agents: the agents, or a picklable function building them (e.g. partial(build_agents, makers)): a runner
    then builds them inside each task rather than receiving copies. runner: where the batches run (None: here,
    one after another; evaluation.ray_tasks.RayRunner: as Ray tasks): an object with `num_cpus` (the batches are
    at least that many) and `map(play, batches, on_games)`, yielding play(batch) for every batch in any order
    and calling on_games(m) as m games finish. config: the game's options (num_players defaults to
    len(agents)). An agent that declares another game (its `game`) is refused before any game is played.
    keep_actions: the result holds every game's actions (records replays them: game_records).
    """
    games = as_int(games, "games", 1, MAX_GAMES)
    built = agents() if callable(agents) else list(agents)
    k = len(built)
    config.setdefault("num_players", k)
    if not 1 <= k <= config["num_players"]:
        raise ValueError(f"{k} agents for {config['num_players']} players: give 1 to {config['num_players']} agents "
                         "(with fewer agents than seats, the extra seats rotate among them)")
    names = list(names) if names is not None else [getattr(a, "name", type(a).__name__) for a in built]
    for name, a in zip(names, built):
        if not isinstance(a, Agent) and not hasattr(a, "act"):
            raise TypeError(f"{a!r} is not an agent: it needs act(obs, masks)")
        check_plays(a, game_class(game).name, f"agent {name!r}")
    stats = [SeatStats() for _ in range(k)]
    all_totals = np.zeros((games, k), np.int64)
    all_places = np.zeros((games, k), np.int64)
    batches = split_games(games, batch_size, runner.num_cpus if runner else 1)
    bar = tqdm(total=games, desc=desc, disable=None if progress else True, unit="game", leave=False)  # None: a terminal
    if runner is None:
        done = (play_batch(built, b, seed, game, config, on_games=bar.update, keep_actions=keep_actions)
                for b in batches)
    else:
        done = runner.map(partial(play_batch, agents, seed=seed, game=game, config=config, keep_actions=keep_actions),
                          batches, bar.update)
    got = np.zeros(games, bool)
    moves = [None] * games if keep_actions else None
    try:
        for r in done:
            for total, part in zip(stats, r.stats):
                total.add(part)
            rows = slice(r.batch.start, r.batch.start + r.batch.size)
            all_totals[rows], all_places[rows], got[rows] = r.totals, r.places, True
            if keep_actions:
                moves[rows] = r.actions
    except KeyboardInterrupt:
        raise Interrupted(MatchResult(names, stats, all_totals[got], all_places[got], moves, game=game)) from None
    except Exception as e:          # a failing agent: the finished batches are kept
        raise AgentFailed(MatchResult(names, stats, all_totals[got], all_places[got], moves, game=game), e) from e
    finally:
        bar.close()
    return MatchResult(names, stats, all_totals, all_places, moves, game=game)


def play_batch(agents, batch: Batch, seed: int, game: str, config: dict, on_games=None,
               keep_actions: bool = False) -> BatchResult:
    """Play one batch of a match (what a runner's task runs); agents: the agents or a function building them.
    on_games(m) is called as m games finish; keep_actions: the result holds each game's actions."""
    agents = agents() if callable(agents) else agents
    k = len(agents)
    b = batch.size
    stats = [SeatStats() for _ in range(k)]
    totals_out = np.zeros((b, k), np.int64)
    places_out = np.zeros((b, k), np.int64)
    seed = seed + batch.start
    vg = game_class(game)(b, seed=seed, autoreset=False, **config)
    n = vg.num_players
    rows = np.arange(b)
    shift = np.arange(n)[None, :] - (batch.start + rows)[:, None]       # game j, seat s: s - j
    agent_of_seat, entry_of_seat = shift % k, shift % n     # (b, n); with k = n, agent i is entry i
    streams = np.stack([rng.streams(seed + rows, rng.SALT_AGENT + e) for e in range(n)], axis=1)   # per entry
    knocker = np.full(b, -1, np.int64)
    done = np.zeros(b, bool)
    actions = np.zeros(b, np.int64)
    history = []        # per step every game's action (-1: the game was over)
    while not done.all():
        cur = vg.current_player
        live = cur >= 0
        obs = vg.observe()
        masks = vg.legal_action_mask
        who = np.where(live, agent_of_seat[rows, np.maximum(cur, 0)], -1)
        actions[:] = -1
        for i in range(k):
            idx = np.flatnonzero(who == i)
            if idx.size:
                entry = entry_of_seat[idx, cur[idx]]
                own = streams[idx, entry]
                features = vg.action_features(games=idx) if agents[i].uses_action_features else None
                actions[idx] = agents[i].act(obs[idx], masks[idx], streams=own, features=features)
                streams[idx, entry] = own
        knocked_now = live & (actions == vg.knock_action) if vg.knock_action is not None else live & False
        knocker[knocked_now] = cur[knocked_now]
        if keep_actions:
            history.append(np.where(live, actions, -1))
        vg.step(actions)
        ended = np.flatnonzero(vg.round_over & live)
        if ended.size:
            pts = vg.round_points[ended]
            for j, g in enumerate(ended):
                for seat in range(n):
                    st = stats[agent_of_seat[g, seat]]
                    st.rounds += 1
                    st.round_points += int(pts[j, seat])
                s = knocker[g]
                if s >= 0:          # a knock succeeded when the knocker had the round's best points
                    st = stats[agent_of_seat[g, s]]
                    st.knocks += 1
                    st.knock_wins += int(pts[j, s] == (pts[j].max() if vg.higher_total_wins else pts[j].min()))
            knocker[ended] = -1
        finished = np.flatnonzero(live & (vg.game_over | vg.truncated))
        if finished.size:
            tot = vg.totals[finished]
            won = vg.winners(finished)
            place = places(won, tot, vg.higher_total_wins)
            for j, g in enumerate(finished):
                for seat in sorted(range(n), key=lambda x: -place[j, x]):   # best seat last: it gives the result
                    i = agent_of_seat[g, seat]
                    st = stats[i]
                    st.games += 1
                    st.wins += int(won[j, seat])
                    st.totals += int(tot[j, seat])
                    st.truncated += int(vg.truncated[g])
                    totals_out[g, i] = tot[j, seat]
                    places_out[g, i] = place[j, seat]
            done[finished] = True
            if on_games is not None:
                on_games(finished.size)
    kept = None
    if keep_actions:
        steps = np.array(history, np.int64).reshape(-1, b)
        kept = [steps[steps[:, g] >= 0, g].tolist() for g in range(b)]
    return BatchResult(batch, stats, totals_out, places_out, kept)


def game_records(result: MatchResult, seed: int, config: dict):
    """(game index, its seed, the agent name at each seat, its game record) of every game of a match played
    with keep_actions whose actions it holds: game j (seeded seed + j) replayed from its actions alone."""
    from quando_env.adapters.record import Recorder

    k = len(result.names)
    for j, actions in enumerate(result.actions or []):
        if actions is None:
            continue
        vg = game_class(result.game)(1, seed=seed + j, autoreset=False, **config)
        recorder = Recorder(vg, seed=seed + j)
        for a in actions:
            vg.step(np.array([a]))
            recorder.after_step(int(a))
        yield j, seed + j, [result.names[(s - j) % k] for s in range(vg.num_players)], recorder.record


COLUMNS = [  # (summary key, header, width, format): a table shows the columns whose key its summaries hold
    ("games", "games", 7, "d"), ("win_rate", "win rate", 10, ".3f"), ("win_rate_ci95", "95% CI", 17, "ci"),
    ("mean_round_points", "pts/round", 11, ".2f"), ("knock_rate", "knock rate", 12, ".3f"),
    ("knock_success_rate", "knock ok", 10, ".3f"), ("mean_rounds_per_game", "rounds/game", 13, ".2f")]


def format_table(summary: dict, title: str = "", higher_total_wins: bool = False, columns=COLUMNS) -> str:
    """A plain-text table of pooled summaries: the columns of `columns` the summaries hold (a game without a
    knock has no knock columns), and a line saying which way points are better (the game's higher_total_wins)."""
    first = next(iter(summary.values()), {})
    cols = [c for c in columns if c[0] in first]
    w = max([22] + [len(k) + 2 for k in summary])
    head = f"{'agent':<{w}}" + "".join(f"{h:>{width}}" for _, h, width, _ in cols)
    lines = ([title] if title else []) + [head, "-" * len(head)]
    for name, s in summary.items():
        lines.append(f"{name:<{w}}" + "".join(f"{cell(s[key], fmt):>{width}}" for key, _, width, fmt in cols))
    return "\n".join(lines + [f"pts/round: mean points per round, {'higher' if higher_total_wins else 'lower'} is "
                              "better"])


def cell(value, fmt: str) -> str:
    """One table cell: a number in its format, an interval [lo, hi], or - for None (e.g. no knock yet)."""
    if value is None:
        return "-"
    if fmt == "ci":
        return f"[{value[0]:.3f}, {value[1]:.3f}]"
    return format(value, fmt)
