"""Help!'s batch kernels: each runs one game's part of the rules (engine.py) in every listed game.

They stay thin and alike across the games (tests/test_batch_kernels.py checks it): the rules live in engine.py,
and each kernel is defined here at module level, where numba caches it on disk (a kernel built by a factory
compiles anew in every process). Each step kernel comes twice: over the listed games in turn, and spread over
numba's threads (`_parallel`, for large batches); games are independent, so both give the same results.
"""
from numba import njit, prange

from ..core import first_error
from .engine import deal, mask_one, start_game, step_one


@njit(cache=True)
def reset_kernel(states, cfg, games, masks, decks, use_deck, starters):
    """Start a new game in each listed slot (with its given deck where use_deck[i], its given starter where
    starters[i] >= 0)."""
    for i in range(games.shape[0]):
        g = games[i]
        start_game(states[g], cfg, decks[i], use_deck[i] == 1, starters[i])
        mask_one(states[g], cfg, masks[g])


@njit(cache=True)
def step_kernel(states, games, actions, cfg, rewards, flags, masks):
    """One decision in each listed game (actions[i] for games[i], already checked legal); the others wait.
    Returns the first game whose step failed (F_ERROR: a forced reshuffle that does not fit), or -1."""
    for i in range(games.shape[0]):
        step_one(states[games[i]], actions[i], cfg, rewards[games[i]], flags[games[i]], masks[games[i]])
    return first_error(flags, games)


@njit(cache=True, parallel=True)
def step_kernel_parallel(states, games, actions, cfg, rewards, flags, masks):
    for i in prange(games.shape[0]):
        step_one(states[games[i]], actions[i], cfg, rewards[games[i]], flags[games[i]], masks[games[i]])
    return first_error(flags, games)


@njit(cache=True)
def redeal_kernel(states, cfg, games, decks, masks):
    """Replace the current round's deal in the listed games by the given decks (replaying a record); the
    round's direction and callers stay, the starter follows R5."""
    for i in range(games.shape[0]):
        g = games[i]
        deal(states[g], cfg, decks[i], True, -1)
        mask_one(states[g], cfg, masks[g])


@njit(cache=True, parallel=True)
def mask_kernel(states, cfg, masks):
    """Recompute every game's legal-action mask (after states were written from outside)."""
    for g in prange(states.shape[0]):
        mask_one(states[g], cfg, masks[g])
