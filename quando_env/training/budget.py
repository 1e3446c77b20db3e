"""What a trainer's --seconds holds to: the wall time from the command's start (the process's, imports included),
and evaluations that end by a deadline however long their games have become."""
import os
import time

import numpy as np

from quando_env.evaluation.matches import AgentFailed, MatchResult, SeatStats, play_match

_IMPORTED = time.perf_counter()     # where /proc cannot say when the process started
PARTS = 4                           # an evaluation's parts: it may stop between two of them


def process_age() -> float:
    """Seconds since this process started: Linux's /proc (its start on the boot clock), elsewhere since this module
    was first imported."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rpartition(")")[2].split()[19])     # field 22, starttime (clock ticks after boot)
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED


class PastDeadline(Exception):
    """An evaluation's deadline has passed (its part then stops, between two steps)."""


class Until:
    """`agent` as it plays until `deadline` on `clock`: asked to act later, it raises PastDeadline."""

    def __init__(self, agent, deadline: float, clock):
        self.agent, self.deadline, self.clock = agent, deadline, clock

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def act(self, *args, **kwargs):
        if self.clock() > self.deadline:
            raise PastDeadline
        return self.agent.act(*args, **kwargs)


def play_by(agents: list, games: int, deadline: float | None, clock, *, seed: int, num_players: int, game: str,
            **config) -> tuple[MatchResult | None, int]:
    """(result, games played) of play_match(agents, games, seed) played in up to PARTS parts of whole turns of the
    seats (the same games, seats and seeds as one match), each part whole or left out: a part starts only when, by
    `clock`, the longest part yet still ends by `deadline` (None: every part plays), and one still playing at the
    deadline stops there, between two steps, its games left out (None, 0: no part ended by the deadline)."""
    part = -(-games // PARTS // num_players) * num_players
    lineup = agents if deadline is None else [Until(agents[0], deadline, clock), *agents[1:]]
    results, start, longest = [], 0, 0.0
    while start < games and not (results and deadline is not None and clock() + longest > deadline):
        t, size = clock(), min(part, games - start)
        try:
            results.append(play_match(lineup, size, seed=seed + start, progress=False, num_players=num_players,
                                      game=game, **config))
        except AgentFailed as e:
            if isinstance(e.error, PastDeadline):
                break
            raise
        longest, start = max(longest, clock() - t), start + size
    if not results:
        return None, 0
    stats = [SeatStats() for _ in agents]
    for r in results:
        for total, s in zip(stats, r.stats):
            total.add(s)
    return MatchResult(results[0].names, stats, np.concatenate([r.totals for r in results]),
                       np.concatenate([r.places for r in results]), game=game), start
