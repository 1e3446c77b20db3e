"""The parts of a step and of an episode that every game's numba kernels share, and the batch scans the contract
runs around them. A step's outcome is one row of flags per game (F_*); `step_starts`, `step_ends` and `episode_ends`
are the start and end every game's `step_one` shares, so that truncation, autoreset and the win reward mean the same
in every game. All are module-level numba functions with cache=True, so that numba caches them on disk.
"""
from numba import njit

# Per-step outcome flags, one row per game.
F_ROUND_OVER, F_TERMINATED, F_TRUNCATED, F_ERROR = range(4)
NUM_FLAGS = 4


@njit(cache=True)
def first_error(flags, games):
    """The first listed game whose last step raised F_ERROR (a forced reshuffle that does not fit), or -1."""
    for i in range(games.shape[0]):
        if flags[games[i], F_ERROR]:
            return games[i]
    return -1


@njit(cache=True)
def first_illegal(cur, games, actions, masks):
    """Index i of the first listed game whose action its player to move cannot play (-1 if all are legal;
    games that are over (cur < 0) take any action)."""
    for i in range(games.shape[0]):
        g = games[i]
        a = actions[i]
        if cur[g] >= 0 and not (0 <= a < masks.shape[1] and masks[g, a]):
            return i
    return -1


@njit(cache=True)
def step_starts(s, rew, flg):
    """The start every game's step_one shares: clear the step's rewards and flags, count the decision.
    False when the episode is already over (the action is then ignored)."""
    rew[:] = 0.0
    flg[:] = 0
    if s.cur < 0:
        return False
    s.steps += 1
    return True


@njit(cache=True)
def step_ends(s, flg, out_of_steps, over_phase, autoreset):
    """The end every game's step_one shares: truncate when `out_of_steps` (flag F_TRUNCATED, episode over);
    True when the episode is over and the game must start anew (autoreset)."""
    if out_of_steps:
        flg[F_TRUNCATED] = 1
        s.phase = over_phase
        s.cur = -1
    return s.cur < 0 and autoreset == 1


@njit(cache=True)
def episode_ends(s, flags, rew, n, win_reward, best, over_phase):
    """The game is over: F_TERMINATED, and with reward="win" +1 for every seat whose total is `best` (the
    winning total: the lowest or the highest, by the game's rules) and -1 for the others."""
    flags[F_TERMINATED] = 1
    if win_reward:
        for p in range(n):
            rew[p] += 1.0 if s.total[p] == best else -1.0
    s.phase = over_phase
    s.cur = -1

