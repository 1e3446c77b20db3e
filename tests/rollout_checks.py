"""The checks every game's rollout agent passes: in a batch of games, seat 0 searched, the others played by
the game's heuristic, every chosen action is legal (shared by the Cabo and Help! agent tests); and a fused
play-out kernel leaves every game as stepping the heuristic does."""
import numpy as np


def rollout_plays_legal_moves(game, agent, prior) -> int:
    """Play `game` (a VectorGame without autoreset) to its end with `agent` in seat 0 and `prior` elsewhere,
    asserting every action is legal; returns how many of seat 0's decisions had a choice to search."""
    searched = 0
    while (game.current_player >= 0).any():
        live = np.flatnonzero(game.current_player >= 0)
        obs, masks = game.observe(games=live), game.legal_action_mask[live]
        acts = prior.act(obs, masks)
        mine = np.flatnonzero(game.current_player[live] == 0)
        if mine.size:
            acts[mine] = agent.act(obs[mine], masks[mine])
            searched += (masks[mine].sum(axis=1) > 1).sum()
        assert masks[np.arange(live.size), acts].all()
        game.step(acts, games=live)
    return searched


def stepped_and_fused(make_game, heuristic, horizon, fused) -> tuple:
    """(stepped, fused-played) games: one of make_game() played 7 decisions by `heuristic` (mid-round), a copy
    loaded into another, then the first stepped by heuristic.act for `horizon` decisions (None: to the round's
    end) and the copy given to fused(copy) (the game's play-out kernel)."""
    slow = make_game()
    for _ in range(7):
        live = np.flatnonzero(slow.current_player >= 0)
        slow.step(heuristic.act(slow.observe(games=live), slow.legal_action_mask[live]), games=live)
    fast = make_game()
    fast.load_states(slow.states.copy())
    steps = 0
    while (horizon is None or steps < horizon) and (slow.current_player >= 0).any():
        live = np.flatnonzero(slow.current_player >= 0)
        slow.step(heuristic.act(slow.observe(games=live), slow.legal_action_mask[live]), games=live)
        steps += 1
    fused(fast)
    return slow, fast
