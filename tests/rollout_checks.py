"""The check every game's rollout agent passes: in a batch of games, seat 0 searched, the others played by
the game's heuristic, every chosen action is legal (shared by the Cabo and Help! agent tests)."""
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
