"""What a trainer's --seconds holds to: the wall time from the command's start (the process's, imports included),
and evaluations that end by a deadline however long their games have become."""
import os
import time

import numpy as np

from .evaluation import MatchResult, SeatStats, play_match

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


def play_by(agents: list, games: int, deadline: float | None, clock, *, seed: int, num_players: int, game: str,
            **config) -> tuple[MatchResult, int]:
    """(result, games played) of play_match(agents, games, seed) played in up to PARTS parts of whole turns of the
    seats (the same games, seats and seeds as one match): a part starts only when, by `clock`, the longest part yet
    still ends by `deadline` (None: every part plays; the first part always does)."""
    part = -(-games // PARTS // num_players) * num_players
    results, start, longest = [], 0, 0.0
    while start < games and not (results and deadline is not None and clock() + longest > deadline):
        t, size = clock(), min(part, games - start)
        results.append(play_match(agents, size, seed=seed + start, progress=False, num_players=num_players,
                                  game=game, **config))
        longest, start = max(longest, clock() - t), start + size
    stats = [SeatStats() for _ in agents]
    for r in results:
        for total, s in zip(stats, r.stats):
            total.add(s)
    return MatchResult(results[0].names, stats, np.concatenate([r.totals for r in results]),
                       np.concatenate([r.places for r in results]), game=game), start
